import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type TestApp } from "../support/app.ts";

/**
 * Dashboard and GraphQL calls spend the same request budgets as REST (issue 18): a dashboard user has
 * a budget of their own, and each root field of a GraphQL operation is one call, over HTTP and
 * over WebSocket, so aliases buy nothing. Read back from the `RateLimit` header of a REST call.
 */

describe("one request budget for REST, GraphQL and the dashboard", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.stop());

  /** What is left of the caller's budget after one more REST call (which spends one itself). */
  const remainingAfterRest = async (headers: Record<string, string>, path: string) => {
    const res = await fetch(`${t.url}${path}`, { headers });
    expect(res.status).toBe(200);
    return Number(/;r=(\d+);/.exec(res.headers.get("ratelimit") ?? "")?.[1]);
  };
  const graphql = (headers: Record<string, string>, query: string) =>
    fetch(`${t.url}/graphql`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ query }) });
  const aliased = (n: number, field: string) => `{ ${Array.from({ length: n }, (_, i) => `f${i}: ${field}`).join(" ")} }`;

  it("15 aliased root fields in one GraphQL request spend 15 calls", async () => {
    const ws = await seedWorkspace(t, { rateLimitPerMinute: 100 });
    const res = await graphql(bearer(ws.key), aliased(15, "health { status }"));
    expect(res.status).toBe(200);
    expect(Object.keys(((await res.json()) as { data: object }).data)).toHaveLength(15);
    expect(await remainingAfterRest(bearer(ws.key), "/v1/health")).toBe(100 - 16);
    // Fields brought in by fragments count the same.
    await graphql(bearer(ws.key), "query { ...H ... on Query { b: health { status } } } fragment H on Query { a: health { status } c: health { status } }");
    expect(await remainingAfterRest(bearer(ws.key), "/v1/health")).toBe(100 - 16 - 3 - 1);
  });

  it("an operation the budget cannot cover runs none of its fields", async () => {
    const ws = await seedWorkspace(t, { rateLimitPerMinute: 10 });
    const res = await graphql(bearer(ws.key), aliased(15, "health { status }"));
    const body = (await res.json()) as { data?: unknown; errors: Array<{ extensions: { code: string } }> };
    expect(body.errors.map((e) => e.extensions.code)).toEqual(["RATE_LIMITED"]);
    expect(body.data ?? null).toBeNull();
    await t.app.deps.audit.flush();
    expect(await t.app.deps.db.prisma.auditEntry.count({ where: { workspaceId: ws.workspace.id, action: "health.get" } })).toBe(0);
  });

  it("a dashboard user spends a budget of their own, over REST and GraphQL alike", async () => {
    const ws = await seedWorkspace(t);
    const user = await seedUser(t, ws.workspace.id, "OWNER");
    const path = `/v1/dashboard/ws/${ws.workspace.slug}/api-keys`;
    expect(await remainingAfterRest(userAuth(user), path)).toBe(599);
    const res = await graphql(userAuth(user), "{ a: workspaces { id } b: workspaces { id } }");
    expect(res.status).toBe(200);
    expect(await remainingAfterRest(userAuth(user), path)).toBe(596);
    // The key of the same workspace has its own budget, untouched.
    expect(await remainingAfterRest(bearer(ws.key), "/v1/health")).toBe(599);
  });

  it("over graphql-ws the socket costs one call and each operation one per root field", async () => {
    const ws = await seedWorkspace(t);
    const client = createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${ws.key}` },
      retryAttempts: 0,
    });
    try {
      const result = await new Promise<unknown>((resolve, reject) => {
        let value: unknown;
        client.subscribe({ query: aliased(3, "health { status }") }, { next: (v) => (value = v), error: reject, complete: () => resolve(value) });
      });
      expect(Object.keys((result as { data: object }).data)).toHaveLength(3);
    } finally {
      await client.dispose();
    }
    expect(await remainingAfterRest(bearer(ws.key), "/v1/health")).toBe(600 - 1 - 3 - 1);
  });
});
