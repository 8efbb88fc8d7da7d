import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { sessionRow } from "../support/session-row.ts";

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema };
type Operation = { summary?: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/**
 * Issue 45, point 13: every list route answers the one envelope `{items, next_cursor, has_more}`.
 * The walk takes the server's own OpenAPI document, finds every GET whose answer holds `items` or
 * whose summary says it lists, checks the envelope in the document, then calls each one on the
 * running server (with real ids for its path) and checks the answer.
 */
describe("list routes", () => {
  let t: TestApp;
  let ws: Seeded;
  let owner: string;
  let doc: Doc;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    // A key that may read every list, credentials included (their scopes are their own, issue 46).
    ws = await seedWorkspace(t, { scopes: ["credentials:use", "credentials:manage"] });
    owner = await seedUser(t, ws.workspace.id, "OWNER");
    const session = sessionRow(ws.workspace.id, { status: "RELEASED", endedAt: new Date() });
    await t.app.deps.db.prisma.session.create({ data: session as never });
    ids.session = session.id;
    const hook = await fetch(`${t.url}/v1/webhooks`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ url: "https://93.184.215.14/hook", events: ["session.released"] }),
    });
    expect(hook.status).toBe(201);
    ids.webhook = ((await hook.json()) as { id: string }).id;
    doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Doc;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? doc.components.schemas[s.$ref.split("/").pop()!] : s);
  const answerOf = (op: Operation) => resolve(op.responses["200"]?.content?.["application/json"]?.schema);
  const listRoutes = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) => {
      const op = ops.get;
      if (!op) return [];
      const answer = answerOf(op);
      return answer?.properties?.items || /^(List|Read) /.test(op.summary ?? "") ? [{ path, op, answer }] : [];
    });

  /** The path with real ids: the session, the webhook, the workspace's slug. */
  const concrete = (path: string) =>
    path
      .replace(/^\/v1\/sessions\/\{id\}/, `/v1/sessions/${ids.session}`)
      .replace(/^\/v1\/webhooks\/\{id\}/, `/v1/webhooks/${ids.webhook}`)
      .replace("{slug}", ws.workspace.slug);

  it("finds the list routes, each documented with the envelope", () => {
    const found = listRoutes();
    expect(found.map((r) => r.path)).toEqual(
      expect.arrayContaining(["/v1/sessions", "/v1/sessions/{id}/files", "/v1/sessions/{id}/downloads", "/v1/extensions", "/v1/webhooks"]),
    );
    for (const { path, answer } of found) {
      expect(answer?.required, path).toEqual(expect.arrayContaining(["items", "next_cursor", "has_more"]));
      expect(answer?.properties?.items?.type, path).toBe("array");
      expect([answer?.properties?.next_cursor?.type].flat(), path).toEqual(expect.arrayContaining(["string", "null"]));
      expect(answer?.properties?.has_more?.type, path).toBe("boolean");
    }
  });

  it("answers each of them with the envelope", async () => {
    const checked: string[] = [];
    for (const { path } of listRoutes()) {
      const url = concrete(path);
      expect(url, `${path}: a path parameter the walk cannot fill`).not.toMatch(/\{/);
      const auth = path.startsWith("/v1/dashboard/") ? userAuth(owner) : bearer(ws.key);
      const res = await fetch(`${t.url}${url}`, { headers: auth });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Array.isArray(body.items), path).toBe(true);
      expect(typeof body.has_more, path).toBe("boolean");
      expect(body.next_cursor === null || typeof body.next_cursor === "string", path).toBe(true);
      checked.push(path);
    }
    expect(checked.length).toBeGreaterThanOrEqual(10);
  });
});
