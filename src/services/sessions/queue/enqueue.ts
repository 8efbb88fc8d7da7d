// A create that asked to wait (queue_timeout_seconds > 0) and found no free browser, or its workspace at
// its cap: its session is written QUEUED with its place in the admission queue, answered 202, and
// started later by whichever node frees a browser first (dispatcher.ts).
import { seal } from "../../../crypto/envelope.ts";
import { AppError } from "../../../errors.ts";
import { Prisma, type Session } from "../../../generated/prisma/client.ts";
import { ulid } from "../../../ids.ts";
import { actingWorkspaceWithCap } from "../../../kernel/authz.ts";
import type { ServiceContext } from "../../../kernel/context.ts";
import { type Idempotent, KeyClaim } from "../../../kernel/idempotency.ts";
import { knownProblem } from "../../../kernel/problems.ts";
import { executeStatement } from "../../../kernel/support.ts";
import { auditedStatement } from "../../audit/audited.ts";
import { newEvent, publishSessionChange } from "../../session-events/session-events.ts";
import { createFingerprint } from "../create-fingerprint.ts";
import type { CreateSessionInput } from "../session-input.ts";
import { sessionLimit, timeoutOf } from "../session-limits.ts";
import { sessionRow } from "../session-row.ts";
import { insertStartedSession, roomHolds } from "../session-start.ts";
import { toStoredView, type SessionView } from "../session-view.ts";
import { queuePositions, queueRoomFor, recentStarts } from "./queue-sql.ts";

/** The refusals a create that may wait waits out instead: no free browser anywhere, or its workspace at its cap. */
const waitable = new Set(["insufficient-capacity", "workspace-session-limit"]);

/** The AAD of a queued create's sealed input: a ciphertext copied into another entry fails to open. */
export const queuedInputAad = (sessionId: string) => `session-queue:${sessionId}`;

/**
 * Runs `start` (the create as it always was); when it is refused for lack of a browser or of room in the
 * workspace and the create may wait, queues it instead. The refused attempt stored nothing under the
 * Idempotency-Key, so the enqueue takes the key afresh (a replay of a queued create is answered from it).
 */
export async function startOrQueue(
  ctx: ServiceContext,
  input: CreateSessionInput,
  key: string,
  start: () => Promise<Idempotent<SessionView>>,
): Promise<Idempotent<SessionView>> {
  if (!input.queue_timeout_seconds) return start();
  try {
    return await start();
  } catch (err) {
    if (!waitable.has(knownProblem(err)?.slug ?? "")) throw err;
    return enqueue(ctx, input, key);
  }
}

async function enqueue(ctx: ServiceContext, input: CreateSessionInput, key: string): Promise<Idempotent<SessionView>> {
  const { id: workspaceId, maxSessionSeconds } = await actingWorkspaceWithCap(ctx, "use its sessions");
  // The same hard end as a create that starts at once: asked, else the workspace's (or the deployment's) limit.
  const timeoutSeconds = timeoutOf(input, sessionLimit(ctx, maxSessionSeconds));
  const idem = { workspaceId, key, fingerprint: createFingerprint(ctx, input) };
  const call = new KeyClaim(ctx, idem);
  const claim = await call.claim();
  if (claim.replayed) return claim;
  try {
    const session = queuedRow(ctx, input, workspaceId, timeoutSeconds);
    const { id } = session;
    const view: SessionView = { session, connectUrl: null, liveViewUrl: null, queuePosition: null };
    const answer = { status: 202, body: toStoredView(view), resourceId: id };
    const { config, masterKey } = ctx.deps;
    const sealed = seal(masterKey.key, Buffer.from(JSON.stringify(input)), queuedInputAad(id));
    const entry = Prisma.sql`, "new_entry" AS (
        INSERT INTO "session_queue" ("session_id", "workspace_id", "region", "priority", "enqueued_at", "deadline", "input", "master_key_id")
        SELECT ${id}::text, ${workspaceId}::text, ${input.region}::text, ${input.priority ?? 0}::int, ${session.createdAt}::timestamptz,
          ${deadlineOf(session, input)}::timestamptz, ${sealed}::bytea, ${masterKey.id}::text
        FROM "room" WHERE "ok"
      )
      ${call.storeAnswer(answer, roomHolds)}`;
    const queued = newEvent(id, "session.queued", { queue_timeout_seconds: input.queue_timeout_seconds ?? 0 }, session.createdAt);
    const room = queueRoomFor(workspaceId, config.workspaceMaxQueued, config.maxQueued);
    const written = await auditedStatement(
      ctx,
      id,
      async (audit) => (await executeStatement(ctx.deps.db, insertStartedSession(session, queued, { also: entry }, audit, room))) > 0,
      (ok) => ok,
    );
    if (!written) throw await queueFull(ctx, workspaceId);
    void ctx.deps.events.published([queued]);
    void publishSessionChange(ctx.deps, id, workspaceId);
    ctx.deps.queue?.wake();
    view.queuePosition = (await queuePositions(ctx.deps.db, [id])).get(id) ?? null;
    return { replayed: false, result: view };
  } catch (err) {
    // Nothing was queued (say, queue-full): the key is free again, so a retry with it runs anew.
    await call.abandon();
    throw err;
  }
}

/** The row of a queued session: no node, not started; its hard end the latest it could be (re-set when it starts). */
function queuedRow(ctx: ServiceContext, input: CreateSessionInput, workspaceId: string, timeoutSeconds: number): Session {
  const now = ctx.deps.now();
  return sessionRow(ctx, input, {
    id: `ses_${ulid()}`,
    workspaceId,
    status: "QUEUED",
    nodeId: null,
    timeoutSeconds,
    createdAt: now,
    startedAt: null,
    expiresAt: new Date(now.getTime() + ((input.queue_timeout_seconds ?? 0) + timeoutSeconds) * 1000),
  });
}

function deadlineOf(session: Session, input: CreateSessionInput): Date {
  return new Date(session.createdAt.getTime() + (input.queue_timeout_seconds ?? 0) * 1000);
}

/** 429 queue-full, its Retry-After the time the queue ahead takes at the rate sessions started in the last minute (1–60 s). */
async function queueFull(ctx: ServiceContext, workspaceId: string): Promise<AppError> {
  const { config, db, now } = ctx.deps;
  const [waiting] = await db.prisma.$queryRaw<{ ws: number; all: number }[]>`SELECT
      (count(*) FILTER (WHERE "workspace_id" = ${workspaceId}))::int AS "ws", count(*)::int AS "all" FROM "session_queue"`;
  const full = (waiting?.ws ?? 0) >= config.workspaceMaxQueued ? "workspace" : "deployment";
  const limit = full === "workspace" ? config.workspaceMaxQueued : config.maxQueued;
  const perSecond = (await recentStarts(db, now(), 60)) / 60;
  const ahead = full === "workspace" ? (waiting?.ws ?? limit) : (waiting?.all ?? limit);
  const seconds = perSecond > 0 ? Math.min(60, Math.max(1, Math.ceil(ahead / perSecond))) : 60;
  return new AppError(
    "queue-full",
    full === "workspace"
      ? `This workspace already has ${limit} sessions waiting (VESSEL_WORKSPACE_MAX_QUEUED). Retry with the same Idempotency-Key later.`
      : `The deployment already has ${limit} sessions waiting (VESSEL_MAX_QUEUED). Retry with the same Idempotency-Key later.`,
    { limit, queue: full },
    { "Retry-After": String(seconds) },
  );
}
