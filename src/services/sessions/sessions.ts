import type { z } from "zod";
import { closeCodeForEnd } from "../../browser/close-codes.ts";
import type { EndCause } from "../../browser/runtime/runtime.ts";
import { AppError } from "../../errors.ts";
import type { EndReason, Session, SessionStatus } from "../../generated/prisma/client.ts";
import { auditedStatement } from "../audit/audited.ts";
import { actingWorkspace, requirePrincipal } from "../../kernel/authz.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { paginate, type Page } from "../../kernel/pagination.ts";
import type { SessionListQuery, CreateSessionInput } from "./session-input.ts";
import { saveProfileOnRelease } from "../profiles/profile-sessions.ts";
import { newEvent, publishSessionChange, type NewEvent, type SessionEventType } from "../session-events/session-events.ts";
import { endSessionStatement, releaseSessionStatement } from "./session-start.ts";
import type { SessionView } from "./session-view.ts";
import { prismaOf, queryStatement } from "../../kernel/support.ts";
import { queuePositions } from "./queue/queue-sql.ts";

const live: SessionStatus[] = ["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE"];

/** Live-view tokens live about 5 minutes (spec 5.3). */
export const liveViewTokenSeconds = 300;

/**
 * The workspace a caller acts in for session reads and writes: an API key's own, or the one a
 * dashboard user names (`ctx.workspace`, a slug of a workspace they belong to; GraphQL only).
 */
function workspaceOf(ctx: ServiceContext): Promise<string> {
  return actingWorkspace(ctx, "use its sessions");
}

async function findInWorkspace(ctx: ServiceContext, id: string): Promise<Session> {
  const session = await prismaOf(ctx).session.findFirst({ where: { id, workspaceId: await workspaceOf(ctx) } });
  // Another workspace's session is indistinguishable from a missing one.
  if (!session) throw new AppError("not-found", "No session with this id in this workspace.");
  if (ctx.audit) ctx.audit.target = id;
  return session;
}

/** Mints the addresses of a running session: CDP until its hard end, live view for about 5 minutes. */
export async function view(ctx: ServiceContext, session: Session, withUrls: boolean): Promise<SessionView> {
  if (!withUrls) return { session, connectUrl: null, liveViewUrl: null };
  return { session, ...(await addresses(ctx, session)) };
}

export async function addresses(
  ctx: ServiceContext,
  session: Pick<Session, "id" | "workspaceId" | "status" | "expiresAt" | "liveViewGeneration">,
): Promise<{ connectUrl: string | null; liveViewUrl: string | null }> {
  const { tokens, config, now } = ctx.deps;
  // In its last second a session is about to be timed out, and a token (second resolution) could not outlive its issue time.
  if (session.status !== "RUNNING" || session.expiresAt.getTime() - now().getTime() < 1000) {
    return { connectUrl: null, liveViewUrl: null };
  }
  const base = config.publicBaseUrl;
  const liveUntil = Math.min(session.expiresAt.getTime(), now().getTime() + liveViewTokenSeconds * 1000);
  const [cdp, liveView] = await Promise.all([
    tokens.mint({ sessionId: session.id, workspaceId: session.workspaceId, audience: "cdp", expiresAt: session.expiresAt }),
    tokens.mint({
      sessionId: session.id,
      workspaceId: session.workspaceId,
      audience: "live-view",
      expiresAt: new Date(liveUntil),
      generation: session.liveViewGeneration,
    }),
  ]);
  return {
    connectUrl: `${base.replace(/^http/, "ws")}/cdp?token=${cdp}`,
    liveViewUrl: `${base}/?token=${liveView}`,
  };
}

export async function getSession(ctx: ServiceContext, id: string): Promise<SessionView> {
  const session = await findInWorkspace(ctx, id);
  if (session.status === "QUEUED") return { ...(await view(ctx, session, false)), queuePosition: (await queuePositions(ctx.deps.db, [id])).get(id) ?? null };
  return view(ctx, session, true);
}

/**
 * The workspace's sessions in ULID (creation) order, optionally by status. No tokens in lists.
 * `newestFirst` (the dashboard's list) reverses the order; cursors stay stable either way.
 */
