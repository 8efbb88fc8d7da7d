import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { HealthDocument, type HealthQuery } from "../../src/generated/gql/graphql.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

let t: TestApp;
let seeded: Seeded;
beforeAll(async () => {
  t = await startTestApp();
  seeded = await seedWorkspace(t);
});
afterAll(async () => t?.stop());

async function gql(query: string, init: RequestInit = {}) {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...bearer(seeded.key) },
    body: JSON.stringify({ query }),
    ...init,
  });
  return { res, body: (await res.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
}

describe("GraphQL over HTTP", () => {
  it("answers the health query with the same facts as REST", async () => {
    const { res, body } = await gql(HealthDocument.toString());
    expect(res.status).toBe(200);
    const health = (body.data as HealthQuery).health;
    const rest = (await (await fetch(`${t.url}/v1/health`, { headers: bearer(seeded.key) })).json()) as {
      version: string;
      status: string;
      database: { kind: string };
      regions: string[];
      browser_pool: { state: string; capacity: number };
    };
    expect(health.version).toBe(rest.version);
    expect(health.database.kind).toBe("PGLITE");
    expect(health.database.status).toBe("OK");
    expect(health.regions).toEqual(rest.regions);
    expect(health.browserPool.state).toBe(rest.browser_pool.state.toUpperCase());
    expect(health.browserPool.capacity).toBe(rest.browser_pool.capacity);
    expect(health.status).toBe(rest.status.toUpperCase());
  });

  it("refuses anonymous calls to operations that need a principal, with a stable code", async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ health { version } }" }),
    });
    const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    expect(body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("refuses a bad key with the same code", async () => {
    const { body } = await gql("{ health { version } }", {
      headers: { "content-type": "application/json", authorization: "Bearer vs_01ARZ3NDEKTSV4RRFFQ69G5FAV.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
    });
    expect(body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("reports invalid queries without leaking internals", async () => {
    const { res, body } = await gql("{ health { nope } }");
    expect(res.status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/Cannot query field "nope"/);
  });

  it("refuses batched requests", async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ query: "{ health { version } }" }, { query: "{ health { version } }" }]),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
  });
});

describe("GraphQL over WebSocket (graphql-ws)", () => {
  it("executes operations through the upgrade dispatcher", async () => {
    // The credential travels in connection_init (browsers cannot set headers on a WebSocket).
    const client = createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: bearer(seeded.key),
    });
    try {
      const result = await new Promise<{ data?: HealthQuery | null }>((resolve, reject) => {
        let value: { data?: HealthQuery | null } = {};
        client.subscribe<HealthQuery>(
          { query: HealthDocument.toString() },
          {
            next: (v) => (value = v as typeof value),
            error: reject,
            complete: () => resolve(value),
          },
        );
      });
      expect(result.data?.health.database.kind).toBe("PGLITE");
    } finally {
      await client.dispose();
    }
  });

  it("closes upgrades to unknown paths with 404", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${t.url.replace("http", "ws")}/no-such-socket`);
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => reject(new Error("should not open")));
      ws.on("error", () => {});
    });
    expect(status).toBe(404);
  });
});
