/**
 * The audit trail (spec §2.4, §5.4; design "Audit"): one entry per authenticated call, denied ones
 * included. Mutations write their entry inside their own transaction (writeAuditInTx), so the change
 * and its entry commit or roll back together; reads and denials go through the batched AuditWriter,
 * which keeps request handling free of an extra insert per call.
 *
 * Ids are ULIDs from one monotonic generator, taken when the entry is recorded (not when a batch is
 * flushed), so ordering by id is the order calls were recorded in, and the list pages by id.
 * An id's time is never earlier than the entry's created_at; the `since` filter relies on this.
 *
 * No principals here: callers decide who may write or read; this module only stores and queries.
 */
import { encodeTime } from "ulid";
import { monotonicFactory } from "../ids.ts";
import { z } from "zod";
import { validationError } from "../errors.ts";
import { Prisma, type AuditEntry, type PrismaClient } from "../generated/prisma/client.ts";
import { createLogger, type Logger } from "../logger.ts";
import { PageQuery, isPlausibleId, pageWindow, pageOf, parseQuery } from "./pagination.ts";
import type { Page } from "./pagination.ts";
import { prismaErrorCode } from "./support.ts";

export interface AuditRecord {
  /** Null for organization-level actions (for example creating a workspace). */
  workspaceId: string | null;
  /** `vs_<ULID>` for API-key calls. Anything from a `.` on is cut off, so a whole key can never be stored. */
  keyPrefix: string | null;
  /** Null for API-key calls. */
  actorUserId: string | null;
  /** For example `session.create`. */
  action: string;
  target: string | null;
  httpStatus: number;
  requestId: string | null;
  ip: string | null;
  /** When the call happened; default: now. */
  at?: Date;
}

/** What reading and writing audit entries needs: the client, or a transaction's client. */
export type AuditDb = Pick<PrismaClient, "auditEntry" | "$executeRawUnsafe">;

/**
 * One statement per batch whatever its size: ten array parameters instead of rows × columns, so
 * the query has one shape (createMany built a new one per batch size and cost a fifth of the
 * throughput of a small authenticated call; see bench/auth).
 */
const insertBatchSql = `INSERT INTO "audit_entries"
  ("id", "workspace_id", "key_prefix", "actor_user_id", "action", "target", "http_status", "request_id", "ip", "created_at")
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::timestamptz[])
  ON CONFLICT ("id") DO NOTHING`;

type AuditRow = Prisma.AuditEntryCreateManyInput & { id: string; createdAt: Date };

const nextId = monotonicFactory();

/** A row ready to insert: id and time fixed now, whatever happens to it later. */
function toRow(r: AuditRecord): AuditRow {
  const at = r.at instanceof Date && Number.isFinite(r.at.getTime()) ? r.at : new Date();
  return {
    // Seeded with the entry's time and monotonic: the id's time is max(at, last id's time) ≥ at.
    id: nextId(at.getTime()),
    workspaceId: r.workspaceId,
    keyPrefix: r.keyPrefix === null ? null : stripSecret(r.keyPrefix),
    actorUserId: r.actorUserId,
    action: r.action,
    target: r.target,
    httpStatus: r.httpStatus,
    requestId: r.requestId,
    ip: r.ip,
    createdAt: at,
  };
}

/** `vs_<id>.<secret>` → `vs_<id>`: the audit log never holds a secret, even if a caller slips. */
function stripSecret(keyPrefix: string): string {
  const dot = keyPrefix.indexOf(".");
  return dot === -1 ? keyPrefix : keyPrefix.slice(0, dot);
}

/**
 * Writes an entry inside the caller's transaction: mutations write their entry atomically with the
 * change (it disappears if the transaction rolls back, and a failed write rolls the change back).
 */
export async function writeAuditInTx(tx: Prisma.TransactionClient | AuditDb, record: AuditRecord): Promise<void> {
  await tx.auditEntry.create({ data: toRow(record), select: { id: true } });
}

/**
 * The INSERT of one entry, to run as a part of the caller's own statement (a data-modifying CTE,
 * see audited.ts auditedStatement): the row writeAuditInTx would write, so the change and its entry
 * commit or fail together without a transaction around them. Plain SQL, valid on PGlite and
 * PostgreSQL; the id and time are fixed here, when the entry is recorded.
 */
