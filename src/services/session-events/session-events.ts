import { monotonicFactory } from "../../ids.ts";
import { z } from "zod";
import { AppError } from "../../kernel/errors.ts";
import { Prisma, type Role, type Session, type SessionEvent } from "../../generated/prisma/client.ts";
import type { Logger } from "../../logger.ts";
import type { PubSub } from "../../pubsub.ts";
import { requirePrincipal } from "../../kernel/authz.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { isPlausibleId, MAX_PAGE_LIMIT } from "../../kernel/pagination.ts";
import { executeStatement, prismaOf } from "../../kernel/support.ts";

/** Everything that can happen to a session, in the order a reader sees it (event ids are ULIDs). */
export const sessionEventTypes = [
  "session.running", "session.released", "session.timed_out", "session.failed",
  "live_view.opened", "live_view.closed", "live_view.done",
  "cdp.connected", "cdp.disconnected",
  // The browser policy refused something: a CDP command (method, reason) or a connection (host, port, reason).
  "cdp.refused", "egress.refused",
  // A download (download_id, name, bytes): begun, finished, cancelled by the page or a client, or refused (reason).
  "download.started", "download.completed", "download.canceled", "download.refused",
] as const;
export type SessionEventType = (typeof sessionEventTypes)[number];

/** The events after which nothing more happens to a session. */
const finalTypes: ReadonlySet<string> = new Set(["session.released", "session.timed_out", "session.failed"]);

/** A long poll holds the request at most this long (spec: a waiting client needs no tight loop). */
export const MAX_WAIT_SECONDS = 30;

// Monotonic within this process, so two events of one session written in the same millisecond keep their order.
const nextUlid = monotonicFactory();

export interface NewEvent {
  id: string;
  sessionId: string;
  type: SessionEventType;
  data: Prisma.InputJsonObject;
  createdAt: Date;
}

export function newEvent(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject, at: Date): NewEvent {
  return { id: `evt_${nextUlid(at.getTime())}`, sessionId, type, data, createdAt: at };
}

export interface SessionEventDto {
  id: string;
  session_id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export function toEventDto(e: Pick<SessionEvent, "id" | "sessionId" | "type" | "createdAt" | "data"> | NewEvent): SessionEventDto {
  return {
    id: e.id,
    session_id: e.sessionId,
    type: e.type,
    created_at: e.createdAt.toISOString(),
    data: (e.data ?? {}) as Record<string, unknown>,
  };
}

const channelOf = (sessionId: string) => `session-events:${sessionId}`;

/**
 * The INSERT of events, as one plain statement (valid on PGlite and PostgreSQL); publish them with
 * {@link publishEvents} once it has run. Raw rather than Prisma's create: it returns nothing to map,
 * and on the embedded database each statement's preparation costs this process CPU.
 */
export function insertEventsSql(events: NewEvent[]): Prisma.Sql {
  const rows = events.map((e) => Prisma.sql`(${e.id}, ${e.sessionId}, ${e.type}, ${JSON.stringify(e.data)}::jsonb, ${e.createdAt}::timestamptz)`);
  return Prisma.sql`INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at") VALUES ${Prisma.join(rows)}`;
}

/** After the write: tells every node's waiting readers. Never throws (readers re-read the database anyway). */
export async function publishEvents(pubsub: PubSub, events: NewEvent[], log: Logger): Promise<void> {
  for (const e of events) {
    await pubsub.publish(channelOf(e.sessionId), JSON.stringify(toEventDto(e))).catch((err: unknown) => {
      log.warn({ err, sessionId: e.sessionId, type: e.type }, "could not publish a session event");
    });
  }
}

/** Where a workspace's live session lists hear that one of its sessions started or ended. */
export const workspaceSessionsChannel = (workspaceId: string) => `workspace-sessions:${workspaceId}`;

/**
 * After a session's status changed (it started or ended): tells every node's live session lists of
 * its workspace (the dashboard's `workspaceSessions` subscription), with the session's id. Never throws.
 */
export async function publishSessionChange(deps: Pick<AppDeps, "db" | "pubsub" | "log">, sessionId: string, workspaceId?: string): Promise<void> {
  try {
    const workspace = workspaceId ?? (await deps.db.prisma.session.findUnique({ where: { id: sessionId }, select: { workspaceId: true } }))?.workspaceId;
    if (workspace) await deps.pubsub.publish(workspaceSessionsChannel(workspace), sessionId);
  } catch (err) {
    deps.log.warn({ err, sessionId }, "could not publish a session's change to its workspace");
  }
}

/** How long a background event may wait for others to share its statement (see {@link EventRecorder.later}). */
export const EVENT_BATCH_MS = 200;

/**
 * Events that happen outside any request (viewers and CDP clients coming and going, Done clicks):
 * written and published in the background, so the socket that caused them never waits for the
 * database. A session's events are written and published one after the other, in the order they
 * were recorded (their ids' order): a reader paging with `after`, or a live feed that drops what is
 * older than the last event it delivered, never sees a later event before an earlier one (say a
 * client's cdp.disconnected before its cdp.connected).
 *
 * The chattiest events (`later`: CDP clients coming and going, refusals) wait up to EVENT_BATCH_MS
 * and share one statement, or ride along with the session's next write: its next `record`, or the
 * statement that ends it (`take`). Why: on the embedded database every statement costs this process
 * one to two milliseconds of CPU, and a client's connect, its first commands and its release come
 * within a few milliseconds of each other; a short session's connection events then cost no
 * statement of their own. `flush()` writes what waits and waits for the writes in flight (before the
 * database closes).
 */
export class EventRecorder {
  private readonly inFlight = new Set<Promise<void>>();
  /** Per session, the end of its chain of writes (dropped once the chain is idle). */
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Per session, background events waiting for the next batch, oldest first. */
  private readonly waiting = new Map<string, NewEvent[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: Pick<AppDeps, "db" | "now" | "log"> & { pubsub: PubSub },
    private readonly batchMs = EVENT_BATCH_MS,
  ) {}

