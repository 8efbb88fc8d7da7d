import type { IncomingMessage } from "node:http";

/**
 * Request ids. Every request gets the server's own id (a ULID): it is the one in the log, in the
 * `X-Request-Id` answer header, in problem documents and in the audit log's `request_id`. A client
 * may send its own `X-Request-Id` to correlate with its logs; it is never trusted as the id (a
 * client could otherwise reuse another request's id and blur the audit trail), only kept beside it
 * as `client_request_id`.
 *
 * A client id is kept only if it is 1–128 characters of letters, digits and `. _ : + / = -`,
 * starting with a letter or digit (UUIDs, ULIDs, hex trace ids, base64): nothing that can break a
 * log line, a header or a CSV cell (a leading `=` or `-` is a spreadsheet formula). Anything else
 * is dropped, not refused: the id is a convenience for the client, never a reason to fail its call.
 */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:+/=-]{0,127}$/;

/** The client's own request id if it is acceptable, otherwise null. */
export function clientRequestIdOf(value: unknown): string | null {
  return typeof value === "string" && CLIENT_REQUEST_ID.test(value) ? value : null;
}

/**
 * The ids the HTTP middleware gave a request (src/app.ts puts them in `res.locals`). A request that
 * did not pass through it (a WebSocket's connection_init) has none.
 */
export function requestIdsOf(req: IncomingMessage): { requestId: string | null; clientRequestId: string | null } {
  const locals = (req as IncomingMessage & { res?: { locals?: Record<string, unknown> } }).res?.locals;
  const requestId = locals?.requestId;
  return {
    requestId: typeof requestId === "string" ? requestId : null,
    clientRequestId: clientRequestIdOf(locals?.clientRequestId),
  };
}
