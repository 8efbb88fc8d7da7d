// Session events that happen outside requests (viewers, CDP clients, downloads), batched into
// shared statements in the background.
import { Prisma } from "../../generated/prisma/client.ts";
import type { PubSub } from "../../pubsub.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { executeStatement } from "../../kernel/support.ts";
import { isRefusedContent, noteSetAside, refusalOf, type SetAsideCounter } from "../../kernel/set-aside.ts";
import { escapeUnstorableDeep, sampleOf } from "../../kernel/stored-text.ts";
import { type SessionEventType, type NewEvent, newEvent, type SessionEventView, eventView, insertEventsSql, publishEvents } from "./session-events.ts";

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
 *
 * One bad event never costs the others (kernel/set-aside.ts): data with text the database cannot
 * store is escaped as the event is recorded, and a statement refused for an event's content is
 * written again event by event, the refused one set aside (counted, logged once).
 */
export class EventRecorder {
  private readonly inFlight = new Set<Promise<void>>();
  /** Per session, the end of its chain of writes (dropped once the chain is idle). */
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Per session, background events waiting for the next batch, oldest first. */
  private readonly waiting = new Map<string, NewEvent[]>();
  private timer: NodeJS.Timeout | undefined;
  /** Told of every batch of events once written (webhooks queue their deliveries from here). */
  private readonly subscribers: Array<(events: SessionEventView[]) => void> = [];

  constructor(
    private readonly deps: Pick<AppDeps, "db" | "now" | "log"> & { pubsub: PubSub; setAside?: SetAsideCounter },
    private readonly batchMs = EVENT_BATCH_MS,
  ) {}

  /** Written now, after the session's waiting events (in the same statement); answers the event once written and published, or null. */
  record(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject = {}): Promise<SessionEventView | null> {
    const event = newEvent(sessionId, type, this.screened(sessionId, type, data), this.deps.now());
    return this.chain([sessionId], [...this.take(sessionId), event]).then((ok) => (ok ? eventView(event) : null));
  }

  /** Written within EVENT_BATCH_MS, with whatever else waits by then, or sooner with the session's next write. */
  later(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject = {}): void {
    const event = newEvent(sessionId, type, this.screened(sessionId, type, data), this.deps.now());
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

  /**
   * Hears every event this node writes, once written: the recorder's own and those a statement of
   * the caller's wrote (a session's start and end, through {@link published}). A subscriber must not throw.
   */
  subscribe(listener: (events: SessionEventView[]) => void): () => void {
    this.subscribers.push(listener);
    return () => {
      const at = this.subscribers.indexOf(listener);
      if (at >= 0) this.subscribers.splice(at, 1);
    };
  }

  /** After a statement of the caller's wrote these events: publishes them and tells the subscribers. */
  async published(events: NewEvent[]): Promise<void> {
    this.tell(events);
    await publishEvents(this.deps.pubsub, events, this.deps.log);
  }

  private tell(events: NewEvent[]): void {
    if (events.length === 0 || this.subscribers.length === 0) return;
    const views = events.map(eventView);
    for (const listener of this.subscribers) {
      try {
        listener(views);
      } catch (err) {
        this.deps.log.error({ err }, "a session-event subscriber failed");
      }
    }
  }

  /** One statement for `list`; answers its error, if any. */
  private async write(list: NewEvent[]): Promise<unknown> {
    try {
      await executeStatement(this.deps.db, insertEventsSql(list));
      return undefined;
    } catch (err) {
      return err ?? new Error("session event insert failed");
    }
  }

  /** Each event in its own statement, in order: those refused for their content are set aside; answers those written. */
  private async writeEachAlone(list: NewEvent[]): Promise<NewEvent[]> {
    const written: NewEvent[] = [];
    for (const [i, event] of list.entries()) {
      const err = await this.write([event]);
      if (err === undefined) written.push(event);
      else if (isRefusedContent(err)) this.setAside(event, err);
      else {
        this.deps.log.warn({ err, sessionId: event.sessionId, types: list.slice(i).map((e) => e.type) }, "could not record a session event");
        break;
      }
    }
    return written;
  }

  private setAside(event: NewEvent, err: unknown): void {
    noteSetAside(
      { log: this.deps.log, counter: this.deps.setAside },
      "events",
      "error",
      { sessionId: event.sessionId, eventId: event.id, type: sampleOf(event.type), refused: refusalOf(err) },
      "session event refused by the database: set aside, not stored",
    );
  }

  /**
   * The event's data with text the database cannot store (NUL, lone surrogates: a CDP client's
   * method name, a download's name) escaped, counted and logged as set aside: such an event would
   * be refused, and with it every event of its statement, the end of its session's included.
   */
  private screened(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject): Prisma.InputJsonObject {
    const { value, changed } = escapeUnstorableDeep(data);
    if (changed) {
      noteSetAside(
        { log: this.deps.log, counter: this.deps.setAside },
        "events",
        "warn",
        { sessionId, type },
        "session event set aside: its data holds text the database cannot store (NUL or a lone surrogate); stored with that text escaped",
      );
    }
    return value;
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
    // Answers whether the last event of `list` (a record()'s own) was written.
    const insert = async (list: NewEvent[]) => {
      const err = await this.write(list);
      if (err === undefined) {
        await this.published(list);
        return true;
      }
      if (!isRefusedContent(err)) {
        this.deps.log.warn({ err, sessionId: list[0]?.sessionId, types: list.map((e) => e.type) }, "could not record a session event");
        return false;
      }
      // Refused for an event's content: each alone, so one bad event does not cost the others.
      const written = list.length === 1 ? [] : await this.writeEachAlone(list);
      if (list.length === 1) this.setAside(list[0]!, err);
      if (written.length > 0) await this.published(written);
      return written.at(-1) === list.at(-1);
    };
    const run = async () => {
      if (!retryAlone || sessions.length === 1) return insert(events);
      // One statement for the batch; should it fail (a session gone meanwhile), each session's alone.
      const quiet = await executeStatement(this.deps.db, insertEventsSql(events)).then(
        () => true,
        () => false,
      );
      if (quiet) {
        await this.published(events);
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
