/**
 * The batched writer for reads and denials (spec §2.4; design "Audit"): mutations write their entry
 * in their own transaction (audit-row.ts writeAuditInTx); every other entry comes here, so request
 * handling costs no extra insert per call. With a journal (audit-journal.ts), each entry is also
 * appended to a file before the call's answer goes out, so a process killed before the batch is
 * written loses nothing: its next start writes what the journal holds.
 */
import { createLogger, type Logger } from "../../logger.ts";
import type { AuditJournal } from "./audit-journal.ts";
import { batchParams, insertBatchSql, toRow, type AuditDb, type AuditRecord, type AuditRow } from "./audit-row.ts";
import { screenRow, setAsideFields, writeEntryByEntry } from "./audit-set-aside.ts";
import { isDataException, noteSetAside, sqlStateOf, type SetAsideCounter } from "../../kernel/set-aside.ts";
import { prismaErrorCode } from "../../kernel/support.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";

export interface AuditWriterOptions {
  /** How long an entry may wait before its batch is written. Default 200 ms. */
  flushIntervalMs?: number;
  /** Entries per insert; reaching it starts a flush at once. Default 500. */
  maxBatch?: number;
  /** Default: a logger at level info on stdout. */
  log?: Logger;
  /** Beyond this many unwritten entries new ones are refused (and logged). Default 100 000. */
  maxQueued?: number;
  /** Pauses between the attempts of one batch; attempts = length + 1. Default [100, 500, 2000]. */
  retryDelaysMs?: number[];
  /** Where entries wait on disk until stored (servers have one; see audit-journal.ts). Its leftovers are written first. */
  journal?: AuditJournal;
  /** Where set-aside entries are counted (`vessel_batch_entries_set_aside_total{writer="audit"}`). */
  setAside?: SetAsideCounter;
}

/**
 * Batched writer for reads and denials. enqueue() is synchronous and cheap; a flush runs every
 * flushIntervalMs or as soon as maxBatch entries wait; close() writes everything still queued.
 *
 * Failures never reach request handling. A failed insert is retried (retryDelaysMs) and logged. If
 * the database stays unreachable the batch goes back to the queue and is tried again later (backing
 * off up to 30 s), so nothing is lost while memory allows; past maxQueued new entries are refused
 * with an error log. A batch the database rejects for its content is written entry by entry (at
 * once for a data exception, which no retry mends; after the retries for an integrity error, which
 * one may), so one bad entry cannot hold the others back: it is set aside (audit-set-aside.ts),
 * counted and logged once. Text the database cannot store (NUL, lone surrogates) is escaped before
 * the entry is journalled or queued. If close() cannot reach the database, it logs every unwritten
 * entry in full rather than lose it silently (and the journal keeps them for the next start).
 *
 * The flush timer is not unref()'d: a process with entries waiting stays up until they are written
 * (or until close()).
 */
export class AuditWriter {
  readonly #db: AuditDb;
  readonly #flushIntervalMs: number;
  readonly #maxBatch: number;
  readonly #maxQueued: number;
  readonly #retryDelaysMs: readonly number[];
  readonly #log: Logger;
  readonly #journal: AuditJournal | undefined;
  readonly #setAside: SetAsideCounter | undefined;

  #queue: AuditRow[] = [];
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;
  #failedRounds = 0;
  #dropped = 0;
  #refusedSinceLog = 0;
  #lastRefusalLog = 0;
  #lastError: unknown;
  #flushWaiting = false;

  constructor(prisma: PrismaClient | AuditDb, opts: AuditWriterOptions = {}) {
    this.#db = prisma;
    this.#flushIntervalMs = positive(opts.flushIntervalMs, 200, "flushIntervalMs");
    this.#maxBatch = positive(opts.maxBatch, 500, "maxBatch");
    this.#maxQueued = positive(opts.maxQueued, 100_000, "maxQueued");
    this.#retryDelaysMs = opts.retryDelaysMs ?? [100, 500, 2000];
    this.#log = opts.log ?? createLogger("info");
    this.#journal = opts.journal;
    this.#setAside = opts.setAside;
    const recovered = this.#journal?.recover() ?? [];
    // Lines a previous run left that cannot be read are set aside (the journal logged them); the
    // entries go the way new ones do, so one the database cannot store is escaped, not replayed forever.
    if (this.#journal?.unreadable) this.#setAside?.inc({ writer: "audit" }, this.#journal.unreadable);
    for (const row of recovered) this.#screen(row);
    if (recovered.length > 0) {
      this.#queue.push(...recovered);
      this.#arm(0);
    }
  }

  /** Entries not yet stored: queued, or in an insert that has not finished. */
  get pending(): number {
    return this.#queue.length + this.#inFlight;
  }

  /** Entries given up on since start: refused over maxQueued, rejected by the database, or after close(). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Records an entry for the next batch. Never throws and never waits. */
  enqueue(r: AuditRecord): void {
    try {
      if (this.#closed) {
        this.#dropped++;
        const row = toRow(r);
        screenRow(row);
        this.#log.error({ auditEntry: row }, "audit writer is closed: entry not stored (logged here instead)");
        return;
      }
      if (this.pending >= this.#maxQueued) {
        this.#refuse();
        return;
      }
      const row = toRow(r);
      this.#screen(row);
      // On disk before the caller answers: from here on a kill -9 cannot lose the entry.
      this.#journal?.append(row);
      this.#queue.push(row);
      // A full batch starts a flush at once, unless one is already waiting to run, or the database
      // is failing: then the back-off timer decides, so an outage is not hammered once per call.
      if (this.#queue.length >= this.#maxBatch && this.#failedRounds === 0) {
        if (!this.#flushWaiting) void this.flush();
      } else {
        this.#arm(this.#flushIntervalMs);
      }
    } catch (err) {
      this.#dropped++;
      this.#log.error({ err, action: r?.action }, "audit entry could not be recorded");
    }
  }

  /**
   * Writes every entry queued before the call (and any that arrive meanwhile). Resolves once they are
   * stored, or once the retries of a batch are spent (those entries stay queued); never rejects.
   */
  flush(): Promise<void> {
    this.#flushWaiting = true;
    const run = this.#chain.then(() => {
      this.#flushWaiting = false;
      return this.#drain();
    });
    this.#chain = run.catch(() => {});
    return this.#chain;
  }

