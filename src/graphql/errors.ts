import { GraphQLError } from "graphql";
import { databaseUnavailable, isDatabaseUnavailable, isDataException, unstorableInput } from "../db/errors.ts";
import { AppError } from "../errors.ts";
import { browserProblem, knownProblem } from "../kernel/problems.ts";

/**
 * Expected failures (AppError) reach the client with a stable `code`; anything else is masked,
 * so no stack, SQL or path ever leaves the server. Yoga logs the original of masked errors.
 */
export function maskError(error: unknown, message: string): Error {
  const raw = error instanceof GraphQLError ? error.originalError : error;
  const original = isDatabaseUnavailable(raw) ? databaseUnavailable() : isDataException(raw) ? unstorableInput() : (browserProblem(raw) ?? raw);
  if (original instanceof AppError) {
    const path = error instanceof GraphQLError ? error.path : undefined;
    // An outage answers like REST: HTTP 503 with Retry-After (Yoga applies `http` and strips it from the body).
    const http = original.slug === "service-unavailable" ? { http: { status: 503, headers: original.headers } } : {};
    return new GraphQLError(original.detail, {
      path,
      extensions: { code: original.code, status: original.status, ...original.extensions, ...http },
    });
  }
  if (error instanceof GraphQLError && !error.originalError) return error; // parse/validation errors are safe to show
  // A value of the wrong type for an argument or a variable (`String cannot represent a non string
  // value: 42`): GraphQL's coercion wraps its own error. The caller's mistake, said as such.
  if (error instanceof GraphQLError && error.originalError instanceof GraphQLError) {
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { ...error.extensions, code: "VALIDATION_FAILED", status: 400 },
    });
  }
  const path = error instanceof GraphQLError ? error.path : undefined;
  return new GraphQLError(message, { path, extensions: { code: "INTERNAL_SERVER_ERROR" } });
}

/**
 * The status of a client's error (an AppError below 500, wrapped or not), or null for anything else.
 * Yoga hands what it masks to its logger's `error`: a caller's mistake (not found, validation, signed
 * out) is not the server's, so the log takes it at debug, without a stack; only the rest is an error.
 */
export function clientErrorStatus(error: unknown): number | null {
  // GraphQL's own refusals (a variable's value not of its type, `"released"` for an enum): maskError answers them 400.
  if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) return 400;
  const raw = error instanceof GraphQLError ? error.originalError : error;
  const known = knownProblem(raw);
  if (known && known.status < 500) return known.status;
  return null;
}