  /** Written now, after the session's waiting events (in the same statement); answers the event once written and published, or null. */
  record(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject = {}): Promise<SessionEventDto | null> {
    const event = newEvent(sessionId, type, data, this.deps.now());
    return this.chain([sessionId], [...this.take(sessionId), event]).then((ok) => (ok ? toEventDto(event) : null));
  }

  /** Written within EVENT_BATCH_MS, with whatever else waits by then, or sooner with the session's next write. */
  later(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject = {}): void {
    const event = newEvent(sessionId, type, data, this.deps.now());
    const list = this.waiting.get(sessionId);
    if (list) list.push(event);
    else this.waiting.set(sessionId, [event]);
    this.timer ??= setTimeout(() => this.writeWaiting(), this.batchMs);
  }

  /**
   * Hands the session's waiting events to a statement of the caller's that writes them before its
   * own event (call `settled` first, so they land after the session's writes in flight). The caller
   * publishes them once its statement commits, or gives them back with `putBack` if it did not write them.
   */
  take(sessionId: string): NewEvent[] {
    const list = this.waiting.get(sessionId) ?? [];
    this.waiting.delete(sessionId);
    return list;
  }

  /** Resolves once the session's writes in flight have landed (at once when there are none). */
  async settled(sessionId: string): Promise<void> {
    await this.tails.get(sessionId);
  }

  /** Events `take` handed out that the caller's statement did not write: they wait again, ahead of newer ones. */
  putBack(sessionId: string, events: NewEvent[]): void {
    if (events.length === 0) return;
    this.waiting.set(sessionId, [...events, ...(this.waiting.get(sessionId) ?? [])]);
    this.timer ??= setTimeout(() => this.writeWaiting(), this.batchMs);
  }

  /** Writes what waits now, and waits for every write in flight. */
  async flush(): Promise<void> {
    this.writeWaiting();
    await Promise.all([...this.inFlight]);
  }

  /** Every session's waiting events, in one statement. */
  private writeWaiting(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const sessions = [...this.waiting.keys()];
    if (sessions.length === 0) return;
    const events = sessions.flatMap((id) => this.take(id));
    void this.chain(sessions, events, true);
  }

