import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded, type TestApp, startTestApp } from "../support/app.ts";
import { startCluster, type TestCluster } from "../support/cluster.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { eventually } from "../support/sessions.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";

/**
 * The per-workspace cap on live sessions (issue 18; security.md J60): over it a create is 429
 * `workspace-session-limit` with Retry-After, never a wait; replays are never refused; a refused
 * key starts its session once a slot frees; the cap holds across nodes, also under parallel creates.
 */

const hasChromium = chromiumPath() !== undefined;
const shared = { postgres: await postgresReachable(), redis: await redisReachable() };
if (servicesRequired && (!hasChromium || !shared.postgres || !shared.redis))
  throw new Error("Chromium, PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");

type Created = { res: Response; body: { id: string; type?: string; status?: number } };
async function create(base: string, key: string, idem = randomUUID()): Promise<Created> {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": idem },
    body: JSON.stringify({ region: "us-east1" }),
  });
  return { res, body: (await res.json()) as Created["body"] };
}
const release = (base: string, key: string, id: string) =>
  fetch(`${base}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ status: "REQUEST_RELEASE" }),
  });

function expectWorkspaceFull(c: Created, cap: number): void {
  expect(c.res.status).toBe(429);
  expect(c.res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(c.body.type).toMatch(/\/errors\/workspace-session-limit$/);
  expect(Number(c.res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(c.body).toMatchObject({ status: 429, limit: cap });
}

describe.skipIf(!hasChromium)("the workspace session cap on one node (embedded database)", () => {
  let t: TestApp;
  beforeAll(async () => {
    // A warm spare, so the usual one-statement create is what meets the cap first.
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "5", VESSEL_WORKSPACE_MAX_SESSIONS: "2" } });
  });
  afterAll(async () => t?.stop());
  afterEach(async () => {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });
  const live = (workspaceId: string) => t.app.deps.db.prisma.session.count({ where: { workspaceId, status: "RUNNING" } });

  it("J60: at the cap a create is 429 with Retry-After, a replay is not refused, and once a slot frees the same key makes exactly one session", async () => {
    const ws = await seedWorkspace(t);
    const first = randomUUID();
    const made = [await create(t.url, ws.key, first), await create(t.url, ws.key)];
    for (const m of made) expect(m.res.status).toBe(201);

    const third = randomUUID();
    const refused = await create(t.url, ws.key, third);
    expectWorkspaceFull(refused, 2);
    expect(await live(ws.workspace.id)).toBe(2);
    // Nothing was stored for the refused key, and no browser is held for it.
    expect(await t.app.deps.db.prisma.idempotencyRecord.count({ where: { workspaceId: ws.workspace.id, key: third } })).toBe(0);
    expect(t.app.deps.browsers.report().inUse).toBe(2);

    // A replay at the cap is answered from its record.
    const replay = await create(t.url, ws.key, first);
    expect(replay.res.status).toBe(200);
    expect(replay.res.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(made[0]!.body.id);

    // Another workspace has a cap of its own.
    const other = await seedWorkspace(t);
    expect((await create(t.url, other.key)).res.status).toBe(201);

    expect((await release(t.url, ws.key, made[0]!.body.id)).status).toBe(204);
    const retried = await create(t.url, ws.key, third);
    expect(retried.res.status).toBe(201);
    const again = await create(t.url, ws.key, third);
    expect(again.res.status).toBe(200);
    expect(again.body.id).toBe(retried.body.id);
    expect(await t.app.deps.db.prisma.idempotencyRecord.count({ where: { workspaceId: ws.workspace.id, key: third } })).toBe(1);
    expect(await live(ws.workspace.id)).toBe(2);
  });

  it("a workspace's own max_sessions overrides the deployment's", async () => {
    const ws = await seedWorkspace(t);
    // Set before the key is first used: the key's record (and so the override) is cached for a minute.
    await t.app.deps.db.prisma.workspace.update({ where: { id: ws.workspace.id }, data: { maxSessions: 1 } });
    expect((await create(t.url, ws.key)).res.status).toBe(201);
    expectWorkspaceFull(await create(t.url, ws.key), 1);
    const roomy = await seedWorkspace(t);
    await t.app.deps.db.prisma.workspace.update({ where: { id: roomy.workspace.id }, data: { maxSessions: 3 } });
    for (let i = 0; i < 3; i++) expect((await create(t.url, roomy.key)).res.status).toBe(201);
    expectWorkspaceFull(await create(t.url, roomy.key), 3);
  });

  it("15 aliased GraphQL createSession in one request: each is one call of the budget and one create under the cap", async () => {
    const ws = await seedWorkspace(t, { rateLimitPerMinute: 100 });
    const fields = Array.from({ length: 15 }, (_, i) => `s${i}: createSession(idempotencyKey: "${randomUUID()}", input: { region: "us-east1" }) { id }`);
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { ${fields.join(" ")} }` }),
    });
    const body = (await res.json()) as { data: null; errors: Array<{ path: string[]; extensions: { code: string } }> };
    // Mutations run in order: two fit the cap, the third is refused, and (its field being non-null)
    // the operation stops there.
    expect(body.errors.map((e) => [e.path, e.extensions.code])).toEqual([[["s2"], "WORKSPACE_SESSION_LIMIT"]]);
    expect(await live(ws.workspace.id)).toBe(2);
    // Still, 15 calls were spent by the request, before any ran; the 16th is this one.
    const after = await fetch(`${t.url}/v1/health`, { headers: bearer(ws.key) });
    expect(after.headers.get("ratelimit")).toMatch(/^"default";r=84;t=\d+$/);
  });
});