export async function listSessions(
  ctx: ServiceContext,
  q: z.output<typeof SessionListQuery>,
  opts: { newestFirst?: boolean } = {},
): Promise<Page<ListedSession>> {
  const workspaceId = await workspaceOf(ctx);
  const page = await paginate(q, opts.newestFirst ? "desc" : "asc", (window) =>
    prismaOf(ctx).session.findMany({
      where: {
        workspaceId,
        ...(q.status ? { status: q.status } : {}),
        ...(window.idAfter ? { id: window.idAfter } : {}),
        ...(q.metadata ? { AND: Object.entries(q.metadata).map(([key, value]) => ({ metadata: { path: [key], equals: value } })) } : {}),
      },
      orderBy: window.orderBy,
      take: window.take,
    }),
  );
  // Waiting sessions show their place (one read, only when the page holds any).
  const queued = page.items.filter((s) => s.status === "QUEUED").map((s) => s.id);
  if (queued.length === 0) return page;
  const positions = await queuePositions(ctx.deps.db, queued);
  return { ...page, items: page.items.map((s) => (s.status === "QUEUED" ? { ...s, queuePosition: positions.get(s.id) ?? null } : s)) };
}

/** A session as lists give it: its row, and while it waits its place in the queue. */
export type ListedSession = Session & { queuePosition?: number | null };

/** New tokens for a running session (never past its hard end); also counts as activity. */
export async function keepaliveSession(ctx: ServiceContext, id: string): Promise<SessionView> {
  const session = await findInWorkspace(ctx, id);
  if (session.status !== "RUNNING") throw new AppError("conflict", `The session has ended (${session.status}).`);
  ctx.deps.runtime.touch(id);
  ctx.deps.cluster?.touch(id);
  return view(ctx, session, true);
}

/**
 * The owner's release (PATCH status REQUEST_RELEASE). Idempotent on an ended session.
 *
 * One statement reads the session and ends it (with its event and audit entry), since every
 * statement on the release path costs the embedded database's process CPU (session-start.ts).
 * A session that saves its profile on release takes endSession's way: the save comes first.
 */
export async function releaseSession(ctx: ServiceContext, id: string): Promise<void> {
  const workspaceId = await workspaceOf(ctx);
  const end = { status: "RELEASED", reason: "CLIENT_RELEASE" } as const;
  const { events: recorder } = ctx.deps;
  await recorder.settled(id);
  const now = ctx.deps.now();
  const events = [...recorder.take(id), newEvent(id, eventOf[end.status]!, { reason: end.reason.toLowerCase() }, now)];
  let found: { status: SessionStatus; saves: boolean; ended: boolean } | undefined;
  try {
    [found] = await auditedStatement(
      ctx,
      id,
      (audit) =>
        queryStatement<{ status: SessionStatus; saves: boolean; ended: boolean }>(
          ctx.deps.db,
          releaseSessionStatement({ id, workspaceId, endedAt: now }, events, audit),
        ),
      ([row]) => row !== undefined && live.includes(row.status) && !row.saves,
    );
  } finally {
    if (!found?.ended) recorder.putBack(id, events.slice(0, -1));
  }
  // Another workspace's session is indistinguishable from a missing one.
  if (!found) throw new AppError("not-found", "No session with this id in this workspace.");
  if (ctx.audit) ctx.audit.target = id;
  if (!live.includes(found.status)) return;
  if (found.saves) {
    await endSession(ctx.deps, id, end, ctx, undefined, { saveProfileOnRelease: true });
    return;
  }
  afterEnd(ctx.deps, id, end, found.ended ? { events, workspaceId } : null);
}

/** Dashboard force-stop by a workspace owner or admin; API keys are refused (they release with PATCH). */
export async function forceStopSession(ctx: ServiceContext, id: string): Promise<void> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "apiKey") throw new AppError("forbidden", "API keys release sessions with PATCH; force-stop is a dashboard action.");
  const session = await prismaOf(ctx).session.findUnique({ where: { id } });
  const membership = session
    ? await prismaOf(ctx).membership.findUnique({ where: { workspaceId_userId: { workspaceId: session.workspaceId, userId: principal.userId } } })
    : null;
  if (!session || !membership) throw new AppError("not-found", "No session with this id in your workspaces.");
  if (ctx.audit) {
    ctx.audit.workspaceId = session.workspaceId;
    ctx.audit.target = id;
  }
  if (membership.role === "MEMBER") throw new AppError("forbidden", "Only owners and admins can force-stop sessions.");
  if (!live.includes(session.status)) return;
  await endSession(ctx.deps, id, { status: "RELEASED", reason: "FORCE_STOP" }, ctx, principal.userId, session);
}

const eventOf: Record<string, SessionEventType> = { RELEASED: "session.released", TIMED_OUT: "session.timed_out", FAILED: "session.failed" };

