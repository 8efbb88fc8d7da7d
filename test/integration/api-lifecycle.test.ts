import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { argonCalls } from "../../src/auth/api-key-hash.ts";
import { defineRoute } from "../../src/rest/define-route.ts";
import { buildOpenApi } from "../../src/rest/openapi.ts";
import { operations } from "../../src/services/operations.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";

// The clock the app reads: tests move it instead of waiting.
let clock = new Date("2027-01-01T00:00:00Z");
const now = () => clock;

const since = new Date("2026-12-01T00:00:00Z");
const sunset = new Date("2027-03-01T00:00:00Z");

// A deprecated route that exists only in this test. It reuses the health operation's name so the
// audit table knows it; what is under test is the route machinery, not the operation.
const legacy = defineRoute({
  method: "get",
  path: "/v1/legacy-health",
  operationId: "health",
  summary: "Old health",
  tags: ["Test"],
  input: {},
  status: 200,
  response: z.object({ ok: z.boolean() }),
  deprecated: { since, sunset, successor: "/v1/health" },
  handler: async () => ({ ok: true }),
});

let t: TestApp;
let seeded: Seeded;
beforeAll(async () => {
  t = await startTestApp({ now, extraRoutes: [legacy] });
  seeded = await seedWorkspace(t);
});
afterAll(async () => t?.stop());

describe("deprecation and sunset", () => {
  it("announces the deprecation, the sunset and the successor while the route still works", async () => {
    clock = new Date("2027-01-15T00:00:00Z");
    const res = await fetch(`${t.url}/v1/legacy-health`, { headers: bearer(seeded.key) });
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBe(`@${since.getTime() / 1000}`);
    const sunsetHeader = res.headers.get("sunset")!;
    expect(new Date(sunsetHeader).getTime()).toBe(sunset.getTime());
    expect(sunsetHeader).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(Number(res.headers.get("deprecation")!.slice(1)) * 1000).toBeLessThanOrEqual(sunset.getTime());
    expect(res.headers.get("link")).toBe('</v1/health>; rel="successor-version"');
  });

  it("answers 410 after the sunset", async () => {
    clock = new Date("2027-03-01T00:00:01Z");
    const res = await fetch(`${t.url}/v1/legacy-health`, { headers: bearer(seeded.key) });
    expect(res.status).toBe(410);
    expect(((await res.json()) as { type: string }).type).toMatch(/\/errors\/gone$/);
    expect(res.headers.get("sunset")).not.toBeNull();
  });

  it("is marked deprecated in the OpenAPI document", () => {
    const doc = buildOpenApi([legacy], "http://localhost:8080");
    const op = doc.paths?.["/v1/legacy-health"]?.get;
    expect(op?.deprecated).toBe(true);
    expect(op?.responses?.["410"]).toBeDefined();
    expect(op?.responses?.["200"]?.headers?.Sunset).toBeDefined();
  });
});

describe("key bookkeeping", () => {
  it("records last use at most once a minute per key", async () => {
    const ws = await seedWorkspace(t);
    const read = async () => (await t.app.deps.db.prisma.apiKey.findUnique({ where: { id: ws.keyId } }))!.lastUsedAt;
    const settle = () => new Promise((r) => setTimeout(r, 150)); // the write is fire-and-forget
    clock = new Date("2027-02-01T10:00:00Z");
    await fetch(`${t.url}/v1/health`, { headers: bearer(ws.key) });
    await settle();
    expect(await read()).toEqual(clock);
    const first = clock;
    clock = new Date("2027-02-01T10:00:30Z");
    await fetch(`${t.url}/v1/health`, { headers: bearer(ws.key) });
    await settle();
    expect(await read()).toEqual(first);
    clock = new Date("2027-02-01T10:01:05Z");
    await fetch(`${t.url}/v1/health`, { headers: bearer(ws.key) });
    await settle();
    expect(await read()).toEqual(clock);
  });
});

describe("GraphQL obeys the same permissions as REST", () => {
  const gql = async (query: string, headers: Record<string, string>) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
  };

  it("refuses API keys on dashboard operations and lets an admin through, auditing both", async () => {
    const ws = await seedWorkspace(t);
    const admin = await seedUser(t, ws.workspace.id, "ADMIN");
    const asKey = await gql(`mutation { createApiKey(workspace: "${ws.workspace.slug}", label: "x") { secret } }`, bearer(ws.key));
    expect(asKey.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const audit = await gql(`{ auditLog(workspace: "${ws.workspace.slug}") { items { action } } }`, bearer(ws.key));
    expect(audit.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");

    const created = await gql(
      `mutation { createApiKey(workspace: "${ws.workspace.slug}", label: "from graphql") { secret apiKey { id prefix } } }`,
      userAuth(admin),
    );
    const secret = (created.data!.createApiKey as { secret: string }).secret;
    expect(secret).toMatch(/^vs_/);
    expect((await fetch(`${t.url}/v1/health`, { headers: bearer(secret) })).status).toBe(200);

    await t.app.deps.audit.flush();
    const entries = await t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { id: "asc" } });
    expect(entries.map((e) => [e.action, e.httpStatus])).toEqual([
      [operations.createApiKey.action, 403],
      [operations.auditLog.action, 403],
      [operations.createApiKey.action, 200],
      [operations.health.action, 200],
    ]);
  });
});

// Last in this file: it blocks the loopback address for keys that are not yet verified.
describe("failed attempts", () => {
  it("limits failed attempts per client address before any hashing", async () => {
    const wrong = `${seeded.key.split(".")[0]}.${"w".repeat(32)}`;
    let refusedAt = -1;
    for (let i = 0; i < 40 && refusedAt < 0; i++) {
      const res = await fetch(`${t.url}/v1/health`, { headers: bearer(wrong) });
      if (res.status === 429) refusedAt = i;
      else expect(res.status).toBe(401);
    }
    expect(refusedAt).toBe(30);
    const before = argonCalls().total;
    const res = await fetch(`${t.url}/v1/health`, { headers: bearer(wrong) });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(argonCalls().total).toBe(before);
  });

  it("does not lock out a key already verified from the same address", async () => {
    expect((await fetch(`${t.url}/v1/health`, { headers: bearer(seeded.key) })).status).toBe(200);
  });
});
