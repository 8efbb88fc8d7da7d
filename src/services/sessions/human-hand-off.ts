/**
 * Handing a step to a person (the MCP `ask_human` tool, issue 22): the session's live view becomes
 * interactive with the agent's instructions, a link is minted that lasts as long as the agent will
 * wait, and the agent waits for the person's Done (the `live_view.done` event) or its own timeout.
 */
import { AppError } from "../../errors.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { listSessionEvents } from "../session-events/event-feed.ts";
import { liveViewRevocations } from "./live-view.ts";

export interface HandOff {
  sessionId: string;
  liveViewUrl: string;
  /** Done events after this one answer the hand-off (null: the session had no event yet). */
  after: string | null;
  /** When the agent stops waiting (and the link stops working). */
  deadline: Date;
}

export type HandOffOutcome = { outcome: "done"; at: Date; viewerId: string | null } | { outcome: "timed_out" } | { outcome: "session_ended"; status: string };

/** The longest an agent may wait for a person: a session lives at most 30 minutes anyway. */
export const maxHandOffSeconds = 1800;

/**
 * Opens the hand-off: the row's live view turns interactive with `instructions` (audited), and the
 * link is valid until the wait's deadline, never past the session's own end. The live view stays
 * interactive afterwards (a later hand-off only changes the instructions). Refuses a session of
 * another workspace (as missing) and one that is not running.
 */
export async function openHandOff(ctx: ServiceContext, id: string, instructions: string, timeoutSeconds: number): Promise<HandOff> {
  const workspaceId = await actingWorkspace(ctx, "hand its sessions to a person");
  const prisma = prismaOf(ctx);
  const found = await prisma.session.findFirst({ where: { id, workspaceId } });
  if (!found) throw new AppError("not-found", "No session with this id in this workspace.");
  if (ctx.audit) ctx.audit.target = id;
  if (found.status !== "RUNNING") throw new AppError("conflict", `The session is not running (${found.status}).`);
  // Done events already recorded do not answer this hand-off: only those after the newest one now.
  const newest = await prisma.sessionEvent.findFirst({ where: { sessionId: id }, orderBy: { id: "desc" }, select: { id: true } });
  // A view-only session's links handed out so far are revoked as it turns interactive: whoever was
  // given one to watch does not gain the mouse and keyboard with it.
  const revoke = !found.liveViewInteractive;
  const session = await auditedTransaction(ctx, async (tx, audit) => {
    const row = await tx.session.update({
      where: { id },
      data: { liveViewInteractive: true, liveViewInstructions: instructions, ...(revoke ? { liveViewGeneration: { increment: 1 } } : {}) },
    });
    await audit(id);
    return row;
  });
  if (revoke) await ctx.deps.pubsub.publish(liveViewRevocations, id);
  const now = ctx.deps.now().getTime();
  const deadline = new Date(Math.min(session.expiresAt.getTime(), now + timeoutSeconds * 1000));
  if (deadline.getTime() - now < 1000) throw new AppError("conflict", "The session ends in less than a second.");
  const token = await ctx.deps.tokens.mint({
    sessionId: id,
    workspaceId,
    audience: "live-view",
    expiresAt: deadline,
    generation: session.liveViewGeneration,
  });
  return { sessionId: id, liveViewUrl: `${ctx.deps.config.publicBaseUrl}/?token=${token}`, after: newest?.id ?? null, deadline };
}

/**
 * Waits for the person's Done, the deadline, or the session's end, whichever comes first. Each
 * round is a long poll of the session's events (so a Done on any node wakes it); `onTick` runs
 * between rounds, every `tickSeconds`, with the seconds waited so far (progress for the agent).
 */
export async function awaitHandOff(
  ctx: ServiceContext,
  handOff: HandOff,
  opts: { signal?: AbortSignal; tickSeconds?: number; onTick?: (waitedSeconds: number) => Promise<void> | void } = {},
): Promise<HandOffOutcome> {
  const started = Date.now();
  const tick = opts.tickSeconds ?? 5;
  for (;;) {
    const remainingMs = handOff.deadline.getTime() - ctx.deps.now().getTime();
    if (remainingMs <= 0) return { outcome: "timed_out" };
    if (opts.signal?.aborted) throw new AppError("conflict", "The wait was cancelled.");
    const wait = Math.max(1, Math.min(tick, Math.ceil(remainingMs / 1000)));
    const page = await listSessionEvents(ctx, handOff.sessionId, { after: handOff.after ?? undefined, type: ["live_view.done"], limit: 1, wait }, opts.signal);
    const done = page.items[0];
    if (done) return { outcome: "done", at: done.createdAt, viewerId: typeof done.data.viewer_id === "string" ? done.data.viewer_id : null };
    const session = await prismaOf(ctx).session.findUnique({ where: { id: handOff.sessionId }, select: { status: true } });
    if (!session || session.status !== "RUNNING") return { outcome: "session_ended", status: session?.status ?? "GONE" };
    await opts.onTick?.(Math.round((Date.now() - started) / 1000));
  }
}