export function auditInsertSql(record: AuditRecord, when?: Prisma.Sql): Prisma.Sql {
  const r = toRow(record);
  const values = Prisma.sql`${r.id}::text, ${r.workspaceId ?? null}::text, ${r.keyPrefix ?? null}::text, ${r.actorUserId ?? null}::text,
      ${r.action}::text, ${r.target ?? null}::text, ${r.httpStatus}::int, ${r.requestId ?? null}::text, ${r.ip ?? null}::text,
      ${r.createdAt}::timestamptz`;
  // `when`: the entry is written only if this condition (on the statement's other parts) holds.
  return Prisma.sql`INSERT INTO "audit_entries"
      ("id", "workspace_id", "key_prefix", "actor_user_id", "action", "target", "http_status", "request_id", "ip", "created_at")
    ${when ? Prisma.sql`SELECT ${values} WHERE ${when}` : Prisma.sql`VALUES (${values})`}`;
}

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
}

/**
 * Batched writer for reads and denials. enqueue() is synchronous and cheap; a flush runs every
 * flushIntervalMs or as soon as maxBatch entries wait; close() writes everything still queued.
 *
 * Failures never reach request handling. A failed insert is retried (retryDelaysMs) and logged. If
 * the database stays unreachable the batch goes back to the queue and is tried again later (backing
 * off up to 30 s), so nothing is lost while memory allows; past maxQueued new entries are refused
 * with an error log. A batch the database rejects for its content (say an entry for a workspace
 * deleted meanwhile) is written entry by entry, so one bad entry cannot hold the others back: an
 * entry whose actor user no longer exists is kept without the actor, one whose workspace is gone is
 * logged in full and dropped. If close() cannot reach the database, it logs every unwritten entry in
 * full rather than lose it silently.
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
        this.#log.error({ auditEntry: toRow(r) }, "audit writer is closed: entry not stored (logged here instead)");
        return;
      }
      if (this.pending >= this.#maxQueued) {
        this.#refuse();
        return;
      }
      this.#queue.push(toRow(r));
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
        this.#log.error(
          { count: lost.length },
          "audit writer closed with entries the database did not accept; they follow in the log",
        );
        for (let i = 0; i < lost.length; i += this.#maxBatch) {
          this.#log.error({ auditEntries: lost.slice(i, i + this.#maxBatch) }, "unstored audit entries");
        }
      }
    })();
    return this.#closing;
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
    const col = (k: keyof AuditRow) => batch.map((r) => r[k] ?? null);
    return this.#db.$executeRawUnsafe(
      insertBatchSql,
      col("id"), col("workspaceId"), col("keyPrefix"), col("actorUserId"), col("action"),
      col("target"), col("httpStatus"), col("requestId"), col("ip"),
      batch.map((r) => r.createdAt.toISOString()),
    );
  }

  /** After a batch was rejected for its content: each entry alone, so one bad entry cannot block the rest. */
  async #writeOneByOne(batch: AuditRow[]): Promise<AuditRow[]> {
    for (const [i, row] of batch.entries()) {
      try {
        await this.#db.auditEntry.createMany({ data: [row], skipDuplicates: true });
        continue;
      } catch (err) {
        this.#lastError = err;
        if (!isContentError(err)) return batch.slice(i);
        if (prismaErrorCode(err) === "P2003" && row.actorUserId != null) {
          // The actor user was deleted meanwhile: keep the entry as the foreign key's SET NULL would.
          try {
            await this.#db.auditEntry.createMany({ data: [{ ...row, actorUserId: null }], skipDuplicates: true });
            this.#log.warn({ auditEntryId: row.id, actorUserId: row.actorUserId }, "audit entry stored without its actor, who no longer exists");
            continue;
          } catch (retryErr) {
            this.#lastError = retryErr;
            if (!isContentError(retryErr)) return batch.slice(i);
            err = retryErr;
          }
        }
        this.#dropped++;
        this.#log.error({ err: errorSummary(err), auditEntry: row }, "audit entry rejected by the database: not stored (logged here instead)");
      }
    }
    return [];
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`AuditWriter: ${name} must be a positive number`);
  return value;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Errors about the rows themselves (foreign key, too long, null, bad value), not the connection. */
function isContentError(err: unknown): boolean {
  // A value of the wrong type is refused by Prisma before any query.
  if (err instanceof Error && err.name === "PrismaClientValidationError") return true;
  const code = prismaErrorCode(err);
  return code !== undefined && ["P2000", "P2003", "P2005", "P2006", "P2007", "P2011", "P2012", "P2019", "P2020"].includes(code);
}

/** Enough of an error to diagnose it, without the query's values. */
function errorSummary(err: unknown): { code?: string; message: string } {
  const code = prismaErrorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return code === undefined ? { message } : { code, message };
}

