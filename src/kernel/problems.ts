import type { Request, Response } from "express";
import { databaseUnavailable, isDatabaseUnavailable, isDataException, unstorableInput } from "../db/errors.ts";
import { BrowserUnavailable, PoolFull, SessionHasBrowser } from "../browser/pool/errors.ts";
import { AppError, type ProblemSlug } from "../errors.ts";

/** The RFC 9457 body for an AppError. `instance` is the path only: query strings can carry tokens. */
export function problemBody(err: AppError, baseUrl: string, path: string, requestId: string): Record<string, unknown> {
  return {
    type: `${baseUrl}/errors/${err.slug}`,
    title: err.title,
    status: err.status,
    detail: err.detail,
    instance: path,
    request_id: requestId,
    ...err.extensions,
  };
}

export function sendProblem(req: Request, res: Response, err: AppError): void {
  const { baseUrl, requestId } = res.locals as { baseUrl: string; requestId: string };
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res
    .status(err.status)
    .type("application/problem+json")
    .send(JSON.stringify(problemBody(err, baseUrl, req.path, requestId)));
}

/** body-parser reports its failures with a `type`; map each to our problem. */
const bodyParserErrors: Record<string, (err: { limit?: number }) => AppError> = {
  "entity.parse.failed": () => new AppError("malformed-json", "The request body is not valid JSON."),
  "entity.too.large": (e) => new AppError("payload-too-large", `The request body exceeds the limit of ${e.limit ?? "the"} bytes.`),
  "encoding.unsupported": () => new AppError("unsupported-media-type", "The body's Content-Encoding is not supported."),
  "charset.unsupported": () => new AppError("unsupported-media-type", "The body's charset is not supported; use UTF-8."),
};

/**
 * Express's own parts refuse a bad request with an error carrying its 4xx `status`: the router when a
 * path parameter is not valid percent-encoding (`/errors/%E0%A4%A`, a URIError), serve-static for a
 * path it will not serve. That is the client's fault, said in the matching problem, never a 500.
 */
const statusProblems: Partial<Record<number, [ProblemSlug, string]>> = {
  400: ["malformed-request", "The request could not be read (for example a bad percent-encoding in its path)."],
  403: ["forbidden", "This path is not served."],
  404: ["not-found", "No resource lives at this path."],
  405: ["method-not-allowed", "The path does not accept this HTTP method."],
  408: ["request-timeout", "The request did not arrive whole in time."],
  413: ["payload-too-large", "The request body is larger than this operation accepts."],
  415: ["unsupported-media-type", "The request body's media type or encoding is not supported."],
  431: ["headers-too-large", "The request's headers are larger than this server reads."],
};

function clientFault(err: unknown): AppError | undefined {
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown } | null;
  const status = typeof e?.status === "number" ? e.status : e?.statusCode;
  // `expose: false` is http-errors' mark for a message not meant for the client; a 4xx never has it.
  if (typeof status !== "number" || status < 400 || status > 499 || e?.expose === false) return undefined;
  const [slug, detail] = statusProblems[status] ?? statusProblems[400]!;
  return new AppError(slug, detail);
}

/**
 * The problem each of the browser layer's errors answers with on every surface (the browser layer
 * knows no HTTP; REST, GraphQL, MCP, the cluster's placement and the CDP proxy all ask here):
 * a full node is 503 `insufficient-capacity` with Retry-After (placement tries another node on it),
 * a pool that cannot give a browser now is 503 `service-unavailable`, a second browser for a session 409.
 */
export function browserProblem(err: unknown): AppError | undefined {
  if (err instanceof PoolFull) return new AppError("insufficient-capacity", err.message, {}, { "Retry-After": String(err.retryAfterSeconds) });
  if (err instanceof BrowserUnavailable) return new AppError("service-unavailable", err.message);
  if (err instanceof SessionHasBrowser) return new AppError("conflict", err.message);
  return undefined;
}

/** An AppError as it is, a browser layer's error as its problem; undefined for anything else. */
export function knownProblem(err: unknown): AppError | undefined {
  return err instanceof AppError ? err : browserProblem(err);
}

/** Maps anything thrown to an AppError; unexpected faults become a bare 500 (details stay in the log). */
export function toAppError(err: unknown): { error: AppError; unexpected: boolean } {
  const known = knownProblem(err);
  if (known) return { error: known, unexpected: false };
  const type = (err as { type?: unknown })?.type;
  if (typeof type === "string" && bodyParserErrors[type]) return { error: bodyParserErrors[type](err as { limit?: number }), unexpected: false };
  const fault = clientFault(err);
  if (fault) return { error: fault, unexpected: false };
  // PostgreSQL unreachable: 503 with Retry-After (the call's transaction left nothing behind).
  if (isDatabaseUnavailable(err)) return { error: databaseUnavailable(), unexpected: false };
  // The database refused a value of the request (SQLSTATE class 22): the client's fault, 400.
  if (isDataException(err)) return { error: unstorableInput(), unexpected: false };
  return { error: new AppError("internal-error", "An unexpected error occurred. Quote the request_id when reporting it."), unexpected: true };
}
