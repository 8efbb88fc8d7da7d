import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/rest/openapi.ts";
import { routes } from "../../src/rest/routes/all.ts";
import { schema } from "../../src/graphql/schema.ts";

describe("the OpenAPI document", () => {
  const doc = buildOpenApi(routes, "http://localhost:8080");

  it("is valid OpenAPI 3.1", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it("a broken document is refused by the same validator", async () => {
    // OpenAPI 3 has no `in: body` parameters (that was Swagger 2).
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, { parameters: unknown[] }>> };
    broken.paths["/v1/health"]!.get!.parameters.push({ name: "payload", in: "body", schema: { type: "object" } });
    const result = await validate(broken as never);
    expect(result.valid).toBe(false);
  });

  it("describes every route of the table, with problem responses", () => {
    for (const r of routes) {
      const op = doc.paths?.[r.path]?.[r.method];
      expect(op?.operationId, `${r.method} ${r.path}`).toBe(r.operationId);
      expect(op?.responses?.[String(r.status)]).toBeDefined();
      expect(op?.responses?.["500"]?.content?.["application/problem+json"]).toBeDefined();
    }
  });
});

describe("REST ↔ GraphQL parity", () => {
  it("every REST operationId is a GraphQL root field of the same name", () => {
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
    const fields = new Set(roots.flatMap((t) => (t ? Object.keys(t.getFields()) : [])));
    const missing = routes.map((r) => r.operationId).filter((id) => !fields.has(id));
    expect(missing).toEqual([]);
    expect(routes.length).toBeGreaterThan(0);
  });
});
