import type { Session } from "../../generated/prisma/client.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { workspaceSessionsChannel } from "../session-events/session-events.ts";

/**
 * A workspace's sessions as their status changes (the dashboard's live list): each time one starts
 * or ends, on any node, its row as it is then. Nothing is replayed: read the list, then apply these.
 * Refuses (throws) before returning when the caller may not read the workspace's sessions.
 */
export async function followWorkspaceSessions(ctx: ServiceContext): Promise<AsyncIterableIterator<Session>> {
  const workspaceId = await actingWorkspace(ctx, "watch its sessions");
  const prisma = ctx.deps.db.prisma;
  const feed = new SessionFeed();
  feed.unsubscribe = ctx.deps.pubsub.subscribe(workspaceSessionsChannel(workspaceId), (sessionId) => {
    feed.arrive(prisma.session.findFirst({ where: { id: sessionId, workspaceId } }));
  });
  return feed;
}

/** Most changes held for a subscriber that does not read (it is far behind; the oldest go). */
const MAX_HELD = 500;

/**
 * Hand-written, like the session events feed: `return()` ends it at once, even while it waits.
 * Rows are read as changes arrive and delivered in arrival order.
 */
class SessionFeed implements AsyncIterableIterator<Session> {
  unsubscribe: () => void = () => {};
  private finished = false;
  private chain: Promise<void> = Promise.resolve();
  private ready: Session[] = [];
  private waiting: Array<(r: IteratorResult<Session>) => void> = [];

  arrive(read: Promise<Session | null>): void {
    if (this.finished) return;
    const settled = read.catch(() => null);
    this.chain = this.chain.then(async () => {
      const session = await settled;
      if (session) this.deliver(session);
    });
  }

  private deliver(session: Session): void {
    if (this.finished) return;
    const waiter = this.waiting.shift();
    if (waiter) return waiter({ value: session, done: false });
    this.ready.push(session);
    if (this.ready.length > MAX_HELD) this.ready.shift();
  }

  next(): Promise<IteratorResult<Session>> {
    const session = this.ready.shift();
    if (session) return Promise.resolve({ value: session, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<Session>> {
    if (!this.finished) {
      this.finished = true;
      this.ready = [];
      this.unsubscribe();
      for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Session> {
    return this;
  }
}
