// The admission queue (src/services/sessions/queue, docs/decisions/0300): how soon a freed browser starts
// the next queued session, and how many starts a second the queue sustains at saturation against the
// browsers it has. Loopback only, bounded; never part of the tests.
//
//   npx tsx bench/queue.ts                 one node, embedded database (PGlite)
//   BENCH_CLUSTER=1 npx tsx bench/queue.ts   also two nodes on PostgreSQL + Redis (VESSEL_TEST_DATABASE_URL, REDIS_URL as the tests use)
//   BENCH_ROUNDS=20 BENCH_CAPACITY=2 BENCH_SATURATION=30
//
// 1. Release → next start: `BENCH_CAPACITY` sessions run, `BENCH_ROUNDS` wait; each round releases one
//    running session (the clock starts as its PATCH is sent) and stops when the next queued session's
//    `session.started` event is written (the server's own event stream, no polling). Across two nodes
//    the release goes through node A to a session on node B, whose freed browser starts the next.
// 2. Saturation: `BENCH_SATURATION` sessions queued behind a full node; every session that starts is
//    released at once; starts per second over the run, against the node's capacity.
import { randomUUID } from "node:crypto";
import type { SessionEventView } from "../src/services/session-events/session-events.ts";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import { f, median, num, pct } from "./support.ts";

const rounds = num("BENCH_ROUNDS", 20);
const capacity = num("BENCH_CAPACITY", 2);
const saturation = num("BENCH_SATURATION", 30);

async function create(base: string, key: string, queued: boolean): Promise<{ id: string; status: string }> {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({ region: "us-east1", idle_timeout_seconds: 1800, ...(queued ? { queue_timeout_seconds: 3600 } : {}) }),
  });
  if (res.status !== 201 && res.status !== 202) throw new Error(`create: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; status: string };
}
const release = (base: string, key: string, id: string) =>
  fetch(`${base}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: '{"status":"REQUEST_RELEASE"}',
  });

/** Resolves with the next `session.started` written on any of these nodes. */
function nextStarted(apps: TestApp[]): Promise<string> {
  return new Promise((resolve) => {
    const stops = apps.map((a) =>
      a.app.deps.events.subscribe((events: SessionEventView[]) => {
        const started = events.find((e) => e.type === "session.started");
        if (!started) return;
        for (const stop of stops) stop();
        resolve(started.sessionId);
      }),
    );
  });
}

async function releaseToStart(label: string, apps: TestApp[], releaseVia: TestApp, runsOn: TestApp): Promise<void> {
  const ws = await seedWorkspace(apps[0]!);
  const prisma = apps[0]!.app.deps.db.prisma;
  for (let i = 0; i < capacity * apps.length; i++) await create(apps[i % apps.length]!.url, ws.key, false);
  for (let i = 0; i < rounds; i++) await create(releaseVia.url, ws.key, true);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const victim = await prisma.session.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, status: "RUNNING", nodeId: runsOn.app.deps.nodeId } });
    const started = nextStarted(apps);
    const t0 = performance.now();
    await release(releaseVia.url, ws.key, victim.id);
    await started;
    times.push(performance.now() - t0);
  }
  // The floor without a queue: release one, then a plain create at once (it waits for the freed slot, then launches, as the queue's start does).
  const floor: number[] = [];
  for (let i = 0; i < Math.min(rounds, 10); i++) {
    const victim = await prisma.session.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, status: "RUNNING", nodeId: runsOn.app.deps.nodeId } });
    const t0 = performance.now();
    await release(runsOn.url, ws.key, victim.id);
    await create(runsOn.url, ws.key, false);
    floor.push(performance.now() - t0);
  }
  console.log(
    `${label}: release → next queued start, ${rounds} rounds: p50 ${f(median(times), 0)} ms, p99 ${f(pct(times, 99), 0)} ms, max ${f(Math.max(...times), 0)} ms; ` +
      `without a queue (release, then a create on that node at once; it waits for the slot and launches too): p50 ${f(median(floor), 0)} ms ` +
      `(the queue's own share: ${f(median(times) - median(floor), 0)} ms, ${f(median(times) / median(floor), 2)}×)`,
  );
  for (const s of await prisma.session.findMany({ where: { workspaceId: ws.workspace.id, status: { in: ["RUNNING", "QUEUED"] } } }))
    await release(apps[0]!.url, ws.key, s.id);
}

async function saturate(label: string, t: TestApp): Promise<void> {
  const ws = await seedWorkspace(t);
  const prisma = t.app.deps.db.prisma;
  for (let i = 0; i < capacity; i++) await create(t.url, ws.key, false);
  for (let i = 0; i < saturation; i++) await create(t.url, ws.key, true);
  let starts = 0;
  const stop = t.app.deps.events.subscribe((events) => {
    for (const e of events) {
      if (e.type !== "session.started") continue;
      starts++;
      void release(t.url, ws.key, e.sessionId);
    }
  });
  const t0 = performance.now();
  for (const s of await prisma.session.findMany({ where: { workspaceId: ws.workspace.id, status: "RUNNING" } })) void release(t.url, ws.key, s.id);
  while (starts < saturation) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - t0) / 1000;
  stop();
  console.log(
    `${label}: saturation, ${saturation} queued behind ${capacity} browsers, each released as it starts: ${f(starts / seconds, 2)} starts/s ` +
      `(${f(starts / seconds / capacity, 2)} per browser per second; ${f(seconds, 1)} s)`,
  );
}

const one = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: String(capacity), VESSEL_BROWSER_WARM: "1" } });
try {
  await releaseToStart("one node (embedded)", [one], one, one);
  await saturate("one node (embedded)", one);
} finally {
  await one.stop();
}

if (process.env.BENCH_CLUSTER === "1") {
  const { startCluster } = await import("../test/support/cluster.ts");
  const { createTestDatabase } = await import("../test/support/db.ts");
  const { testRedisUrl } = await import("../test/support/services.ts");
  const tdb = await createTestDatabase("postgres");
  const cluster = await startCluster(2, { db: tdb.db, redisUrl: testRedisUrl, env: { VESSEL_BROWSER_CAPACITY: String(capacity), VESSEL_BROWSER_WARM: "1" } });
  try {
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    await releaseToStart("two nodes (PostgreSQL + Redis), queued and released through A, freed on B", [a, b], a, b);
  } finally {
    await cluster.stop();
    await tdb.dispose();
  }
}
