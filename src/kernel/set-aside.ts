/**
 * The batch writers (audit entries, session logs, session events, webhook deliveries) store many
 * entries per statement. An entry the database refuses for a reason of its own (its content, not
 * the connection) must never hold back the others: it is set aside, counted in
 * `vessel_batch_entries_set_aside_total{writer}` and logged once, and the writer goes on. Errors
 * that are not about the entries (connection lost, timeouts, serialization failures, a missing
 * table) are retried as each writer does.
 *
 * How a refusal is told apart: PostgreSQL's SQLSTATE, which reaches us three ways: on the error
 * itself (PGlite and `pg`, the embedded database's direct statements), inside a Prisma error's
 * `meta.driverAdapterError.cause` (raw statements through the driver adapter: P2010, P2039, …), or
 * as one of Prisma's own codes for the same cases (P2003 foreign key, P2000 too long, …).
 */
import type { Logger } from "../logger.ts";
import { batchWriters, type BatchWriter } from "../metrics.ts";

// The writers that set entries aside are the `writer` label of the counter, so the metrics (beneath the kernel) name them.
export { batchWriters, type BatchWriter };

/** Where set-aside entries are counted (the Prometheus counter, or a test's stand-in). */
export interface SetAsideCounter {
  inc(labels: { writer: BatchWriter }, value?: number): void;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Prisma's own code (P2003…), as kernel/support.ts prismaErrorCode reads it: this file cannot
 * import that one, since support.ts imports the kernel's context.
 */
function prismaErrorCode(err: unknown): string | undefined {
  const code = typeof err === "object" && err !== null && "code" in err ? (err as { code: unknown }).code : undefined;
  return typeof code === "string" && /^P\d{4}$/.test(code) ? code : undefined;
}

/** The SQLSTATE of a database error, however it was wrapped; undefined for anything else. */
export function sqlStateOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { name?: unknown; code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } }; cause?: unknown };
  const cause = e.meta?.driverAdapterError?.cause;
  for (const code of [cause?.originalCode, cause?.code]) if (typeof code === "string" && SQLSTATE.test(code)) return code;
  // A Prisma error's own code (P2010) has the SQLSTATE's shape but is not one.
  if (typeof e.name === "string" && e.name.startsWith("PrismaClient")) return undefined;
  if (typeof e.code === "string" && SQLSTATE.test(e.code)) return e.code;
  return e.cause !== undefined && e.cause !== err ? sqlStateOf(e.cause) : undefined;
}

/**
 * A data exception (SQLSTATE class 22: a NUL byte, a value out of range, an invalid escape…), or a
 * value Prisma refused before sending anything: the same entry fails the same way every time, so
 * retrying it only delays the entries behind it. Writers split the batch at once.
 */
export function isDataException(err: unknown): boolean {
  if (err instanceof Error && err.name === "PrismaClientValidationError") return true;
  return sqlStateOf(err)?.startsWith("22") ?? false;
}

/** Prisma's codes for a row refused for its content (too long, foreign key, null, bad value, out of range). */
const CONTENT_CODES = new Set(["P2000", "P2003", "P2005", "P2006", "P2007", "P2011", "P2012", "P2019", "P2020"]);

/**
 * An error about the entries themselves: a data exception, or an integrity violation (class 23: a
 * foreign key whose row is gone, a null, a check). Such an entry is set aside, never retried forever.
 * An integrity violation may be passing (a workspace created a moment later), so writers that retry
 * do so first; a data exception never is.
 */
export function isRefusedContent(err: unknown): boolean {
  if (isDataException(err)) return true;
  const code = prismaErrorCode(err);
  if (code !== undefined && CONTENT_CODES.has(code)) return true;
  return sqlStateOf(err)?.startsWith("23") ?? false;
}

/** Why the database refused, for the log line: the SQLSTATE (or Prisma code) and the first line of its message, short. */
export function refusalOf(err: unknown): { code?: string; reason: string } {
  const code = sqlStateOf(err) ?? prismaErrorCode(err);
  const e = err as { meta?: { driverAdapterError?: { cause?: { originalMessage?: unknown } } } } | undefined;
  const driverMessage = e?.meta?.driverAdapterError?.cause?.originalMessage;
  const message = typeof driverMessage === "string" ? driverMessage : err instanceof Error ? (err.message.trim().split("\n").at(-1) ?? "") : String(err);
  // A message can quote the refused value (`invalid input syntax for type integer: "…"`): kept short.
  const reason = message.length > 160 ? `${message.slice(0, 160)}…` : message;
  return code === undefined ? { reason } : { code, reason };
}

/**
 * Counts one set-aside entry and writes its one log line: `fields` name the entry (its id, the
 * request's id, the session) and never hold its refused value in full.
 */
export function noteSetAside(
  to: { log: Pick<Logger, "warn" | "error">; counter?: SetAsideCounter | undefined },
  writer: BatchWriter,
  level: "warn" | "error",
  fields: Record<string, unknown>,
  msg: string,
): void {
  try {
    to.counter?.inc({ writer });
  } finally {
    to.log[level]({ setAside: writer, ...fields }, msg);
  }
}
