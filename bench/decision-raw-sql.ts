// Decision record 0271 (docs/decisions/0271-raw-sql-on-the-session-path.md): the statements of a
// session's lifecycle as the service runs them (raw SQL, src/services/sessions/session-start.ts and
// kernel/idempotency.ts) against the same writes in Prisma's query API, on the embedded database
// (PGlite) and on PostgreSQL. One lifecycle is what every create and release writes:
//   claim    the Idempotency-Key       raw: INSERT … ON CONFLICT DO NOTHING
//                                      orm: idempotencyRecord.createMany({ skipDuplicates }) (Prisma's only way to it)
//   start    session row, first event, audit entry, stored answer
//                                      raw: one data-modifying CTE (insertStartedSession)
//                                      orm: $transaction([session.create, sessionEvent.create, auditEntry.create, idempotencyRecord.update])
//   release  end if live, final event, audit entry
//                                      raw: one CTE (endSessionStatement)
//                                      orm: interactive $transaction (updateMany, then the event if it ended, the audit entry)
// Variants: "orm"; "raw via Prisma" ($executeRaw/$queryRaw, what PostgreSQL runs); on PGlite also
// "raw direct" (Database.direct, what the embedded database runs: the statement without Prisma's layer).
// Each figure: wall ms and this process's CPU ms (PGlite runs inside it) per lifecycle; rounds
// interleaved, medians of the rounds' medians.
//
//   npx tsx bench/decision-raw-sql.ts     BENCH_ROUNDS=5 BENCH_N=30; BENCH_BACKENDS=pglite,postgres;
//                                         VESSEL_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test;
//                                         a throwaway database is created beside it and dropped)
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import pg from "pg";
import { sessionRow } from "../test/support/session-row.ts";
import { ulid } from "ulid";
import { openDatabase, type Database } from "../src/db/client.ts";
import { Prisma, type Session } from "../src/generated/prisma/client.ts";
import { executeStatement, queryStatement } from "../src/kernel/support.ts";
import { auditInsertSql, toRow, type AuditRecord } from "../src/services/audit/audit-row.ts";
import type { NewEvent } from "../src/services/session-events/session-events.ts";
import { endSessionStatement, insertStartedSession } from "../src/services/sessions/session-start.ts";
import { pgliteDump } from "../scripts/lib/pglite-dumps.ts";
import { f, median, num } from "./support.ts";

const rounds = num("BENCH_ROUNDS", 5);
const perRound = num("BENCH_N", 30);
const backends = (process.env.BENCH_BACKENDS ?? "pglite,postgres").split(",");
const adminUrl = process.env.VESSEL_TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const LIVE = ["PENDING", "RUNNING", "REQUEST_RELEASE"] as const;

type Variant = "orm" | "raw via Prisma" | "raw direct";

/** The row the bench writes: a 5-minute session with logs on and one label (the shared test builder, adjusted). */
function benchRow(workspaceId: string): Session {
  const now = new Date();
  return sessionRow(
    workspaceId,
    {
      region: "local",
      timeoutSeconds: 300,
      idleTimeoutSeconds: null,
      logs: true,
      metadata: { team: "bench" },
      expiresAt: new Date(now.getTime() + 300_000),
      lastActivityAt: now,
    },
    now,
  );
}
const event = (sessionId: string, type: "session.started" | "session.released"): NewEvent =>
  ({ id: `evt_${ulid()}`, sessionId, type, data: { status: type }, createdAt: new Date() }) as NewEvent;
const audit = (workspaceId: string, action: string, target: string): AuditRecord => ({
  workspaceId,
  keyPrefix: "vs_bench",
  actorUserId: null,
  action,
  target,
  httpStatus: 201,
  requestId: ulid(),
  ip: "127.0.0.1",
});
const answerBody = () => JSON.stringify({ sealed: randomBytes(600).toString("base64") });

