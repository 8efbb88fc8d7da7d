// The createSession operation as every transport calls it (REST, GraphQL, MCP): the key checked, the
// create run at most once per key (create-session.ts), its metric recorded, and one answer that says
// whether it was a replay and which session to present. Transports only present it.
import { knownProblem } from "../../kernel/problems.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { requireIdempotencyKey } from "../../kernel/idempotency.ts";
import { createSession } from "./create-session.ts";
import { startOrQueue } from "./queue/enqueue.ts";
import { getSession } from "./sessions.ts";
import type { CreateSessionInput } from "./session-input.ts";
import { fromStoredView, storedSessionId, type SessionView } from "./session-view.ts";

/** A create's answer: the session started by this call, or (a replay) the one the key's first call started. */
export type CreatedSession =
  | { replayed: false; view: SessionView }
  | {
      replayed: true;
      /** The session as the first call answered it (its addresses as minted then). */
      view: SessionView;
      /**
       * The REST body a version before stored views stored as the answer (session-view.ts): REST
       * replays it as it is; `view` is then the session as it is now. Such answers expire 24 hours
       * after their call, so this matters only across an upgrade.
       */
      storedBody?: unknown;
    };

/**
 * Starts a session at most once per Idempotency-Key (missing or not a UUID: 400, before anything is
 * counted), timed in `vessel_session_create_seconds` by outcome: created, replayed, refused (a
 * problem below 500) or failed.
 */
export async function createSessionOnce(ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string | undefined): Promise<CreatedSession> {
  const key = requireIdempotencyKey(idempotencyKey);
  const timer = ctx.deps.metrics?.sessionCreate.startTimer();
  let outcome: Awaited<ReturnType<typeof createSession>>;
  try {
    // With queue_timeout_seconds, a refusal for lack of a browser (or of room in the workspace) waits in the queue instead.
    outcome = await startOrQueue(ctx, input, key, () => createSession(ctx, input, key));
  } catch (err) {
    timer?.({ outcome: (knownProblem(err)?.status ?? 500) < 500 ? "refused" : "failed" });
    throw err;
  }
  timer?.({ outcome: outcome.replayed ? "replayed" : outcome.result.session.status === "QUEUED" ? "queued" : "created" });
  if (!outcome.replayed) return { replayed: false, view: outcome.result };
  const stored = fromStoredView(outcome.body);
  // A queued create's replay answers the session as it is now (waiting, started or ended).
  if (stored?.session.status === "QUEUED") return { replayed: true, view: await getSession(withoutAudit(ctx), stored.session.id) };
  if (stored) return { replayed: true, view: stored };
  // An older answer names its session only: read as it is now (not the call's audit target: a replay names none).
  return { replayed: true, view: await getSession(withoutAudit(ctx), storedSessionId(outcome.body)), storedBody: outcome.body };
}

function withoutAudit(ctx: ServiceContext): ServiceContext {
  const { audit: _unnamed, ...unaudited } = ctx;
  return unaudited;
}
