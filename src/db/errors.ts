import { AppError, validationError } from "../errors.ts";

/**
 * Whether an error means the database could not be reached (rather than that it refused a query):
 * PostgreSQL down or restarting, the network between us cut, the pool exhausted. Such a call is
 * answered 503 `service-unavailable` with Retry-After, never a 500: nothing is wrong with the request,
 * and every write is a transaction, so nothing of it was kept; retrying later is right.
 *
 * Prisma reports these as P1001 (cannot reach), P1002 (timed out), P1008 (operation timed out), P1017
 * (server closed the connection) and P2024 (no connection from the pool in time), or, through the
 * driver adapter, as a `driverAdapterError` whose cause is DatabaseNotReachable, ConnectionClosed,
 * SocketTimeout or TooManyConnections, or a PostgreSQL error of class 08 (connection exception) or
 * 57P (operator intervention: shutdown, crash recovery). Raw `pg` errors can surface unwrapped too.
 *
 * A database that is reachable but does not answer in time is unavailable as well (pg-timeouts.ts):
 * a statement the server cancelled at `statement_timeout` (57014), a query given up at its deadline
 * (the connection is dropped: "Connection terminated"), and a transaction Prisma could not start in
 * its wait or that ran out of its time (P2028 with those words; other P2028s are bugs, left as 500).
 */

const prismaCodes = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const adapterKinds = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const messages =
  /Connection terminated|connection timeout|Can't reach database server|Client has encountered a connection error|Connection closed|server closed the connection|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|canceling statement due to statement timeout|timeout exceeded when trying to connect/i;
const transactionTimeouts = /Unable to start a transaction in the given time|The timeout for this transaction was/i;

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 5) return false;
  const e = err as { code?: unknown; message?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown } } }; cause?: unknown };
  if (typeof e.code === "string" && (prismaCodes.has(e.code) || /^08...$|^57P0[1-3]$/.test(e.code))) return true;
  if (e.code === "P2028" && typeof e.message === "string" && transactionTimeouts.test(e.message)) return true;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause) {
    if (typeof cause.kind === "string" && adapterKinds.has(cause.kind)) return true;
    if (cause.kind === "postgres" && typeof cause.code === "string" && /^08...$|^57P0[1-3]$|^57014$/.test(cause.code)) return true;
  }
  if (typeof e.message === "string" && messages.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** The problem a call that could not reach the database answers with. */
export function databaseUnavailable(): AppError {
  return new AppError("service-unavailable", "The database is not reachable right now; retry shortly.", {}, { "Retry-After": "2" });
}

/**
 * Whether the database refused a value of the call (SQLSTATE class 22, data exception: 22021 a NUL
 * or a byte sequence that is no UTF-8, 22P05 `\u0000` in jsonb, 22001 too long, 22003 out of range,
 * 22P02 not of the type, …). The edge refuses the known kinds of such values, naming the field
 * (kernel/text.ts); one that slips past is still the request's fault, answered 400, never 500.
 * Prisma reports it as P2000 (too long) or P2020 (out of range), or carries the PostgreSQL code in its
 * driver adapter's cause; raw `pg` and PGlite errors carry the code themselves.
 */
export function isDataException(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 5) return false;
  const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown; originalCode?: unknown } } }; cause?: unknown };
  const classTwentyTwo = (code: unknown) => typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code);
  if (classTwentyTwo(e.code) || e.code === "P2000" || e.code === "P2020") return true;
  const cause = e.meta?.driverAdapterError?.cause;
  if (
    cause &&
    (classTwentyTwo(cause.originalCode) ||
      classTwentyTwo(cause.code) ||
      ["LengthMismatch", "ValueOutOfRange", "InvalidInputValue"].includes(cause.kind as string))
  )
    return true;
  return isDataException(e.cause, depth + 1);
}

/** The problem a call answers with when the database refused one of its values. */
export function unstorableInput(): AppError {
  return validationError([{ field: "input", message: "holds a value the database cannot store (for example a NUL character, or a number out of range)" }]);
}
