import type { ConnectClaims } from "../../auth/connect-tokens.ts";
import { KeyStoreUnavailable } from "../../auth/signing-keys.ts";
import { databaseUnavailable, isDatabaseUnavailable } from "../../db/errors.ts";
import { AppError } from "../../errors.ts";
import type { Session } from "../../generated/prisma/client.ts";
import { auditedTransaction } from "../audit/audited.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { sessionAccess } from "../session-events/event-feed.ts";

/** The pub/sub channel on which every node hears "close the live views of this session". */
export const liveViewRevocations = "live-view-revocations";

export const revokedMessage = "The session's owner closed this live view. Ask for a fresh link.";

/**
 * Who may watch: a valid `live-view` token (never a `cdp` one) for a session that is RUNNING, minted
 * after the owner last closed the views. Checked when the page loads and when its socket opens.
 */
export async function authorizeLiveView(deps: AppDeps, token: string | null | undefined): Promise<{ session: Session; claims: ConnectClaims }> {
  if (!token) throw new AppError("unauthenticated", "Open the live view with the full link you were given (it carries its token).");
  const claims = await deps.tokens.verify(token, "live-view").catch((err: unknown) => {
    if (err instanceof KeyStoreUnavailable)
      throw new AppError("service-unavailable", "The link cannot be checked right now; retry shortly.", {}, { "Retry-After": "2" });
    throw new AppError("unauthenticated", "This live-view link is invalid or has expired. Ask for a fresh link.");
  });
  // An unreachable database is a 503 for the page and a retry for the socket, never a refusal.
  const session = await deps.db.prisma.session.findUnique({ where: { id: claims.sessionId } }).catch((err: unknown) => {
    throw isDatabaseUnavailable(err) ? databaseUnavailable() : err;
  });
  if (!session || session.workspaceId !== claims.workspaceId) throw new AppError("not-found", "No such session.");
  if (session.status !== "RUNNING") throw new AppError("gone", "The session has ended.");
  if (session.liveViewGeneration !== claims.generation) throw new AppError("unauthenticated", revokedMessage);
  return { session, claims };
}

/**
 * The owner closes every live view of a session: links handed out so far stop working and open
 * viewers are dropped on whichever node holds them. New links come from keepalive. Keys act on their
 * workspace's sessions; dashboard users need owner or admin.
 */
export async function revokeLiveViews(ctx: ServiceContext, id: string): Promise<void> {
  const { role } = await sessionAccess(ctx, id);
  if (role === "MEMBER") throw new AppError("forbidden", "Only owners and admins can close a session's live views.");
  await auditedTransaction(ctx, async (tx, audit) => {
    await tx.session.update({ where: { id }, data: { liveViewGeneration: { increment: 1 } } });
    await audit(id);
  });
  await ctx.deps.pubsub.publish(liveViewRevocations, id);
}
