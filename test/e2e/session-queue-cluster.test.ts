import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded, type TestApp } from "../support/app.ts";
import { startCluster, type TestCluster } from "../support/cluster.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { eventually } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";

/**
 * The admission queue across nodes (issue 43), on PostgreSQL + Redis: a session queued through node A
 * starts on node B when B frees a browser; 50 concurrent queued creates over 4 browsers each start
 * exactly once.
 */

const hasChromium = chromiumPath() !== undefined;
const shared = { postgres: await postgresReachable(), redis: await redisReachable() };
if (servicesRequired && (!hasChromium || !shared.postgres || !shared.redis))
  throw new Error("Chromium, PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");

type Body = { id: string; status: string; queue_position: number | null };
/**
 * A create as the clients make it: a 503 service-unavailable (the node's database budget ran out under
 * the burst, as it does without the queue too) or a 409 (that first attempt still in flight) is retried
 * with the same key.
 */
async function create(base: string, key: string, extra: Record<string, unknown> = {}) {
  const idem = randomUUID();
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": idem },
      body: JSON.stringify({ region: "us-east1", ...extra }),
    });
    const body = (await res.json()) as Body & { type?: string };
    const retry = ((res.status === 503 && body.type?.endsWith("/service-unavailable")) || res.status === 409) && attempt < 60;
    if (!retry) return { res, body };
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
  }
}
const release = (base: string, key: string, id: string) =>
  fetch(`${base}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ status: "REQUEST_RELEASE" }),
  });

describe.skipIf(!hasChromium || !shared.postgres || !shared.redis)("the admission queue across two nodes", () => {
  let tdb: TestDatabase;
  let cluster: TestCluster;
  let a: TestApp;
  let b: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    cluster = await startCluster(2, { db: tdb.db, redisUrl: testRedisUrl, env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_PLACEMENT_TIMEOUT_MS: "10000" } });
    [a, b] = cluster.nodes as [TestApp, TestApp];
    ws = await seedWorkspace(a);
  });
  afterAll(async () => {
    await cluster?.stop();
    await tdb?.dispose();
  });
  const prisma = () => a.app.deps.db.prisma;

  it("a session queued through node A starts on node B when B frees a browser", async () => {
    // Fill both nodes (each create goes to the node asked; placement moves it when that one is full).
    const running: Body[] = [];
    for (let i = 0; i < 4; i++) running.push((await create(i < 2 ? a.url : b.url, ws.key)).body);
    const nodes = await prisma().session.findMany({ where: { id: { in: running.map((r) => r.id) } }, select: { id: true, nodeId: true } });
    expect(new Set(nodes.map((n) => n.nodeId)).size).toBe(2);

    const queued = await create(a.url, ws.key, { queue_timeout_seconds: 60 });
    expect(queued.res.status).toBe(202);
    expect(queued.body).toMatchObject({ status: "QUEUED", queue_position: 1 });

    const onB = nodes.find((n) => n.nodeId === b.app.deps.nodeId)!;
    expect((await release(a.url, ws.key, onB.id)).status).toBe(204);
    const started = await eventually(
      () => prisma().session.findUniqueOrThrow({ where: { id: queued.body.id } }),
      (s) => s.status === "RUNNING",
    );
    expect(started.nodeId).toBe(b.app.deps.nodeId);
    for (const s of await prisma().session.findMany({ where: { workspaceId: ws.workspace.id, status: "RUNNING" } })) await release(a.url, ws.key, s.id);
    await eventually(
      () => Promise.resolve(a.app.deps.browsers.report().inUse + b.app.deps.browsers.report().inUse),
      (n) => n === 0,
    );
  });

  it("50 concurrent queued creates over 4 browsers: every session starts exactly once", async () => {
    const other = await seedWorkspace(a);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => create(i % 2 === 0 ? a.url : b.url, other.key, { queue_timeout_seconds: 600, idle_timeout_seconds: 600 })),
    );
    for (const x of answers) expect([201, 202], JSON.stringify(x.body)).toContain(x.res.status);
    const ids = answers.map((x) => x.body.id);
    expect(new Set(ids).size).toBe(50);

    // Release whatever runs until all 50 have run; count each start.
    const started = new Map<string, number>();
    await eventually(
      async () => {
        const running = await prisma().session.findMany({ where: { workspaceId: other.workspace.id, status: "RUNNING" } });
        expect(running.length).toBeLessThanOrEqual(4);
        for (const s of running) {
          started.set(s.id, (started.get(s.id) ?? 0) + 1);
          await release(a.url, other.key, s.id);
        }
        return started.size;
      },
      (n) => n === 50,
      120_000,
    );
    // Exactly once: one session.started (or a direct create's session.running only) per session, and never two browsers.
    const events = await prisma().sessionEvent.groupBy({
      by: ["sessionId"],
      where: { sessionId: { in: ids }, type: "session.running" },
      _count: { _all: true },
    });
    expect(events).toHaveLength(50);
    for (const e of events) expect(e._count._all).toBe(1);
    expect(await prisma().session.count({ where: { id: { in: ids }, status: "RELEASED" } })).toBe(50);
  });
});