  /** Stops accepting entries and writes everything queued. Safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      await this.flush();
      this.#disarm();
      if (this.#queue.length > 0) {
        const lost = this.#queue.splice(0);
        this.#dropped += lost.length;
        this.#log.error({ count: lost.length }, "audit writer closed with entries the database did not accept; they follow in the log");
        for (let i = 0; i < lost.length; i += this.#maxBatch) {
          this.#log.error({ auditEntries: lost.slice(i, i + this.#maxBatch) }, "unstored audit entries");
        }
        if (this.#journal) this.#log.warn({ count: lost.length, dir: this.#journal.dir }, "the audit journal keeps them: the next start writes them");
      }
      await this.#journal?.close();
    })();
    return this.#closing;
  }

  /** Escapes, in place, text of `row` the database cannot store (audit-screen.ts); counts and logs it as set aside. */
  #screen(row: AuditRow): void {
    const escaped = screenRow(row);
    if (escaped.length === 0) return;
    noteSetAside(
      { log: this.#log, counter: this.#setAside },
      "audit",
      "warn",
      { ...setAsideFields(row), escaped },
      "audit entry set aside: it holds text the database cannot store (NUL or a lone surrogate); stored with that text escaped",
    );
  }

  #arm(delayMs: number): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, delayMs);
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #refuse(): void {
    this.#dropped++;
    this.#refusedSinceLog++;
    const now = Date.now();
    if (now - this.#lastRefusalLog < 1000) return;
    this.#log.error(
      { refused: this.#refusedSinceLog, queued: this.pending, maxQueued: this.#maxQueued, droppedTotal: this.#dropped },
      "AUDIT ENTRIES DROPPED: the audit queue is full because the database has not accepted writes",
    );
    this.#lastRefusalLog = now;
    this.#refusedSinceLog = 0;
  }

  async #drain(): Promise<void> {
    this.#disarm();
    // Entries recorded from now on go to a new segment, so the ones this flush takes can be deleted with it.
    this.#journal?.rotate();
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#inFlight += batch.length;
      let unstored: AuditRow[];
      try {
        unstored = await this.#write(batch);
      } catch (err) {
        // #write handles database errors itself; this is a bug, and the entries are kept.
        this.#log.error({ err }, "audit flush failed unexpectedly");
        unstored = batch;
      } finally {
        this.#inFlight -= batch.length;
      }
      if (this.#journal) {
        const left = new Set(unstored);
        this.#journal.settled(batch.filter((row) => !left.has(row)));
      }
      if (unstored.length > 0) {
        this.#queue.unshift(...unstored);
        this.#failedRounds++;
        const retryInMs = Math.min(30_000, this.#flushIntervalMs * 2 ** Math.min(this.#failedRounds, 16));
        this.#log.error(
          { err: errorSummary(this.#lastError), pending: this.pending, retryInMs },
          "audit entries could not be stored; they stay queued and will be retried",
        );
        if (!this.#closed) this.#arm(retryInMs);
        return;
      }
      this.#failedRounds = 0;
    }
  }

  /** Stores a batch; answers the entries that still need storing (empty when done). */
  async #write(batch: AuditRow[]): Promise<AuditRow[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#insert(batch);
        if (attempt > 1) this.#log.info({ entries: batch.length, attempt }, "audit flush succeeded after retrying");
        return [];
      } catch (err) {
        this.#lastError = err;
        // Refused for an entry's content: the same entry would fail every retry, so at once entry by entry.
        if (isDataException(err)) break;
        const retryInMs = this.#retryDelaysMs[attempt - 1];
        if (retryInMs === undefined) break;
        this.#log.warn({ err: errorSummary(err), entries: batch.length, attempt, retryInMs }, "audit flush failed; retrying");
        await sleep(retryInMs);
      }
    }
    // Entry by entry through Prisma, which tells a bad entry (skipped or repaired) from an outage (kept queued).
    return this.#writeOneByOne(batch);
  }

  #insert(batch: AuditRow[]): Promise<number> {
    return this.#db.$executeRawUnsafe(insertBatchSql, ...batchParams(batch));
  }

  /** After a batch was rejected: each entry alone (audit-set-aside.ts), so one bad entry cannot block the rest. */
  #writeOneByOne(batch: AuditRow[]): Promise<AuditRow[]> {
    return writeEntryByEntry(batch, {
      db: this.#db,
      log: this.#log,
      counter: this.#setAside,
      failed: (err) => (this.#lastError = err),
      dropped: () => this.#dropped++,
    });
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`AuditWriter: ${name} must be a positive number`);
  return value;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Enough of an error to diagnose it, without the query's values. */
function errorSummary(err: unknown): { code?: string; message: string } {
  const code = sqlStateOf(err) ?? prismaErrorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return code === undefined ? { message } : { code, message };
}