describe.skipIf(!hasChromium || !shared.postgres || !shared.redis)("the workspace session cap across two nodes (PostgreSQL + Redis)", () => {
  let tdb: TestDatabase;
  let cluster: TestCluster;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    cluster = await startCluster(2, {
      db: tdb.db,
      redisUrl: testRedisUrl,
      env: { VESSEL_BROWSER_CAPACITY: "4", VESSEL_BROWSER_WARM: "1", VESSEL_WORKSPACE_MAX_SESSIONS: "2" },
    });
    [a, b] = cluster.nodes as [TestApp, TestApp];
  });
  afterAll(async () => {
    await cluster?.stop();
    await tdb?.dispose();
  });
  const live = (ws: Seeded) => tdb.db.prisma.session.count({ where: { workspaceId: ws.workspace.id, status: "RUNNING" } });
  async function releaseAll(ws: Seeded) {
    for (const s of await tdb.db.prisma.session.findMany({ where: { workspaceId: ws.workspace.id, status: "RUNNING" } })) await release(a.url, ws.key, s.id);
    // Until both nodes have their slots back: a release is answered before the session's teardown
    // gives its browser's slot back, and the next round's creates would find a node full (503).
    await eventually(
      async () => a.app.deps.browsers.report().inUse + b.app.deps.browsers.report().inUse,
      (n) => n === 0,
    );
  }

  it("cap 2: one session on each node, then the 3rd create is 429 on either node", async () => {
    const ws = await seedWorkspace(a);
    const onA = await create(a.url, ws.key);
    const onB = await create(b.url, ws.key);
    expect([onA.res.status, onB.res.status]).toEqual([201, 201]);
    const nodes = await tdb.db.prisma.session.findMany({ where: { workspaceId: ws.workspace.id }, select: { nodeId: true } });
    expect(new Set(nodes.map((n) => n.nodeId))).toEqual(new Set([a.app.deps.nodeId, b.app.deps.nodeId]));
    expectWorkspaceFull(await create(a.url, ws.key), 2);
    expectWorkspaceFull(await create(b.url, ws.key), 2);
    expect(await live(ws)).toBe(2);
    await releaseAll(ws);
  });

  it("parallel creates on both nodes never exceed the cap", async () => {
    const ws = await seedWorkspace(a);
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 === 0 ? a.url : b.url, ws.key)));
      const statuses = results.map((r) => r.res.status).sort();
      expect(statuses).toEqual([201, 201, 429, 429, 429, 429, 429, 429]);
      for (const r of results.filter((r) => r.res.status === 429)) expectWorkspaceFull(r, 2);
      expect(await live(ws)).toBe(2);
      await releaseAll(ws);
    }
  });
});
