import { Prisma } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { AppDeps } from "../kernel/context.ts";
import { revokedMessage } from "../services/sessions/live-view.ts";
import { CLOSE_REVOKED } from "./protocol.ts";

/** How often the node re-reads the live-view generation of the sessions it has viewers for. */
export const VIEWER_RECHECK_MS = 2_000;

/** What the re-check needs of a viewer: whose link it is, and how to end it. */
export interface CheckedViewer {
  readonly sessionId: string;
  /** The live-view generation its link was minted under. */
  readonly generation: number;
  end(reason: "revoked", message: string, code: number): void;
}

/**
 * Closing a session's live views moves its generation on in the database, then tells every node
 * over pub/sub; the node holding the viewers drops them when it hears. Pub/sub is best effort, so
 * the owning node does not rely on it: every VIEWER_RECHECK_MS it reads the generation of every
 * session it has viewers for (one statement for all of them) and ends each viewer whose link is
 * older (4403). A revocation therefore holds within that interval even when its message is lost.
 *
 * A database that does not answer ends nobody: an outage is not a revocation; the next round checks again.
 */
export function startViewerRecheck(deps: AppDeps, viewers: () => Iterable<CheckedViewer>, log: Logger, intervalMs = VIEWER_RECHECK_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // a slow round (the database is slow) is not overtaken by the next
    const open = [...viewers()];
    if (open.length === 0) return;
    running = true;
    void recheck(deps, open)
      .catch((err: unknown) => log.debug({ err }, "live view: could not re-check links; trying again next round"))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

async function recheck(deps: AppDeps, open: CheckedViewer[]): Promise<void> {
  const ids = [...new Set(open.map((v) => v.sessionId))];
  const rows = await deps.db.prisma.$queryRaw<Array<{ id: string; generation: number }>>`
    SELECT "id", "live_view_generation" AS "generation" FROM "sessions" WHERE "id" IN (${Prisma.join(ids)})`;
  const current = new Map(rows.map((r) => [r.id, r.generation]));
  for (const viewer of open) {
    const generation = current.get(viewer.sessionId);
    if (generation !== undefined && generation !== viewer.generation) viewer.end("revoked", revokedMessage, CLOSE_REVOKED);
  }
}
