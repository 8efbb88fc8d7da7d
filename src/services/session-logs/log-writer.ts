// One session's log on the node that runs it: entries numbered as they are recorded, kept within
// the session's bounds, sealed and written in batches.
import { Prisma } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { executeStatement } from "../../kernel/support.ts";
import { isRefusedContent, noteSetAside, refusalOf, type SetAsideCounter } from "../../kernel/set-aside.ts";
import { sampleOf } from "../../kernel/stored-text.ts";
import { newLogKey, sealEntry } from "../../crypto/session-log-crypto.ts";
import { logsChannel, TRUNCATED, type LogSignal } from "./log-entries.ts";

/** Entries wait at most this long in memory before they are written. */
export const FLUSH_MS = 500;
/**
 * Entries per INSERT: a larger batch (a burst of CDP commands) takes several statements, with a turn
 * of the event loop between them. On the embedded database a statement runs in this thread (about
 * 10–25 µs per entry), so this bounds how long the CDP relay waits behind one.
 */
const ROWS_PER_STATEMENT = 500;
/** A batch that fails this many times in a row is dropped (the database is gone, or the session was deleted). */
const MAX_FAILURES = 3;
const DAY_MS = 24 * 3600 * 1000;

export type WriterDeps = Pick<AppDeps, "db" | "pubsub" | "log" | "masterKey" | "now"> & {
  config: Pick<AppDeps["config"], "logs">;
  /** Where set-aside entries are counted (`vessel_batch_entries_set_aside_total{writer="logs"}`). */
  setAside?: SetAsideCounter;
};

interface Pending {
  seq: number;
  type: string;
  at: Date;
  json: string;
}

/**
 * A session's log while it runs. `record` is cheap and synchronous (the CDP relay and the capture
 * call it): the entry is numbered, measured against the bounds (`config.logs.maxEntries`,
 * `maxBytes`: the last one that fits is a `logs.truncated` entry, then nothing more is kept) and
 * queued as JSON. Every FLUSH_MS, and once more when the session ends (`finish`), the queue is
 * sealed under the session's data key and written in one multi-row INSERT, together with the key
 * row (its counters upserted); then readers on every node are told (pub/sub). A statement refused
 * for an entry's content is written again entry by entry at once, the refused entry set aside
 * (kernel/set-aside.ts); any other failure is retried with the next write, MAX_FAILURES times.
 */
export class SessionLogWriter {
  #seq = 0;
  #bytes = 0;
  #truncated = false;
  #closed = false;
  #queue: Pending[] = [];
  #keyWritten = false;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();
  readonly #key: ReturnType<typeof newLogKey>;
  readonly #expiresAt: Date;
  readonly #createdAt: Date;
  /** Resolves once the last entries are written (or given up on), after `finish`. */
  readonly finished: Promise<void>;
  #finish!: () => void;

