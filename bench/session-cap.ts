// What the per-workspace session cap (src/services/sessions/session-cap.ts) costs a create, measured side by
// side against the same create without a cap, alternating so drift cancels. Loopback only, bounded.
//
//   npx tsx bench/session-cap.ts                      embedded (PGlite): the statement, then POST /v1/sessions
//   DATABASE_URL=postgresql://… npx tsx bench/session-cap.ts    the statement on PostgreSQL too (a scratch database; migrated here)
//
// 1. The statement that records a session alone (insertStartedSession, in its one-statement form
//    with the key's claim, and its form after a separate claim), uncapped vs capped (the advisory
//    lock and the count of the workspace's live sessions), with `BENCH_LIVE` live sessions there.
// 2. POST /v1/sessions end to end on the embedded database, a warm spare each time (the usual
//    one-statement path), in a workspace without and one with a cap.
import { sessionRow } from "../test/support/session-row.ts";
import { ulid } from "ulid";
import { openDatabase, type Database } from "../src/db/client.ts";
import { Prisma, type Session } from "../src/generated/prisma/client.ts";
import { roomFor } from "../src/services/sessions/session-cap.ts";
import { newEvent } from "../src/services/session-events/session-events.ts";
import { insertStartedSession, roomHolds } from "../src/services/sessions/session-start.ts";
import { queryStatement } from "../src/kernel/support.ts";
import { bearer, seedWorkspace, startTestApp } from "../test/support/app.ts";
import { f, median, num, pct } from "./support.ts";

const statements = num("BENCH_STATEMENTS", 400);
const creates = num("BENCH_CREATES", 30);
const liveAlready = num("BENCH_LIVE", 5);
const cap = 100;

const session = (workspaceId: string): Session => sessionRow(workspaceId);

async function statementBench(name: string, db: Database): Promise<void> {
  const workspaces = { plain: `ws_${ulid()}`, capped: `ws_${ulid()}` };
  for (const id of Object.values(workspaces)) {
    await db.prisma.workspace.create({ data: { id, slug: `bench-${ulid().toLowerCase()}`, name: "bench" } });
    for (let i = 0; i < liveAlready; i++) await db.prisma.session.create({ data: { ...session(id), metadata: {}, options: {}, browser: undefined } });
  }
  /** The one-statement way's claim of an Idempotency-Key (as idempotency.ts writes it), with or without its condition. */
  const claim = (s: Session, when?: Prisma.Sql) => {
    const row = Prisma.sql`${s.workspaceId}::text, ${ulid()}::text, 'fp'::text, 'COMPLETED'::"IdempotencyState", 201::int, '{}'::jsonb, ${s.id}::text,
      NULL::timestamptz, ${new Date(Date.now() + 86_400_000)}::timestamptz, ${new Date()}::timestamptz`;
    return Prisma.sql`INSERT INTO "idempotency_records" ("workspace_id", "key", "fingerprint", "state", "response_status", "response_body", "resource_id", "locked_until", "expires_at", "created_at")
      ${when ? Prisma.sql`SELECT ${row} WHERE ${when}` : Prisma.sql`VALUES (${row})`} ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
  };
  for (const form of ["claim", "also"] as const) {
    const times = { plain: [] as number[], capped: [] as number[] };
    for (let i = 0; i < statements * 2; i++) {
      const which = i % 2 === 0 ? "plain" : "capped";
      const s = session(workspaces[which]);
      const event = newEvent(s.id, "session.running", {}, s.createdAt);
      const room = which === "capped" ? roomFor(s.workspaceId, cap) : null;
      // claim: the usual create (a warm spare); also: the two-statement way's recording statement.
      const answer =
        form === "claim" ? { claim: claim(s, room ? roomHolds : undefined) } : { also: room ? Prisma.sql`SELECT ${roomHolds}` : Prisma.sql`SELECT 1` };
      const sql = insertStartedSession(s, event, answer, null, room);
      const t0 = performance.now();
      await queryStatement(db, sql);
      times[which].push(performance.now() - t0);
      // Ended at once, so the live count stays where it was.
      await db.prisma.session.update({ where: { id: s.id }, data: { status: "RELEASED", endedAt: new Date() } });
    }
    const [p, c] = [median(times.plain), median(times.capped)];
    console.log(
      `${name}: ${form === "claim" ? "one-statement create (claim)" : "recording statement after a claim (also)"}, ${statements} each, ` +
        `${liveAlready} live sessions in the workspace: p50 ${f(p, 3)} ms without a cap, ${f(c, 3)} ms with one ` +
        `(+${f((c - p) * 1000, 0)} µs, ${f(c / p, 2)}×); p90 ${f(pct(times.plain, 90), 3)} vs ${f(pct(times.capped, 90), 3)} ms`,
    );
  }
}

const embedded = await openDatabase({ dataDir: "memory://", migrate: "apply" });
await statementBench("embedded (PGlite)", embedded);
await embedded.close();
if (process.env.DATABASE_URL) {
  const pg = await openDatabase({ url: process.env.DATABASE_URL, dataDir: "memory://", migrate: "apply" });
  await statementBench("PostgreSQL", pg);
  await pg.close();
}

// End to end, one node on the embedded database, one warm spare (BENCH_CREATES=0 skips it).
async function endToEnd(): Promise<void> {
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
      await fetch(`${t.url}/v1/sessions/${body.id}`, {
        method: "PATCH",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ status: "REQUEST_RELEASE" }),
      });
    }
    const [p, c] = [median(times.plain), median(times.capped)];
    console.log(
      `embedded (PGlite): POST /v1/sessions with a warm spare, ${creates} each: p50 ${f(p, 2)} ms without a cap, ${f(c, 2)} ms with one ` +
        `(${f(c / p, 2)}×); p90 ${f(pct(times.plain, 90), 2)} vs ${f(pct(times.capped, 90), 2)} ms`,
    );
  } finally {
    await t.stop();
  }
}
if (creates > 0) await endToEnd();