/**
 * The one way a session ends: the row (if still live) takes its final status, end reason and time,
 * with its event (and the caller's audit entry) in the same statement; then the browser and every
 * socket of the session are closed. Idempotent. `known` is the session's row as the caller just read
 * it, if it did: it spares the profile-save check a read of its own.
 */
export async function endSession(
  deps: AppDeps,
  id: string,
  end: { status: Exclude<SessionStatus, "PENDING" | "RUNNING" | "REQUEST_RELEASE">; reason: EndReason },
  ctx?: ServiceContext,
  endedById?: string,
  known?: Pick<Session, "saveProfileOnRelease">,
): Promise<boolean> {
  // Before anything closes: the browser still holds what the profile is to keep.
  if (end.reason === "CLIENT_RELEASE") await saveProfileOnRelease(deps, id, ctx, known);
  await deps.events.settled(id);
  const now = deps.now();
  const events = [...deps.events.take(id), newEvent(id, eventOf[end.status]!, { reason: end.reason.toLowerCase() }, now)];
  let row: { workspace_id: string } | undefined;
  try {
    [row] = await auditedStatement(ctx, id, (audit) =>
      queryStatement<{ workspace_id: string }>(
        deps.db,
        endSessionStatement({ id, status: end.status, reason: end.reason, endedAt: now, endedById: endedById ?? null }, events, audit?.() ?? null),
      ),
    );
  } finally {
    if (!row) deps.events.putBack(id, events.slice(0, -1));
  }
  afterEnd(deps, id, end, row ? { events, workspaceId: row.workspace_id } : null);
  return row !== undefined;
}

/**
 * What follows an end's statement: when it ended the session (`ended`), its events (the waiting ones
 * it wrote, then its final one) and change are published and its node told; either way the browser
 * and every socket of the session close here.
 */
function afterEnd(
  deps: AppDeps,
  id: string,
  end: { status: SessionStatus; reason: EndReason },
  ended: { events: NewEvent[]; workspaceId: string } | null,
): void {
  // The session's sockets close now and the proxy refuses it from the recorded status; closing the
  // browser itself (~100 ms) need not hold up the caller.
  if (ended) void deps.events.published(ended.events);
  if (ended) void publishSessionChange(deps, id, ended.workspaceId);
  // The browser may run on another node: that node closes it.
  if (ended) deps.cluster?.sessionEnded(id, endMessage(end.status, end.reason));
  void deps.runtime
    .teardown(id, endMessage(end.status, end.reason), closeCodeForEnd(end.reason))
    .catch((err: unknown) => deps.log.warn({ err, sessionId: id }, "browser did not close cleanly"));
  if (ended) deps.log.info({ sessionId: id, status: end.status, reason: end.reason }, "session ended");
}

const endWords: Record<string, string> = {
  CLIENT_RELEASE: "it was released by its owner",
  FORCE_STOP: "it was stopped by a workspace admin",
  TIMEOUT: "it reached its time limit",
  IDLE_TIMEOUT: "nothing was connected to it for too long",
  BROWSER_CRASH: "its browser stopped unexpectedly",
  NODE_SHUTDOWN: "its server shut down",
  LAUNCH_FAILED: "its browser could not start",
  API_KEY_REVOKED: "the API key that started it was revoked",
  QUEUE_TIMEOUT: "it waited in the queue past its queue_timeout_seconds",
};

/** What a live viewer reads when the session ends under it. */
function endMessage(status: string, reason: EndReason): string {
  return `The session has ended: ${endWords[reason] ?? status.toLowerCase()}.`;
}

/** What the runtime reports (timeout, idle, crash) becomes the session's end. */
export function endFromRuntime(deps: AppDeps) {
  return (sessionId: string, cause: EndCause) => endSession(deps, sessionId, cause).then(() => undefined);
}

/** At start-up: sessions this node left live (it stopped without ending them) end with node_shutdown. */
export async function endOrphans(deps: AppDeps): Promise<number> {
  const orphans = await deps.db.prisma.session.findMany({ where: { nodeId: deps.nodeId, status: { in: live } }, select: { id: true } });
  for (const { id } of orphans) await endSession(deps, id, { status: "FAILED", reason: "NODE_SHUTDOWN" });
  return orphans.length;
}

/** Graceful stop: every session running here ends with node_shutdown before the browsers go. */
export async function endAllOnNode(deps: AppDeps): Promise<void> {
  await Promise.all(deps.runtime.ids().map((id) => endSession(deps, id, { status: "FAILED", reason: "NODE_SHUTDOWN" })));
}
