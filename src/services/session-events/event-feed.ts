// Reading a session's events: pages, long polls and live feeds (subscriptions), for any reader the
// session allows.
import { z } from "zod";
import { knownNameList } from "../../comma-list.ts";
import { AppError } from "../../errors.ts";
import { type Role, type Session } from "../../generated/prisma/client.ts";
import { requirePrincipal } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { isPlausibleId, MAX_PAGE_LIMIT } from "../../kernel/pagination.ts";
import { prismaOf } from "../../kernel/support.ts";
import {
  sessionEventTypes,
  type SessionEventType,
  finalTypes,
  MAX_WAIT_SECONDS,
  type SessionEventView,
  eventView,
  readEventMessage,
  channelOf,
} from "./session-events.ts";

// -------------------------------------------------------------------------------------------------
// Reading

export const typeList = knownNameList(sessionEventTypes, "event type", 400);

export const SessionEventQuery = z.object({
  after: z
    .string()
    .max(64)
    .refine(isPlausibleId, "must be an event id (the next_cursor of the previous answer)")
    .optional()
    .describe("Only events after this one: pass the previous answer's `next_cursor`. Omit it to read from the start."),
  type: typeList.optional().describe(`Only these types, comma-separated (${sessionEventTypes.join(", ")}).`),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .default(MAX_PAGE_LIMIT)
    .describe(`At most this many events (1–${MAX_PAGE_LIMIT}, default ${MAX_PAGE_LIMIT}).`),
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .default(0)
    .describe(`Long poll: when no event matches yet, hold the answer up to this many seconds (0–${MAX_WAIT_SECONDS}) until one does or the session ends.`),
});
export type SessionEventQuery = z.output<typeof SessionEventQuery>;

export interface EventPage {
  items: SessionEventView[];
  /** The last event's id, else the `after` given: what to pass as `after` next time. */
  nextCursor: string | null;
  hasMore: boolean;
}

/**
 * A session and the caller's standing in its workspace: an API key acts on its own workspace's
 * sessions ("KEY"), a dashboard user on those of workspaces they belong to (their role). Anything
 * else is indistinguishable from a missing session. Names the audit entry's target and workspace.
 */
export async function sessionAccess(ctx: ServiceContext, id: string): Promise<{ session: Session; role: "KEY" | Role }> {
  const principal = requirePrincipal(ctx);
  const session = isPlausibleId(id) ? await prismaOf(ctx).session.findUnique({ where: { id } }) : null;
  let role: "KEY" | Role | null = null;
  if (session && principal.kind === "apiKey" && session.workspaceId === principal.workspaceId) role = "KEY";
  if (session && principal.kind === "user") {
    const membership = await prismaOf(ctx).membership.findUnique({
      where: { workspaceId_userId: { workspaceId: session.workspaceId, userId: principal.userId } },
      select: { role: true },
    });
    role = membership?.role ?? null;
  }
  if (!session || !role) throw new AppError("not-found", "No session with this id in this workspace.");
  if (ctx.audit) {
    ctx.audit.target = id;
    if (principal.kind === "user") ctx.audit.workspaceId = session.workspaceId;
  }
  return { session, role };
}

/** The session whose events a caller may read (any member of its workspace, or its workspace's keys). */
export async function readableSession(ctx: ServiceContext, id: string): Promise<Session> {
  return (await sessionAccess(ctx, id)).session;
}

export async function readEvents(ctx: ServiceContext, sessionId: string, q: SessionEventQuery): Promise<EventPage> {
  const rows = await prismaOf(ctx).sessionEvent.findMany({
    where: { sessionId, ...(q.after ? { id: { gt: q.after } } : {}), ...(q.type ? { type: { in: q.type } } : {}) },
    orderBy: { id: "asc" },
    take: q.limit + 1,
  });
  const hasMore = rows.length > q.limit;
  const items = rows.slice(0, q.limit).map(eventView);
  return { items, hasMore, nextCursor: items.at(-1)?.id ?? q.after ?? null };
}

/**
 * A session's events in order. With `wait`, an empty answer is held until a matching event is
 * published (on any node), the session ends, or the wait runs out; `signal` ends it early (the client
 * went away). The database is always re-read, so a lost pub/sub message only costs the wait.
 */
