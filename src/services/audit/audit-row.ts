/**
 * One audit entry as it is stored: the record callers give, the row it becomes (id and time fixed
 * when the entry is recorded), and the statements that insert rows. Shared by the in-transaction
 * writes (writeAuditInTx, auditInsertSql) and the batched AuditWriter, so every path stores the
 * same columns the same way.
 *
 * Ids are ULIDs from one monotonic generator, taken when the entry is recorded (not when a batch is
 * flushed), so ordering by id is the order calls were recorded in, and the list pages by id.
 * An id's time is never earlier than the entry's created_at; the `since` filter relies on this.
 */
import { monotonicFactory } from "../../ids.ts";
import { Prisma, type PrismaClient } from "../../generated/prisma/client.ts";
import { clientRequestIdOf } from "../../request-id.ts";

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
  /** The server's own id of the request (as in its log and its answer's `X-Request-Id`). */
  requestId: string | null;
  /** The `X-Request-Id` the client sent, if acceptable (src/request-id.ts); never used as the request's id. */
  clientRequestId?: string | null;
  ip: string | null;
  /** When the call happened; default: now. */
  at?: Date;
}

/** What reading and writing audit entries needs: the client, or a transaction's client. */
export type AuditDb = Pick<PrismaClient, "auditEntry" | "$executeRawUnsafe">;

export type AuditRow = Prisma.AuditEntryCreateManyInput & { id: string; createdAt: Date };

/** The stored columns, in the order of the statements below. */
const columns = `"id", "workspace_id", "key_prefix", "actor_user_id", "action", "target", "http_status", "request_id", "client_request_id", "ip", "created_at"`;

/**
 * One statement per batch whatever its size: array parameters instead of rows × columns, so the
 * query has one shape (createMany built a new one per batch size and cost a fifth of the throughput
 * of a small authenticated call; see bench/auth). ON CONFLICT: an entry recovered from the journal
 * (audit-journal.ts) may have been stored already before the process died.
 */
export const insertBatchSql = `INSERT INTO "audit_entries" (${columns})
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[], $11::timestamptz[])
  ON CONFLICT ("id") DO NOTHING`;

/** The parameters of insertBatchSql for a batch: one array per column. */
export function batchParams(batch: readonly AuditRow[]): unknown[] {
  const col = (k: keyof AuditRow) => batch.map((r) => r[k] ?? null);
  return [
    col("id"),
    col("workspaceId"),
    col("keyPrefix"),
    col("actorUserId"),
    col("action"),
    col("target"),
    col("httpStatus"),
    col("requestId"),
    col("clientRequestId"),
    col("ip"),
    batch.map((r) => r.createdAt.toISOString()),
  ];
}

const nextId = monotonicFactory();

/** A row ready to insert: id and time fixed now, whatever happens to it later. */
export function toRow(r: AuditRecord): AuditRow {
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
    // Checked again here: whatever a caller passes, only an acceptable client id is stored.
    clientRequestId: clientRequestIdOf(r.clientRequestId),
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
      ${r.action}::text, ${r.target ?? null}::text, ${r.httpStatus}::int, ${r.requestId ?? null}::text, ${r.clientRequestId ?? null}::text,
      ${r.ip ?? null}::text, ${r.createdAt}::timestamptz`;
  // `when`: the entry is written only if this condition (on the statement's other parts) holds.
  return Prisma.sql`INSERT INTO "audit_entries" (${Prisma.raw(columns)})
    ${when ? Prisma.sql`SELECT ${values} WHERE ${when}` : Prisma.sql`VALUES (${values})`}`;
}