/** One create and release, as `variant` writes them. */
async function lifecycle(db: Database, variant: Variant, workspaceId: string): Promise<void> {
  const key = randomUUID();
  const now = new Date();
  const expires = new Date(now.getTime() + 86_400_000);
  const s = benchRow(workspaceId);
  if (variant === "orm") {
    const p = db.prisma;
    const claimed = await p.idempotencyRecord.createMany({
      data: { workspaceId, key, fingerprint: "f", state: "IN_PROGRESS", lockedUntil: new Date(now.getTime() + 60_000), expiresAt: expires, createdAt: now },
      skipDuplicates: true,
    });
    if (claimed.count !== 1) throw new Error("claim failed");
    const { metadata, options, browser: _browser, ...scalar } = s;
    const started = event(s.id, "session.started");
    await p.$transaction([
      p.session.create({ data: { ...scalar, metadata: metadata as Prisma.InputJsonObject, options: options as Prisma.InputJsonObject }, select: { id: true } }),
      p.sessionEvent.create({ data: { ...started, data: started.data }, select: { id: true } }),
      p.auditEntry.create({ data: toRow(audit(workspaceId, "session.create", s.id)), select: { id: true } }),
      p.idempotencyRecord.update({
        where: { workspaceId_key: { workspaceId, key } },
        data: { state: "COMPLETED", responseStatus: 201, responseBody: JSON.parse(answerBody()), resourceId: s.id, lockedUntil: null },
        select: { key: true },
      }),
    ]);
    await p.$transaction(async (tx) => {
      const ended = await tx.session.updateMany({
        where: { id: s.id, status: { in: [...LIVE] } },
        data: { status: "RELEASED", endReason: "CLIENT_RELEASE", endedAt: new Date(), endedById: null },
      });
      if (ended.count === 1) {
        const released = event(s.id, "session.released");
        await tx.sessionEvent.create({ data: { ...released, data: released.data }, select: { id: true } });
      }
      await tx.auditEntry.create({ data: toRow(audit(workspaceId, "session.release", s.id)), select: { id: true } });
    });
    return;
  }
  // The raw statements; "raw via Prisma" hides `direct`, so they go through $executeRaw/$queryRaw.
  const via = variant === "raw direct" ? db : { prisma: db.prisma };
  const claimed = await executeStatement(
    via,
    Prisma.sql`INSERT INTO "idempotency_records"
      ("workspace_id", "key", "fingerprint", "state", "locked_until", "expires_at", "created_at")
    VALUES (${workspaceId}, ${key}, ${"f"}, 'IN_PROGRESS', ${new Date(now.getTime() + 60_000)}, ${expires}, ${now})
    ON CONFLICT DO NOTHING`,
  );
  if (claimed !== 1) throw new Error("claim failed");
  const storeAnswer = Prisma.sql`UPDATE "idempotency_records"
      SET "state" = 'COMPLETED', "response_status" = ${201}, "response_body" = ${answerBody()}::jsonb, "resource_id" = ${s.id}, "locked_until" = NULL
      WHERE "workspace_id" = ${workspaceId} AND "key" = ${key}`;
  const startAudit = audit(workspaceId, "session.create", s.id);
  const start = insertStartedSession(s, event(s.id, "session.started"), { also: storeAnswer }, (when) => auditInsertSql(startAudit, when));
  const stored = await executeStatement(via, start);
  if (stored !== 1) throw new Error("start not stored");
  const [ended] = await queryStatement<{ workspace_id: string }>(
    via,
    endSessionStatement(
      { id: s.id, status: "RELEASED", reason: "CLIENT_RELEASE", endedAt: new Date(), endedById: null },
      [event(s.id, "session.released")],
      auditInsertSql(audit(workspaceId, "session.release", s.id)),
    ),
  );
  if (!ended) throw new Error("release did not end the session");
}

async function openBackend(backend: string): Promise<{ db: Database; dispose(): Promise<void> }> {
  if (backend === "pglite") {
    const db = await openDatabase({ dataDir: "memory://", loadDataDir: await pgliteDump("migrated") });
    return { db, dispose: () => db.close() };
  }
  const name = `vessel_bench_${randomBytes(5).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), dataDir: "memory://", migrate: "apply" });
  return { db, dispose: async () => (await db.close(), await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
console.log(`node ${process.version}, ${os.cpus().length} CPUs, load average at start ${load} (machine shared with other work)`);
console.log(`${rounds} interleaved rounds of ${perRound} lifecycles (claim + start + release) per variant; medians of the rounds' medians`);
for (const backend of backends) {
  const { db, dispose } = await openBackend(backend);
  try {
    const workspaceId = `ws_${ulid()}`;
    await db.prisma.workspace.create({ data: { id: workspaceId, slug: `bench-${workspaceId.toLowerCase()}`, name: "bench" } });
    const variants: Variant[] = db.direct ? ["orm", "raw via Prisma", "raw direct"] : ["orm", "raw via Prisma"];
    for (const v of variants) for (let i = 0; i < 5; i++) await lifecycle(db, v, workspaceId); // warm: plans, caches, JIT
    const wall = new Map<Variant, number[]>(variants.map((v) => [v, []]));
    const cpu = new Map<Variant, number[]>(variants.map((v) => [v, []]));
    for (let r = 0; r < rounds; r++) {
      for (const v of r % 2 ? [...variants].reverse() : variants) {
        const w: number[] = [];
        const c: number[] = [];
        for (let i = 0; i < perRound; i++) {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await lifecycle(db, v, workspaceId);
          w.push(performance.now() - t0);
          const used = process.cpuUsage(c0);
          c.push((used.user + used.system) / 1000);
        }
        wall.get(v)!.push(median(w));
        cpu.get(v)!.push(median(c));
      }
    }
    console.log(`\n${backend} (load average now ${os.loadavg()[0]!.toFixed(2)})`);
    console.log(`${"variant".padEnd(16)} ${"wall ms".padStart(8)} ${"cpu ms".padStart(8)}   rounds' wall medians`);
    for (const v of variants) {
      const each = wall
        .get(v)!
        .map((x) => f(x, 2))
        .join(", ");
      console.log(`${v.padEnd(16)} ${f(median(wall.get(v)!), 2).padStart(8)} ${f(median(cpu.get(v)!), 2).padStart(8)}   ${each}`);
    }
    const used = variants[variants.length - 1]!;
    const orm = (m: Map<Variant, number[]>) => median(m.get("orm")!);
    console.log(`orm ÷ ${used} (what ${backend} runs): wall ${f(orm(wall) / median(wall.get(used)!), 2)}×, cpu ${f(orm(cpu) / median(cpu.get(used)!), 2)}×`);
  } finally {
    await dispose();
  }
}
