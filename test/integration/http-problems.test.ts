import { gzipSync } from "node:zlib";
import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { problemTypes, type ProblemSlug } from "../../src/errors.ts";
import { defineRoute } from "../../src/rest/define-route.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

// Two routes that exist only in this test, to drive the route-table machinery: one with a strict
// body, one that fails the way a bug would (an Error whose message holds SQL and a file path).
const testRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/test-echo/{name}",
    operationId: "testEcho",
    summary: "test",
    tags: ["Test"],
    auth: "none",
    input: {
      params: z.object({ name: z.string().regex(/^[a-z]+$/) }),
      body: z.strictObject({ count: z.number().int().min(1), label: z.string().optional() }),
    },
    status: 201,
    response: z.object({ name: z.string(), count: z.number() }),
    bodyLimit: "2kb",
    handler: async (_ctx, { params, body }) => ({ name: params.name, count: body.count }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/test-fault",
    operationId: "testFault",
    summary: "test",
    tags: ["Test"],
    auth: "none",
    input: {},
    status: 200,
    handler: async () => {
      throw new Error('relation "secret_table" does not exist: SELECT * FROM secret_table at /work/main/src/x.ts:12:3');
    },
  }),
];

let t: TestApp;
let seeded: Seeded;
beforeAll(async () => {
  t = await startTestApp({ extraRoutes: testRoutes, env: { VESSEL_PUBLIC_BASE_URL: "https://vessel.example.test" } });
  seeded = await seedWorkspace(t);
});
afterAll(async () => t?.stop());

const json = { "content-type": "application/json" };
const key = () => ({ authorization: `Bearer ${seeded.key}` });
const cases: Array<{
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string> | (() => Record<string, string>);
  body?: string;
  slug: ProblemSlug;
  detail?: RegExp;
  check?: (body: Record<string, unknown>, res: Response) => void;
}> = [
  {
    name: "no API key",
    method: "GET",
    path: "/v1/health",
    slug: "unauthenticated",
    check: (_b, res) => expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vessel"'),
  },
  { name: "malformed API key", method: "GET", path: "/v1/health", headers: { authorization: "Bearer vs_nope.short" }, slug: "unauthenticated" },
  { name: "API key on a dashboard-only action", method: "GET", path: "/v1/dashboard/ws/any/audit-log", headers: key, slug: "forbidden" },
  { name: "unknown /v1 route", method: "GET", path: "/v1/no-such-thing", slug: "not-found" },
  { name: "unknown route outside /v1, asking for HTML", method: "GET", path: "/no/such/page", headers: { accept: "text/html" }, slug: "not-found" },
  {
    name: "wrong method",
    method: "DELETE",
    path: "/v1/health",
    slug: "method-not-allowed",
    check: (_b, res) => expect(res.headers.get("allow")).toBe("GET, HEAD"),
  },
  { name: "malformed JSON", method: "POST", path: "/v1/test-echo/abc", headers: json, body: '{"count": 1,', slug: "malformed-json" },
  {
    name: "body too large",
    method: "POST",
    path: "/v1/test-echo/abc",
    headers: json,
    body: JSON.stringify({ count: 1, label: "x".repeat(4000) }),
    slug: "payload-too-large",
  },
  {
    name: "body in another charset",
    method: "POST",
    path: "/v1/test-echo/abc",
    headers: { "content-type": "application/json; charset=latin1" },
    body: '{"count": 1}',
    slug: "unsupported-media-type",
  },
  {
    name: "body in an unknown encoding",
    method: "POST",
    path: "/v1/test-echo/abc",
    headers: { ...json, "content-encoding": "x-nope" },
    body: '{"count": 1}',
    slug: "unsupported-media-type",
  },
  { name: "body of only a byte order mark", method: "POST", path: "/v1/test-echo/abc", headers: json, body: "\ufeff", slug: "malformed-json" },
  { name: "not JSON", method: "POST", path: "/v1/test-echo/abc", headers: { "content-type": "text/plain" }, body: "count=1", slug: "unsupported-media-type" },
  {
    name: "validation names each field",
    method: "POST",
    path: "/v1/test-echo/ABC",
    headers: json,
    body: JSON.stringify({ count: 0, extra: true }),
    slug: "validation-failed",
    detail: /params\.name/,
    check: (b) => {
      const fields = (b.errors as Array<{ field: string }>).map((e) => e.field).sort();
      expect(fields).toEqual(["body", "body.count", "params.name"]);
    },
  },
  { name: "missing body", method: "POST", path: "/v1/test-echo/abc", headers: json, slug: "validation-failed", detail: /^body/ },
  {
    name: "unexpected fault",
    method: "GET",
    path: "/v1/test-fault",
    slug: "internal-error",
    check: (b) => {
      const text = JSON.stringify(b);
      expect(text).not.toMatch(/secret_table|SELECT|\/work\/|\.ts:\d+|at .+\.(ts|js):\d+/);
    },
  },
  { name: "unknown problem type page", method: "GET", path: "/errors/no-such-problem", slug: "not-found" },
];

