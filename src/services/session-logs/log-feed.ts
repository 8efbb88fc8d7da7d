// A live feed of a session's log (the GraphQL subscription): what was written after `after`, then
// each entry as it is written, ending with the log.
import type { ServiceContext } from "../../kernel/context.ts";
import { sessionEnded } from "../session-events/event-feed.ts";
import { channelOf, finalTypes } from "../session-events/session-events.ts";
import { MAX_LOG_PAGE, logsChannel, readLogSignal, type SessionLogEntryView, type SessionLogType } from "./log-entries.ts";
import { logKeyOf, logReadableSession, defaultLogTypes, readLogPage } from "./log-reads.ts";

/** After a session ends on another node, its last entries are waited for at most this long. */
const LAST_WRITE_GRACE_MS = 4_000;
const live = ["PENDING", "RUNNING", "REQUEST_RELEASE"];

/**
 * Refuses (throws) before returning when the caller may not read the session. The feed reads the
 * database whenever the writing node signals more (pub/sub), so entries arrive in seq order and
 * none is missed; it completes once the session has ended and its last entries have been read.
 */
export async function followSessionLogs(
  ctx: ServiceContext,
  sessionId: string,
  opts: { after?: number; types?: SessionLogType[] },
): Promise<AsyncIterableIterator<SessionLogEntryView>> {
  const session = await logReadableSession(ctx, sessionId);
  const feed = new LogFeed(ctx, sessionId, opts.after ?? 0, opts.types ?? defaultLogTypes);
  const stopLogs = ctx.deps.pubsub.subscribe(logsChannel(sessionId), (message) => {
    if (readLogSignal(message).finished) feed.end();
    else feed.poke();
  });
  const stopEvents = ctx.deps.pubsub.subscribe(channelOf(sessionId), (message) => {
    if (finalTypes.has((JSON.parse(message) as { type?: string }).type ?? "")) void sessionOver(ctx, sessionId, feed);
  });
  feed.unsubscribe = () => {
    stopLogs();
    stopEvents();
  };
  try {
    await feed.pump();
  } catch (err) {
    feed.finish();
    throw err;
  }
  if (!live.includes(session.status) || !session.logs) {
    await ctx.deps.sessionLogs.settled(sessionId);
    feed.end();
  }
  return feed;
}

/** The session ended: the log ends once this node has written its last entries, or (another node's) after a grace. */
async function sessionOver(ctx: ServiceContext, sessionId: string, feed: LogFeed): Promise<void> {
  try {
    if (!(await sessionEnded(ctx, sessionId))) return;
    if (ctx.deps.sessionLogs.captures(sessionId)) {
      await ctx.deps.sessionLogs.settled(sessionId);
      feed.end();
    } else {
      setTimeout(() => feed.end(), LAST_WRITE_GRACE_MS).unref();
    }
  } catch {
    feed.end();
  }
}

/** A hand-written iterator (as EventFeed): `return()` ends it at once, whatever it waits for. */
export class LogFeed implements AsyncIterableIterator<SessionLogEntryView> {
  unsubscribe: () => void = () => {};
  finished = false;
  #key: Buffer | undefined;
  #pumping: Promise<void> | undefined;
  #again = false;
  #ending = false;
  #ready: SessionLogEntryView[] = [];
  #waiting: Array<(r: IteratorResult<SessionLogEntryView>) => void> = [];

  constructor(
    private readonly ctx: ServiceContext,
    private readonly sessionId: string,
    private last: number,
    private readonly types: SessionLogType[] | undefined,
  ) {}

  /** More was written: read it (after the read in progress, if any). */
  poke(): void {
    if (this.finished) return;
    if (this.#pumping) this.#again = true;
    else void this.pump().catch(() => this.finish());
  }

  /** The log is complete: one more read, then the feed ends. */
  end(): void {
    this.#ending = true;
    this.poke();
  }

  async pump(): Promise<void> {
    if (this.#pumping) return this.#pumping;
    this.#pumping = (async () => {
      do {
        this.#again = false;
        this.#key ??= await logKeyOf(this.ctx, this.sessionId);
        for (let more = true; more && !this.finished; ) {
          const page = await readLogPage(this.ctx, this.sessionId, this.#key, { after: this.last, types: this.types, limit: MAX_LOG_PAGE });
          for (const entry of page.items) this.#deliver(entry);
          more = page.hasMore;
        }
      } while (this.#again && !this.finished);
    })();
    try {
      await this.#pumping;
    } finally {
      this.#pumping = undefined;
    }
    if (this.#ending) this.finish();
  }

  #deliver(entry: SessionLogEntryView): void {
    if (this.finished || entry.seq <= this.last) return;
    this.last = entry.seq;
    const waiter = this.#waiting.shift();
    if (waiter) waiter({ value: entry, done: false });
    else this.#ready.push(entry);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe();
    for (const waiter of this.#waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<SessionLogEntryView>> {
    const entry = this.#ready.shift();
    if (entry) return Promise.resolve({ value: entry, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  return(): Promise<IteratorResult<SessionLogEntryView>> {
    this.#ready = [];
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SessionLogEntryView> {
    return this;
  }
}