// ── Reading ────────────────────────────────────────────────────────────────────────────────────

const KEY_PREFIX = /^vs_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** `?limit&cursor&key_prefix&action&actor_user_id&since&until`. */
export const AuditQuery = PageQuery.extend({
  key_prefix: z
    .string({ error: "must be a string" })
    .regex(KEY_PREFIX, "must be an API key prefix: vs_ followed by the key's 26-character id (only the part left of the dot, never the secret)")
    .optional()
    .describe("Only calls made with this API key: its prefix `vs_<id>`."),
  action: z
    .string({ error: "must be a string" })
    .min(1, "cannot be empty")
    .max(100, "must be at most 100 characters")
    .optional()
    .describe("Only this action, for example `session.create`."),
  actor_user_id: z
    .string({ error: "must be a string" })
    .refine(isPlausibleId, "must be a user id")
    .optional()
    .describe("Only calls made by this dashboard user."),
  target: z
    .string({ error: "must be a string" })
    .min(1, "cannot be empty")
    .max(200, "must be at most 200 characters")
    .optional()
    .describe("Only calls on this resource, for example a session id or an API key id."),
  since: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time, for example 2026-01-31T12:00:00Z" })
    .optional()
    .describe("Only entries created at or after this time (inclusive)."),
  until: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time, for example 2026-01-31T12:00:00Z" })
    .optional()
    .describe("Only entries created before this time (exclusive)."),
});

export type AuditQueryParams = z.output<typeof AuditQuery>;

/** Parses a raw query string object; problems name `query.<field>`. */
export function parseAuditQuery(input: unknown): AuditQueryParams {
  return parseQuery(AuditQuery, input);
}

/**
 * One page of a workspace's audit log, newest first. Filters combine (all must hold). The query is
 * re-validated here, so a caller that built it by hand gets the same validation errors.
 */
export async function queryAuditEntries(db: AuditDb, workspaceId: string, q: AuditQueryParams): Promise<Page<AuditEntry>> {
  const query = parseAuditQuery(q);
  const since = query.since === undefined ? undefined : new Date(query.since);
  const until = query.until === undefined ? undefined : new Date(query.until);
  if (since && until && until.getTime() < since.getTime()) {
    throw validationError([{ field: "query.until", message: "must not be before since" }]);
  }
  const window = pageWindow(query, "desc");
  const id: Prisma.StringFilter = { ...window.idAfter };
  // An id's time is never earlier than its created_at, so entries since T have ids ≥ the first
  // ULID of T: this lets the (workspace_id, …, id) indexes stop at T instead of scanning on.
  if (since) id.gte = encodeTime(since.getTime()) + "0".repeat(16);

  const rows = await db.auditEntry.findMany({
    where: {
      workspaceId,
      ...(query.key_prefix === undefined ? {} : { keyPrefix: query.key_prefix }),
      ...(query.action === undefined ? {} : { action: query.action }),
      ...(query.actor_user_id === undefined ? {} : { actorUserId: query.actor_user_id }),
      ...(query.target === undefined ? {} : { target: query.target }),
      ...(since || until ? { createdAt: { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } } : {}),
      ...(Object.keys(id).length > 0 ? { id } : {}),
    },
    orderBy: window.orderBy,
    take: window.take,
  });
  return pageOf(rows, query.limit);
}

/** An audit entry on the wire. */
export const AuditEntryDto = z
  .object({
    id: z.string(),
    key_prefix: z.string().nullable().describe("`vs_<id>` of the API key that made the call; null for dashboard users."),
    actor_user_id: z.string().nullable().describe("The dashboard user who made the call; null for API keys."),
    action: z.string().describe("For example `session.create`."),
    target: z.string().nullable().describe("Identifier of the resource acted on."),
    http_status: z.number().int().describe("The status the call answered with; denied calls are recorded too."),
    request_id: z.string().nullable().describe("The request's id, as in the server log and problem documents."),
    ip: z.string().nullable().describe("The caller's address."),
    created_at: z.string().describe("ISO 8601."),
  })
  .meta({ id: "AuditEntry" });

export type AuditEntryDto = z.infer<typeof AuditEntryDto>;

/** The wire form of an entry: column by column, so a column added later stays out until chosen. */
export function auditDto(e: AuditEntry): AuditEntryDto {
  return {
    id: e.id,
    key_prefix: e.keyPrefix,
    actor_user_id: e.actorUserId,
    action: e.action,
    target: e.target,
    http_status: e.httpStatus,
    request_id: e.requestId,
    ip: e.ip,
    created_at: e.createdAt.toISOString(),
  };
}