describe("every failure is an RFC 9457 problem document", () => {
  it.each(cases)("$name → $slug", async ({ method, path, headers, body, slug, detail, check }) => {
    const res = await fetch(`${t.url}${path}?token=should-not-echo`, { method, headers: typeof headers === "function" ? headers() : headers, body });
    const problem = problemTypes[slug];
    expect(res.status).toBe(problem.status);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const b = (await res.json()) as Record<string, unknown>;
    expect(b.type).toBe(`https://vessel.example.test/errors/${slug}`);
    expect(b.title).toBe(problem.title);
    expect(b.status).toBe(problem.status);
    expect(typeof b.detail).toBe("string");
    expect((b.detail as string).length).toBeGreaterThan(0);
    if (detail) expect(b.detail).toMatch(detail);
    expect(b.instance).toBe(path);
    expect(b.request_id).toBe(res.headers.get("x-request-id"));
    expect(JSON.stringify(b)).not.toContain("should-not-echo");
    check?.(b, res);
  });

  it("a valid request through the same route succeeds", async () => {
    const res = await fetch(`${t.url}/v1/test-echo/abc`, { method: "POST", headers: json, body: JSON.stringify({ count: 3 }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: "abc", count: 3 });
  });

  it("reads bodies as clients send them: declared or chunked, gzipped, with a BOM or a charset, up to the limit", async () => {
    const echo = (body: BodyInit, headers: Record<string, string> = json) =>
      fetch(`${t.url}/v1/test-echo/abc`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
    const ok = async (res: Response, count: number) => {
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ name: "abc", count });
    };
    await ok(await echo("\ufeff" + JSON.stringify({ count: 4 })), 4);
    await ok(await echo(JSON.stringify({ count: 5 }), { "content-type": "application/json; charset=UTF-8" }), 5);
    await ok(await echo(gzipSync(JSON.stringify({ count: 6 })), { ...json, "content-encoding": "gzip" }), 6);
    const chunked = new ReadableStream({
      start(controller) {
        for (const part of ['{"count"', ": 7", "}"]) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    await ok(await echo(chunked), 7);
    // Exactly the 2 KiB limit passes (multi-byte characters count as bytes); a byte more does not.
    const padTo = (bytes: number) => {
      const base = JSON.stringify({ count: 8, label: "" });
      return JSON.stringify({ count: 8, label: "é".repeat((bytes - Buffer.byteLength(base)) / 2) });
    };
    expect(Buffer.byteLength(padTo(2048))).toBe(2048);
    await ok(await echo(padTo(2048)), 8);
    const over = await echo(padTo(2048) + " ");
    expect(over.status).toBe(413);
  });

  it("serves its OpenAPI 3.1 document, valid, naming the configured base URL", async () => {
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; servers: Array<{ url: string }> };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0]!.url).toBe("https://vessel.example.test");
    const result = await validate(doc as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it("serves a human page for every problem type", async () => {
    for (const [slug, p] of Object.entries(problemTypes)) {
      const res = await fetch(`${t.url}/errors/${slug}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await res.text()).toContain(p.title);
    }
  });
});
