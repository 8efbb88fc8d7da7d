/** An RFC 9457 problem document as Vessel sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  request_id?: string;
  errors?: Array<{ field: string; message: string }>;
  [extension: string]: unknown;
}

/** Anything the client library throws. */
export class VesselError extends Error {
  override name = "VesselError";
}

/** The API answered with a problem: `slug` is the last part of its `type` (`rate-limited`, `not-found`…). */
export class VesselApiError extends VesselError {
  override name = "VesselApiError";
  readonly slug: string;
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${problem.title} (${status}): ${problem.detail ?? problem.type}`);
    this.slug = problem.type.split("/errors/")[1] ?? "unknown";
  }
}

export class AuthenticationError extends VesselApiError {
  override name = "AuthenticationError";
}
export class PermissionError extends VesselApiError {
  override name = "PermissionError";
}
export class NotFoundError extends VesselApiError {
  override name = "NotFoundError";
}
/** The request was refused as invalid; `field` names the first offending field when there is one. */
export class ValidationError extends VesselApiError {
  override name = "ValidationError";
  get field(): string | undefined {
    return this.problem.errors?.[0]?.field;
  }
}
export class UnknownRegionError extends VesselApiError {
  override name = "UnknownRegionError";
}
export class RateLimitError extends VesselApiError {
  override name = "RateLimitError";
  constructor(
    status: number,
    problem: Problem,
    /** Seconds the server asked to wait, when it said. */
    readonly retryAfter: number | undefined,
  ) {
    super(status, problem);
  }
}
export class InsufficientCapacityError extends VesselApiError {
  override name = "InsufficientCapacityError";
}
export class IdempotencyError extends VesselApiError {
  override name = "IdempotencyError";
}
export class ServerError extends VesselApiError {
  override name = "ServerError";
}

/** A wait (for a session to run, for a person to click Done) ran out. */
export class TimeoutError extends VesselError {
  override name = "TimeoutError";
}

/** A queued session (`queueTimeout`) ended TIMED_OUT `queue_timeout`: no browser freed in time. */
export class QueueTimeoutError extends TimeoutError {
  override name = "QueueTimeoutError";
  constructor(
    message: string,
    /** The session as it ended. */
    readonly session: { id: string; status: string; end_reason?: string | null },
  ) {
    super(message);
  }
}

/** The typed error for a problem answer. */
export function errorFor(status: number, problem: Problem, retryAfter: number | undefined): VesselApiError {
  const slug = problem.type.split("/errors/")[1] ?? "";
  if (slug === "rate-limited" || status === 429) return new RateLimitError(status, problem, retryAfter);
  if (slug === "unauthenticated") return new AuthenticationError(status, problem);
  if (slug === "forbidden") return new PermissionError(status, problem);
  if (slug === "not-found") return new NotFoundError(status, problem);
  if (slug === "unknown-region") return new UnknownRegionError(status, problem);
  if (slug === "insufficient-capacity") return new InsufficientCapacityError(status, problem);
  if (slug.startsWith("idempotency-key-")) return new IdempotencyError(status, problem);
  if (["validation-failed", "malformed-json", "payload-too-large", "unsupported-media-type"].includes(slug)) {
    return new ValidationError(status, problem);
  }
  if (status >= 500) return new ServerError(status, problem);
  return new VesselApiError(status, problem);
}