export async function listSessionEvents(ctx: ServiceContext, sessionId: string, q: SessionEventQuery, signal?: AbortSignal): Promise<EventPage> {
  const session = await readableSession(ctx, sessionId);
  if (q.wait === 0) return readEvents(ctx, sessionId, q);
  let wake: () => void = () => {};
  let woken = false;
  // Subscribe before the first read, so an event written in between is not missed.
  const unsubscribe = ctx.deps.pubsub.subscribe(channelOf(sessionId), (message) => {
    const type = readEventMessage(message).type;
    if (!q.type || q.type.includes(type as SessionEventType) || finalTypes.has(type)) {
      woken = true;
      wake();
    }
  });
  try {
    let ended = !["PENDING", "RUNNING", "REQUEST_RELEASE"].includes(session.status);
    const deadline = Date.now() + q.wait * 1000;
    for (;;) {
      const page = await readEvents(ctx, sessionId, q);
      if (page.items.length > 0 || ended || Date.now() >= deadline || signal?.aborted) return page;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
        if (woken) done();
      });
      // A final event means one more read decides: nothing can match after it.
      if (woken) ended = await sessionEnded(ctx, sessionId);
      woken = false;
    }
  } finally {
    unsubscribe();
  }
}

export async function sessionEnded(ctx: ServiceContext, sessionId: string): Promise<boolean> {
  const s = await prismaOf(ctx).session.findUnique({ where: { id: sessionId }, select: { status: true } });
  return !s || !["PENDING", "RUNNING", "REQUEST_RELEASE"].includes(s.status);
}

/**
 * A live feed of a session's events (the GraphQL subscription): first what happened after `after`
 * (so a subscriber that resumes misses nothing), then each event as it is published, ending after
 * the session's final event. Refuses (throws) before returning when the caller may not read it.
 */
export async function followSessionEvents(
  ctx: ServiceContext,
  sessionId: string,
  opts: { after?: string; types?: SessionEventType[] },
): Promise<AsyncIterableIterator<SessionEventView>> {
  await readableSession(ctx, sessionId);
  const feed = new EventFeed(opts);
  feed.unsubscribe = ctx.deps.pubsub.subscribe(channelOf(sessionId), (message) => feed.arrive(readEventMessage(message)));
  try {
    for (let more = true; more && !feed.finished; ) {
      const page = await readEvents(ctx, sessionId, { after: feed.last, limit: MAX_PAGE_LIMIT, wait: 0 });
      for (const e of page.items) feed.accept(e);
      more = page.hasMore;
    }
  } catch (err) {
    feed.finish();
    throw err;
  }
  feed.caughtUp();
  return feed;
}

/**
 * A hand-written iterator rather than an async generator: a generator parked on "wait for the next
 * message" cannot run its cleanup until a message comes, so an unsubscribed client would keep its
 * channel open; `return()` here ends the feed at once.
 */
export class EventFeed implements AsyncIterableIterator<SessionEventView> {
  unsubscribe: () => void = () => {};
  last: string | undefined;
  finished = false;
  private catchingUp = true;
  private held: SessionEventView[] = [];
  private ready: SessionEventView[] = [];
  private waiting: Array<(r: IteratorResult<SessionEventView>) => void> = [];

  constructor(private readonly opts: { after?: string; types?: SessionEventType[] }) {
    this.last = opts.after;
  }

  /** A published event: held while the database is being read, then de-duplicated by id. */
  arrive(e: SessionEventView): void {
    if (this.catchingUp) this.held.push(e);
    else this.accept(e);
  }

  caughtUp(): void {
    this.catchingUp = false;
    for (const e of this.held.splice(0)) this.accept(e);
  }

  accept(e: SessionEventView): void {
    if (this.finished || (this.last !== undefined && e.id <= this.last)) return;
    this.last = e.id;
    if (!this.opts.types || this.opts.types.includes(e.type as SessionEventType)) {
      const waiter = this.waiting.shift();
      if (waiter) waiter({ value: e, done: false });
      else this.ready.push(e);
    }
    if (finalTypes.has(e.type)) this.finish();
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe();
    for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<SessionEventView>> {
    const e = this.ready.shift();
    if (e) return Promise.resolve({ value: e, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<SessionEventView>> {
    this.ready = [];
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SessionEventView> {
    return this;
  }
}