  constructor(
    private readonly deps: WriterDeps,
    readonly sessionId: string,
    private readonly workspaceId: string,
    startedAt: Date,
  ) {
    this.#key = newLogKey(deps.masterKey, sessionId);
    this.#createdAt = deps.now();
    this.#expiresAt = new Date(startedAt.getTime() + deps.config.logs.retentionDays * DAY_MS);
    this.finished = new Promise((resolve) => (this.#finish = resolve));
  }

  /** How many entries were recorded (the last seq). */
  get entries(): number {
    return this.#seq;
  }

  record(type: string, at: Date, data: Record<string, unknown>): void {
    if (this.#closed || this.#truncated) return;
    const { maxEntries, maxBytes } = this.deps.config.logs;
    const json = JSON.stringify(data);
    const size = Buffer.byteLength(json) + type.length;
    if (this.#seq + 1 >= maxEntries || this.#bytes + size > maxBytes) {
      this.#truncated = true;
      const reason = this.#seq + 1 >= maxEntries ? "max_entries" : "max_bytes";
      const marker = JSON.stringify({ reason, max_entries: maxEntries, max_bytes: maxBytes });
      this.#queue.push({ seq: ++this.#seq, type: TRUNCATED, at, json: marker });
      this.#bytes += marker.length + TRUNCATED.length;
    } else {
      this.#queue.push({ seq: ++this.#seq, type, at, json });
      this.#bytes += size;
    }
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.#timer.unref();
    }
  }

  /** Writes what is queued, after the writes before it. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const run = this.#chain.then(() => this.#write());
    this.#chain = run;
    return run;
  }

  /** The session ended: nothing more is recorded; the rest is written, and readers are told it was the last. */
  async finish(): Promise<void> {
    if (this.#closed) return this.finished;
    this.#closed = true;
    try {
      await this.flush();
      await this.#publish({ seq: this.#seq, finished: true });
    } finally {
      this.#key.dataKey.fill(0);
      this.#finish();
    }
  }

  async #write(): Promise<void> {
    // The key row is written with the first entries (or at the end, when there were none).
    if (this.#queue.length === 0 && (this.#keyWritten || !this.#closed)) return;
    const batch = this.#queue;
    this.#queue = [];
    const setAside = new Set<Pending>();
    try {
      for (let i = 0; i === 0 || i < batch.length; i += ROWS_PER_STATEMENT) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        const rows = batch.slice(i, i + ROWS_PER_STATEMENT);
        try {
          await executeStatement(this.deps.db, this.#statement(rows));
        } catch (err) {
          if (rows.length === 0 || !isRefusedContent(err)) throw err;
          await this.#eachAlone(rows, setAside);
        }
      }
      this.#keyWritten = true;
      this.#failures = 0;
    } catch (err) {
      // Kept for the next write unless it keeps failing (rows a statement before the failed one wrote
      // are skipped then); the entries themselves never reach the log.
      if (++this.#failures < MAX_FAILURES && !this.#closed) this.#queue = [...batch.filter((r) => !setAside.has(r)), ...this.#queue];
      this.deps.log.warn({ err, sessionId: this.sessionId, entries: batch.length, failures: this.#failures }, "could not write a session's log entries");
      return;
    }
    if (batch.length > 0) await this.#publish({ seq: batch.at(-1)!.seq });
  }

  /**
   * After a statement was refused for an entry's content: the key row alone (should the database
   * refuse that, the session's log cannot be written at all: the error goes up, as an outage's), then
   * each entry in its own statement, so one bad entry costs only itself: it is set aside, counted and
   * logged (never its data). Any other error goes up.
   */
  async #eachAlone(rows: Pending[], setAside: Set<Pending>): Promise<void> {
    await executeStatement(this.deps.db, this.#statement([]));
    for (const row of rows) {
      try {
        await executeStatement(this.deps.db, this.#statement([row]));
      } catch (err) {
        if (!isRefusedContent(err)) throw err;
        setAside.add(row);
        noteSetAside(
          { log: this.deps.log, counter: this.deps.setAside },
          "logs",
          "error",
          { sessionId: this.sessionId, seq: row.seq, type: sampleOf(row.type), refused: refusalOf(err) },
          "session log entry refused by the database: set aside, not stored",
        );
      }
    }
  }

  /**
   * The key row (inserted, or its counters brought up to date) and the entries, in one statement.
   * The entries go as four arrays (unnest) rather than a VALUES list of five parameters each: on the
   * embedded database, which runs in this process, that is about half the time per row.
   */
  #statement(rows: Pending[]): Prisma.Sql {
    const id = this.sessionId;
    const key = Prisma.sql`INSERT INTO "session_log_keys" ("session_id", "workspace_id", "wrapped_key", "master_key_id", "entries", "bytes", "truncated", "created_at", "expires_at")
      VALUES (${id}, ${this.workspaceId}, ${this.#key.wrappedKey}, ${this.#key.masterKeyId}, ${this.#seq}, ${this.#bytes}, ${this.#truncated}, ${this.#createdAt}::timestamptz, ${this.#expiresAt}::timestamptz)
      ON CONFLICT ("session_id") DO UPDATE SET "entries" = EXCLUDED."entries", "bytes" = EXCLUDED."bytes", "truncated" = EXCLUDED."truncated"`;
    if (rows.length === 0) return key;
    const seqs = rows.map((r) => r.seq);
    const types = rows.map((r) => r.type);
    const ats = rows.map((r) => r.at);
    // Sealed entries go as base64 text decoded by the database: the embedded database's own encoding
    // of a bytea parameter (hex, in JavaScript) took twice as long for a batch of 40 entries.
    const data = rows.map((r) => sealEntry(this.#key.dataKey, id, r.seq, r.json).toString("base64"));
    return Prisma.sql`WITH "key" AS (${key})
      INSERT INTO "session_log_entries" ("session_id", "seq", "type", "at", "data")
      SELECT ${id}, "u"."seq", "u"."type", "u"."at", decode("u"."data", 'base64')
      FROM unnest(${seqs}::int[], ${types}::text[], ${ats}::timestamptz[], ${data}::text[]) AS "u"("seq", "type", "at", "data")
      ON CONFLICT ("session_id", "seq") DO NOTHING`;
  }

  async #publish(signal: LogSignal): Promise<void> {
    await this.deps.pubsub.publish(logsChannel(this.sessionId), JSON.stringify(signal)).catch((err: unknown) => {
      this.deps.log.warn({ err, sessionId: this.sessionId }, "could not tell readers of a session's log");
    });
  }
}
