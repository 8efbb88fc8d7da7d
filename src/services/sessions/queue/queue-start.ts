// Starting a session this node claimed from the admission queue: the same browser features, in the same
// phases, as a create that found a browser at once (create-session.ts); its timers start now.
import { open } from "../../../crypto/envelope.ts";
import { Prisma, type Session } from "../../../generated/prisma/client.ts";
import type { AppDeps, ServiceContext } from "../../../kernel/context.ts";
import { knownProblem } from "../../../kernel/problems.ts";
import { executeStatement, queryStatement } from "../../../kernel/support.ts";
import { newEvent, publishSessionChange, type NewEvent } from "../../session-events/session-events.ts";
import { applyLeased, applyStarted, checkFeatures, giveBackUnused, wantedFeatures } from "../browser-features/apply.ts";
import { endSession } from "../sessions.ts";
import { CreateSessionInput } from "../session-input.ts";
import { queuedInputAad } from "./enqueue.ts";
import { unclaimStatement } from "./queue-sql.ts";

export type StartOutcome = "started" | "no-browser" | "failed" | "lost";

/**
 * Starts claimed session `id` on this node. "no-browser": the pool had none after all (the claim goes
 * back, the session keeps its place); "lost": the session was released meanwhile, or its claim was
 * taken back (the browser goes back unused); "failed": its features refused (a profile deleted while it
 * waited): it ends FAILED launch_failed.
 */
export async function startClaimed(deps: AppDeps, ctx: ServiceContext, id: string): Promise<StartOutcome> {
  const [claimed] = await queryStatement<{ input: Uint8Array; enqueued_at: Date } & Record<string, unknown>>(
    deps.db,
    Prisma.sql`SELECT q."input", q."enqueued_at" FROM "session_queue" q WHERE q."session_id" = ${id} AND q."claimed_by" = ${deps.nodeId}`,
  );
  const row = await deps.db.prisma.session.findUnique({ where: { id } });
  if (!claimed || !row || row.status !== "PENDING") return "lost";
  const input = CreateSessionInput.parse(JSON.parse(open(deps.masterKey.key, claimed.input, queuedInputAad(id)).toString("utf8")));
  const now = deps.now();
  const session: Session = { ...row, status: "RUNNING", nodeId: deps.nodeId, startedAt: now, expiresAt: new Date(now.getTime() + row.timeoutSeconds * 1000) };
  let features: Awaited<ReturnType<typeof checkFeatures>>;
  try {
    features = wantedFeatures(await checkFeatures({ ctx, input, workspaceId: row.workspaceId }), { input, session });
  } catch (err) {
    ctx.log.warn({ sessionId: id, err: knownProblem(err)?.detail ?? (err as Error).message }, "a queued session could not start: its options were refused");
    await endSession(deps, id, { status: "FAILED", reason: "LAUNCH_FAILED" });
    return "failed";
  }
  let lease: Awaited<ReturnType<AppDeps["browsers"]["acquire"]>>;
  try {
    lease = await deps.browsers.acquire(id);
  } catch {
    await executeStatement(deps.db, unclaimStatement(id, deps.nodeId));
    return "no-browser";
  }
  const run = { ctx, input, workspaceId: row.workspaceId, session, lease };
  let applied: Awaited<ReturnType<typeof applyLeased>>;
  try {
    applied = await applyLeased(features, run);
  } catch (err) {
    await lease.release();
    ctx.log.warn({ sessionId: id, err: (err as Error).message }, "a queued session's browser could not be set up");
    await endSession(deps, id, { status: "FAILED", reason: "LAUNCH_FAILED" });
    return "failed";
  }
  const events = [newEvent(id, "session.started", { waited_ms: now.getTime() - claimed.enqueued_at.getTime() }, now), newEvent(id, "session.running", {}, now)];
  let recorded = false;
  try {
    recorded = (await executeStatement(deps.db, startStatement(session, deps.nodeId, events))) > 0;
  } catch (err) {
    await lease.release();
    throw err;
  }
  if (!recorded) {
    await giveBackUnused(applied, lease);
    return "lost";
  }
  deps.metrics?.queueWait.observe((now.getTime() - claimed.enqueued_at.getTime()) / 1000);
  void deps.events.published(events);
  void publishSessionChange(deps, id, row.workspaceId);
  applyStarted(features, "recorded", run);
  deps.runtime.add(id, lease, session.expiresAt, session.idleTimeoutSeconds, now);
  applyStarted(features, "running", run);
  return "started";
}

/** One statement: the session RUNNING here with its times (only while this node's claim holds), its entry gone, its events written. */
function startStatement(s: Session, nodeId: string, events: NewEvent[]): Prisma.Sql {
  const rows = events.map((e) => Prisma.sql`(${e.id}::text, ${e.type}::text, ${JSON.stringify(e.data)}::jsonb, ${e.createdAt}::timestamptz)`);
  return Prisma.sql`WITH "started" AS (
      UPDATE "sessions" SET "status" = 'RUNNING'::"SessionStatus", "started_at" = ${s.startedAt}::timestamptz, "expires_at" = ${s.expiresAt}::timestamptz
      WHERE "id" = ${s.id} AND "status" = 'PENDING'::"SessionStatus" AND "node_id" = ${nodeId}
        AND EXISTS (SELECT 1 FROM "session_queue" WHERE "session_id" = ${s.id} AND "claimed_by" = ${nodeId})
      RETURNING "id"
    ), "gone" AS (
      DELETE FROM "session_queue" WHERE "session_id" IN (SELECT "id" FROM "started")
    )
    INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at")
      SELECT "e"."id", "started"."id", "e"."type", "e"."data", "e"."created_at"
      FROM (VALUES ${Prisma.join(rows)}) AS "e" ("id", "type", "data", "created_at") CROSS JOIN "started"`;
}
