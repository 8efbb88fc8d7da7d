import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAppError } from "../../src/kernel/problems.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

// Issue 41, "text is total": a NUL or a lone surrogate in any field that can reach storage is a 400
// naming the field, on every transport; an id named twice in a list is a 400; and a data exception
// the database raises on a value that slipped past the edge is a 400 too, never a 500. The first four
// cases were 500s (session metadata, a webhook's description, a profile's label, an extension id twice).

let t: TestApp;
let ws: Seeded;

beforeAll(async () => {
  t = await startTestApp();
  ws = await seedWorkspace(t, { rateLimitPerMinute: 1_000_000 });
});
afterAll(async () => t?.stop());

type Problem = { status: number; type: string; detail: string; errors?: Array<{ field: string; message: string }> };

/** `body` is sent as written: JSON text, so `\\u0000` and `\\ud800` escapes arrive as NUL and lone surrogates. */
async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; problem: Problem }> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...bearer(ws.key), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body,
  });
  return { status: res.status, problem: (await res.json().catch(() => ({}))) as Problem };
}

const fieldsOf = (p: Problem) => (p.errors ?? []).map((e) => e.field);

describe("REST refuses text that cannot be stored, naming the field", () => {
  it("a NUL in session metadata (was a 500)", async () => {
    const r = await call("POST", "/v1/sessions", '{"region":"us-east1","metadata":{"team":"a\\u0000b"}}', { "idempotency-key": randomUUID() });
    expect(r.status).toBe(400);
    expect(r.problem.type).toMatch(/\/errors\/validation-failed$/);
    expect(fieldsOf(r.problem)).toEqual(["body.metadata.team"]);
    expect(r.problem.errors![0]!.message).toMatch(/NUL/);
  });

  it("a NUL in a webhook's description (was a 500)", async () => {
    const r = await call("POST", "/v1/webhooks", '{"url":"https://example.com/hook","events":["session.running"],"description":"x\\u0000"}');
    expect(r.status).toBe(400);
    expect(fieldsOf(r.problem)).toEqual(["body.description"]);
  });

  it("a NUL in a profile's label (was a 500), and a lone surrogate", async () => {
    const nul = await call("POST", "/v1/profiles", '{"label":"shop\\u0000","storage_state":{"cookies":[],"origins":[]}}');
    expect(nul.status).toBe(400);
    expect(fieldsOf(nul.problem)).toEqual(["body.label"]);
    const surrogate = await call("PATCH", "/v1/profiles/prf_01JZZZZZZZZZZZZZZZZZZZZZZZ", '{"label":"a\\ud800b"}');
    expect(surrogate.status).toBe(400);
    expect(fieldsOf(surrogate.problem)).toEqual(["body.label"]);
    expect(surrogate.problem.errors![0]!.message).toMatch(/surrogate/);
  });

  it("the same extension id twice (was a 500)", async () => {
    const r = await call("POST", "/v1/sessions", '{"region":"us-east1","extension_ids":["ext_01JZZZZZZZZZZZZZZZZZZZZZZZ","ext_01JZZZZZZZZZZZZZZZZZZZZZZZ"]}', {
      "idempotency-key": randomUUID(),
    });
    expect(r.status).toBe(400);
    expect(fieldsOf(r.problem)).toEqual(["body.extension_ids.1"]);
  });

  it("a NUL in a path parameter and in a query value; a bad key is named escaped", async () => {
    const path = await call("GET", "/v1/sessions/x%00/logs");
    expect(path.status).toBe(400);
    expect(fieldsOf(path.problem)).toEqual(["params.id"]);
    const query = await call("GET", "/v1/sessions?metadata%5Bteam%5D=%00");
    expect(query.status).toBe(400);
    expect(fieldsOf(query.problem)).toEqual(["query.metadata.team"]);
    const key = await call("POST", "/v1/sessions", '{"region":"us-east1","metadata":{"te\\u0000am":"x"}}', { "idempotency-key": randomUUID() });
    expect(key.status).toBe(400);
    expect(fieldsOf(key.problem)).toEqual(["body.metadata.te\\u0000am"]);
  });

  it("other control characters are text like any other (each field's schema decides)", async () => {
    const r = await call("POST", "/v1/webhooks", '{"url":"https://example.com/hook","events":["session.running"],"description":"tab\\there\\u0001"}');
    expect(r.status).toBe(201);
  });
});

describe("GraphQL and MCP apply the same rule", () => {
  async function graphql(query: string, variables: Record<string, unknown>) {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as { errors?: Array<{ extensions?: { code?: string; errors?: Array<{ field: string }> } }> } };
  }

  it("a NUL in a variable or a repeated extension id is VALIDATION_FAILED naming the argument", async () => {
    const hook = await graphql(
      'mutation($d: String) { createWebhook(url: "https://example.com/h", events: ["session.running"], description: $d) { secret } }',
      { d: "x\u0000" },
    );
    expect(hook.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_FAILED");
    expect(hook.body.errors?.[0]?.extensions?.errors?.map((e) => e.field)).toEqual(["description"]);
    const session = await graphql(
      'mutation($i: CreateSessionInput!) { createSession(input: $i, idempotencyKey: "3f6a2c1e-8b1d-4c7a-9e2f-1a2b3c4d5e6f") { id } }',
      {
        i: { region: "us-east1", metadata: [{ key: "team", value: "\ud800" }] },
      },
    );
    expect(session.body.errors?.[0]?.extensions?.errors?.map((e) => e.field)).toEqual(["input.metadata.0.value"]);
    const twice = await graphql(
      'mutation($i: CreateSessionInput!) { createSession(input: $i, idempotencyKey: "3f6a2c1e-8b1d-4c7a-9e2f-1a2b3c4d5e6e") { id } }',
      {
        i: { region: "us-east1", extensionIds: ["ext_a", "ext_a"] },
      },
    );
    expect(twice.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_FAILED");
    expect(twice.body.errors?.[0]?.extensions?.errors?.map((e) => e.field)).toEqual(["extension_ids.1"]);
  });

  it("an MCP tool's arguments: the call is refused (and audited) before its work", async () => {
    const client = new Client({ name: "text-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(ws.key) } }));
    try {
      const r = (await client.callTool({ name: "create_session", arguments: { metadata: { team: "a\u0000" } } })) as {
        isError?: boolean;
        content: Array<{ text?: string }>;
      };
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(/Validation failed: metadata\.team: contains a NUL/);
    } finally {
      await client.close();
    }
    const sessions = await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } });
    expect(sessions).toBe(0);
  });
});

describe("a data exception of the database is the request's fault", () => {
  it("maps SQLSTATE class 22 (here 22021 and 22P05) to a 400, not a 500", async () => {
    const { prisma } = t.app.deps.db;
    const nulText = await prisma.$queryRaw`SELECT ${"a\u0000"}::text AS v`.catch((err: unknown) => err);
    expect(toAppError(nulText).error.status).toBe(400);
    expect(toAppError(nulText).unexpected).toBe(false);
    const nulJson = await prisma.$queryRaw`SELECT ${'{"a":"\\u0000"}'}::jsonb AS v`.catch((err: unknown) => err);
    expect(toAppError(nulJson).error.status).toBe(400);
    // Not every database error is the client's: a unique violation with no service mapping stays a 500.
    expect(toAppError(new Error("boom")).error.status).toBe(500);
  });
});