  /** Writes `events` (of `sessions`) after each session's earlier writes, then publishes them; resolves false if they could not be written. */
  private chain(sessions: string[], events: NewEvent[], retryAlone = false): Promise<boolean> {
    const before = sessions.map((id) => this.tails.get(id)).filter((p) => p !== undefined);
    const insert = async (list: NewEvent[]) => {
      try {
        await executeStatement(this.deps.db, insertEventsSql(list));
      } catch (err) {
        this.deps.log.warn({ err, sessionId: list[0]?.sessionId, types: list.map((e) => e.type) }, "could not record a session event");
        return false;
      }
      await publishEvents(this.deps.pubsub, list, this.deps.log);
      return true;
    };
    const run = async () => {
      if (!retryAlone || sessions.length === 1) return insert(events);
      // One statement for the batch; should it fail (a session gone meanwhile), each session's alone.
      const quiet = await executeStatement(this.deps.db, insertEventsSql(events)).then(() => true, () => false);
      if (quiet) {
        await publishEvents(this.deps.pubsub, events, this.deps.log);
        return true;
      }
      for (const id of sessions) await insert(events.filter((e) => e.sessionId === id));
      return true;
    };
    const write: Promise<boolean> = before.length > 0 ? Promise.all(before).then(run) : run();
    for (const id of sessions) this.tails.set(id, write);
    const tracked = write.then(() => {
      for (const id of sessions) if (this.tails.get(id) === write) this.tails.delete(id);
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
    return write;
  }
}

// -------------------------------------------------------------------------------------------------
// Reading

const typeList = z
  .string()
  .max(400)
  .transform((s, ctx) => {
    const types = s.split(",").map((t) => t.trim()).filter(Boolean);
    const unknown = types.filter((t) => !(sessionEventTypes as readonly string[]).includes(t));
    if (unknown.length > 0) {
      ctx.addIssue({ code: "custom", message: `unknown event type ${unknown.join(", ")}; known: ${sessionEventTypes.join(", ")}` });
      return z.NEVER;
    }
    return types as SessionEventType[];
  });

export const SessionEventQuery = z.object({
  after: z
    .string()
    .max(64)
    .refine(isPlausibleId, "must be an event id (the next_cursor of the previous answer)")
    .optional()
    .describe("Only events after this one: pass the previous answer's `next_cursor`. Omit it to read from the start."),
  type: typeList.optional().describe(`Only these types, comma-separated (${sessionEventTypes.join(", ")}).`),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(MAX_PAGE_LIMIT).describe(`At most this many events (1–${MAX_PAGE_LIMIT}, default ${MAX_PAGE_LIMIT}).`),
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
  items: SessionEventDto[];
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

async function readEvents(ctx: ServiceContext, sessionId: string, q: SessionEventQuery): Promise<EventPage> {
  const rows = await prismaOf(ctx).sessionEvent.findMany({
    where: { sessionId, ...(q.after ? { id: { gt: q.after } } : {}), ...(q.type ? { type: { in: q.type } } : {}) },
    orderBy: { id: "asc" },
    take: q.limit + 1,
  });
  const hasMore = rows.length > q.limit;
  const items = rows.slice(0, q.limit).map(toEventDto);
  return { items, hasMore, nextCursor: items.at(-1)?.id ?? q.after ?? null };
}

/**
 * A session's events in order. With `wait`, an empty answer is held until a matching event is
 * published (on any node), the session ends, or the wait runs out; `signal` ends it early (the client
 * went away). The database is always re-read, so a lost pub/sub message only costs the wait.
 */
export async function listSessionEvents(
  ctx: ServiceContext,
  sessionId: string,
  q: SessionEventQuery,
  signal?: AbortSignal,
): Promise<EventPage> {
  const session = await readableSession(ctx, sessionId);
  if (q.wait === 0) return readEvents(ctx, sessionId, q);
  let wake: () => void = () => {};
  let woken = false;
  // Subscribe before the first read, so an event written in between is not missed.
  const unsubscribe = ctx.deps.pubsub.subscribe(channelOf(sessionId), (message) => {
    const type = (JSON.parse(message) as SessionEventDto).type;
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

async function sessionEnded(ctx: ServiceContext, sessionId: string): Promise<boolean> {
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
): Promise<AsyncIterableIterator<SessionEventDto>> {
  await readableSession(ctx, sessionId);
  const feed = new EventFeed(opts);
  feed.unsubscribe = ctx.deps.pubsub.subscribe(channelOf(sessionId), (message) => feed.arrive(JSON.parse(message) as SessionEventDto));
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
class EventFeed implements AsyncIterableIterator<SessionEventDto> {
  unsubscribe: () => void = () => {};
  last: string | undefined;
  finished = false;
  private catchingUp = true;
  private held: SessionEventDto[] = [];
  private ready: SessionEventDto[] = [];
  private waiting: Array<(r: IteratorResult<SessionEventDto>) => void> = [];

  constructor(private readonly opts: { after?: string; types?: SessionEventType[] }) {
    this.last = opts.after;
  }

  /** A published event: held while the database is being read, then de-duplicated by id. */
  arrive(e: SessionEventDto): void {
    if (this.catchingUp) this.held.push(e);
    else this.accept(e);
  }

  caughtUp(): void {
    this.catchingUp = false;
    for (const e of this.held.splice(0)) this.accept(e);
  }

  accept(e: SessionEventDto): void {
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

  next(): Promise<IteratorResult<SessionEventDto>> {
    const e = this.ready.shift();
    if (e) return Promise.resolve({ value: e, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  return(): Promise<IteratorResult<SessionEventDto>> {
    this.ready = [];
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SessionEventDto> {
    return this;
  }
}
