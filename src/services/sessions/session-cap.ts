import { AppError } from "../../errors.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { queryStatement } from "../../kernel/support.ts";

/**
 * The per-workspace cap on live sessions (`VESSEL_WORKSPACE_MAX_SESSIONS`, or a workspace's own
 * `max_sessions`): one tenant cannot take every browser of the deployment. Counted in the database,
 * so it holds across nodes, over live sessions (PENDING, RUNNING, REQUEST_RELEASE: each holds a browser).
 *
 * Race-free: the statement that records a new session admits it only if `vessel_session_room` (a
 * function of the migration that added the cap) says there is room. The function takes a
 * per-workspace advisory lock, held until that statement commits, and counts after the lock is
 * granted, so two creates in one workspace, on any nodes, are decided one after the other, each
 * seeing the other's row. Since the decision is part of the recording statement (session-start.ts),
 * a capped create costs no extra round trip on its usual path (a warm spare), only the lock and an
 * indexed count inside it; without a cap nothing of this runs at all.
 *
 * A replay is never refused: the idempotency claim comes first, and a key that is taken already is
 * answered from its record wherever the cap stands. A refused create stores nothing, so the same
 * Idempotency-Key starts the session once a slot frees (security.md J60).
 */

/** What a refusal asks the client to wait: sessions end at any moment, so a short, fixed pause. */
export const WORKSPACE_FULL_RETRY_SECONDS = 5;

/** The cap that applies to a workspace: its own, else the deployment's; null = none. */
export function sessionCap(ctx: ServiceContext, own: number | null): number | null {
  return own ?? ctx.deps.config.workspaceMaxSessions ?? null;
}

/** A condition, true when the workspace may start one more session; evaluate it once per statement. */
export function roomFor(workspaceId: string, cap: number): Prisma.Sql {
  return Prisma.sql`"vessel_session_room"(${workspaceId}::text, ${cap}::int)`;
}

export function workspaceFull(cap: number): AppError {
  return new AppError(
    "workspace-session-limit",
    `This workspace may hold ${cap} live session${cap === 1 ? "" : "s"} at once. Release one, or retry with the same Idempotency-Key later.`,
    { limit: cap },
    { "Retry-After": String(WORKSPACE_FULL_RETRY_SECONDS) },
  );
}

/**
 * Whether the workspace is plainly at its cap, read without the lock: lets a create that will be
 * refused skip taking (or launching) a browser. The recording statement decides for real.
 */
export async function plainlyFull(ctx: ServiceContext, workspaceId: string, cap: number): Promise<boolean> {
  const [row] = await queryStatement<{ n: number }>(
    ctx.deps.db,
    Prisma.sql`SELECT count(*)::int AS "n" FROM (
        SELECT 1 FROM "sessions" WHERE "workspace_id" = ${workspaceId} AND "status" IN ('PENDING', 'RUNNING', 'REQUEST_RELEASE') LIMIT ${cap}::int
      ) AS "live"`,
  );
  return (row?.n ?? 0) >= cap;
}
