// What the per-workspace session cap (src/services/session-cap.ts) costs a create, measured side by
// side against the same create without a cap, alternating so drift cancels. Loopback only, bounded.
//
//   npx tsx bench/session-cap.ts                      embedded (PGlite): the statement, then POST /v1/sessions
//   DATABASE_URL=postgresql://… npx tsx bench/session-cap.ts    the statement on PostgreSQL too (a scratch database; migrated here)
//
// 1. The recording statement alone (insertStartedSession), uncapped vs capped (the advisory lock
//    and the count of the workspace's live sessions), with `BENCH_LIVE` live sessions already there.
// 2. POST /v1/sessions end to end on the embedded database, a warm spare each time (the usual
//    one-statement path), in a workspace without and one with a cap.
import { ulid } from "ulid";
import { openDatabase, type Database } from "../src/db/client.ts";
import { Prisma, type Session } from "../src/generated/prisma/client.ts";
import { roomFor } from "../src/services/session-cap.ts";
import { newEvent } from "../src/services/session-events.ts";
import { insertStartedSession, roomHolds } from "../src/services/session-start.ts";
import { queryStatement } from "../src/services/support.ts";
import { bearer, seedWorkspace, startTestApp } from "../test/support/app.ts";
import { f, median, num, pct } from "./support.ts";

const statements = num("BENCH_STATEMENTS", 400);
const creates = num("BENCH_CREATES", 30);
const liveAlready = num("BENCH_LIVE", 5);
const cap = 100;

function session(workspaceId: string): Session {
  const now = new Date();
  return {
    id: `ses_${ulid()}`, workspaceId, status: "RUNNING", region: "us-east1", endReason: null, nodeId: null, apiKeyId: null,
    endedById: null, profileId: null, saveProfileOnRelease: false, timeoutSeconds: 1800, idleTimeoutSeconds: 300,
    liveViewInteractive: false, liveViewInstructions: null, liveViewGeneration: 0, createdAt: now, startedAt: now,
    expiresAt: new Date(now.getTime() + 1_800_000), lastActivityAt: null, endedAt: null,
  };
}

async function statementBench(name: string, db: Database): Promise<void> {
  const workspaces = { plain: `ws_${ulid()}`, capped: `ws_${ulid()}` };
  for (const id of Object.values(workspaces)) {
    await db.prisma.workspace.create({ data: { id, slug: `bench-${ulid().toLowerCase()}`, name: "bench" } });
    for (let i = 0; i < liveAlready; i++) await db.prisma.session.create({ data: session(id) });
  }
  const times = { plain: [] as number[], capped: [] as number[] };
  for (let i = 0; i < statements * 2; i++) {
    const which = i % 2 === 0 ? "plain" : "capped";
    const s = session(workspaces[which]);
    const event = newEvent(s.id, "session.running", {}, s.createdAt);
    // As the two-statement way runs it: the stored answer is the statement's last part (here a SELECT).
    const sql = which === "plain"
      ? insertStartedSession(s, event, { also: Prisma.sql`SELECT 1` })
      : insertStartedSession(s, event, { also: Prisma.sql`SELECT ${roomHolds}` }, null, roomFor(s.workspaceId, cap));
    const t0 = performance.now();
    await queryStatement(db, sql);
    times[which].push(performance.now() - t0);
    // Ended at once, so the live count stays where it was.
    await db.prisma.session.update({ where: { id: s.id }, data: { status: "RELEASED", endedAt: new Date() } });
  }
  const [p, c] = [median(times.plain), median(times.capped)];
  console.log(
    `${name}: recording statement, ${statements} each, ${liveAlready} live sessions in the workspace: ` +
      `p50 ${f(p, 3)} ms without a cap, ${f(c, 3)} ms with one (+${f((c - p) * 1000, 0)} µs, ${f(c / p, 2)}×); ` +
      `p90 ${f(pct(times.plain, 90), 3)} vs ${f(pct(times.capped, 90), 3)} ms`,
  );
}

const embedded = await openDatabase({ dataDir: "memory://", migrate: "apply" });
await statementBench("embedded (PGlite)", embedded);
await embedded.close();
if (process.env.DATABASE_URL) {
  const pg = await openDatabase({ url: process.env.DATABASE_URL, dataDir: "memory://", migrate: "apply" });
  await statementBench("PostgreSQL", pg);
  await pg.close();
}

// End to end, one node on the embedded database, one warm spare.
const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "4" } });
try {
  const plain = await seedWorkspace(t, { rateLimitPerMinute: 1e6 });
  const capped = await seedWorkspace(t, { rateLimitPerMinute: 1e6 });
  await t.app.deps.db.prisma.workspace.update({ where: { id: capped.workspace.id }, data: { maxSessions: cap } });
  const spareReady = async () => {
    while (t.app.deps.browsers.report().warm < 1) await new Promise((r) => setTimeout(r, 20));
  };
  const times = { plain: [] as number[], capped: [] as number[] };
  for (let i = 0; i < creates * 2; i++) {
    const which = i % 2 === 0 ? "plain" : "capped";
    const ws = which === "plain" ? plain : capped;
    await spareReady();
    const t0 = performance.now();
    const res = await fetch(`${t.url}/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({ region: "us-east1" }),
    });
    const body = (await res.json()) as { id: string };
    times[which].push(performance.now() - t0);
    if (res.status !== 201) throw new Error(`create answered ${res.status}`);
    await fetch(`${t.url}/v1/sessions/${body.id}`, { method: "PATCH", headers: { ...bearer(ws.key), "content-type": "application/json" }, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
  }
  const [p, c] = [median(times.plain), median(times.capped)];
  console.log(
    `embedded (PGlite): POST /v1/sessions with a warm spare, ${creates} each: p50 ${f(p, 2)} ms without a cap, ${f(c, 2)} ms with one ` +
      `(${f(c / p, 2)}×); p90 ${f(pct(times.plain, 90), 2)} vs ${f(pct(times.capped, 90), 2)} ms`,
  );
} finally {
  await t.stop();
}
