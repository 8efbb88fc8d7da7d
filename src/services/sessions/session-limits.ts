import { validationError, type FieldError } from "../../errors.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import type { CreateSessionInput } from "./session-input.ts";

/**
 * How long a session may live: the workspace's own `max_session_seconds`, else the deployment's
 * VESSEL_MAX_SESSION_SECONDS (1800 unless set), never above a day (session-input.ts). A create asking
 * for more is refused with the limit and where it comes from, so the caller knows what to change.
 */
export interface SessionLimit {
  seconds: number;
  /** Where the limit comes from, named in the refusal. */
  source: string;
}

export function sessionLimit(ctx: ServiceContext, workspaceSeconds: number | null): SessionLimit {
  if (workspaceSeconds !== null) return { seconds: workspaceSeconds, source: "this workspace's max_session_seconds" };
  return { seconds: ctx.deps.config.maxSessionSeconds, source: "the deployment's VESSEL_MAX_SESSION_SECONDS" };
}

/** Refuses (400 validation-failed) a timeout above the limit; nothing was taken yet. */
export function checkSessionTimes(input: CreateSessionInput, limit: SessionLimit): void {
  const errors: FieldError[] = [];
  for (const field of ["timeout_seconds", "idle_timeout_seconds"] as const) {
    const asked = input[field];
    if (asked !== undefined && asked > limit.seconds) {
      errors.push({ field, message: `must be at most ${limit.seconds} seconds, the session limit (${limit.source})` });
    }
  }
  if (errors.length > 0) throw validationError(errors);
}

/** The session's timeout: what the create asked, else the limit. */
export function timeoutOf(input: CreateSessionInput, limit: SessionLimit): number {
  return input.timeout_seconds ?? limit.seconds;
}
