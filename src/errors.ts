/**
 * Transport-neutral errors. Services throw AppError with a slug from this catalogue; the REST layer
 * turns it into an RFC 9457 problem document (`type` = {base_url}/errors/<slug>), GraphQL into an
 * error with a stable `code`. GET /errors/<slug> serves the description as a short human page.
 */
export const problemTypes = {
  "validation-failed": {
    status: 400,
    title: "Validation failed",
    description: "The request did not match the operation's schema. The `errors` member lists each field and what is wrong with it.",
  },
  "malformed-json": {
    status: 400,
    title: "Malformed JSON",
    description: "The request body could not be parsed as JSON. Check quoting, commas and the Content-Type header.",
  },
  "malformed-request": {
    status: 400,
    title: "Malformed request",
    description:
      "The request could not be read: its request line, a header, or its address (for example a bad percent-encoding in the path, " +
      "or an absolute URL that is not one). Nothing was done; fix the request rather than retrying it.",
  },
  "request-timeout": {
    status: 408,
    title: "Request timeout",
    description: "The request's headers or body did not arrive in time, and the connection was closed. Retrying is safe.",
  },
  "expectation-failed": {
    status: 417,
    title: "Expectation failed",
    description: "The request's `Expect` header asks for something other than `100-continue`, the only expectation this server meets.",
  },
  "headers-too-large": {
    status: 431,
    title: "Request headers too large",
    description: "The request's headers together are larger than this server reads (16 KiB). Send fewer or smaller headers (cookies included).",
  },
  "idempotency-key-missing": {
    status: 400,
    title: "Idempotency-Key missing",
    description: "Creating a session needs an `Idempotency-Key` header: a UUID you generate once per logical request and reuse on its retries.",
  },
  "idempotency-key-invalid": {
    status: 400,
    title: "Idempotency-Key invalid",
    description: "The `Idempotency-Key` header must be a UUID.",
  },
  unauthenticated: {
    status: 401,
    title: "Unauthenticated",
    description: "The request carries no valid credential. Send `Authorization: Bearer <API key>`; a revoked key is refused.",
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    description: "The credential is valid but does not allow this action (for example an API key calling a dashboard-only operation).",
  },
  "not-found": {
    status: 404,
    title: "Not found",
    description: "No such resource, or it belongs to another workspace. Unknown paths answer with this problem too.",
  },
  "method-not-allowed": {
    status: 405,
    title: "Method not allowed",
    description: "The path exists but does not accept this HTTP method. The `Allow` header lists the methods it accepts.",
  },
  conflict: {
    status: 409,
    title: "Conflict",
    description: "The request conflicts with the current state of the resource.",
  },
  "last-owner": {
    status: 409,
    title: "Last owner",
    description: "A workspace always keeps at least one owner. Make another member an owner before demoting or removing this one.",
  },
  gone: {
    status: 410,
    title: "Gone",
    description: "This operation was deprecated and has passed its sunset date. The `Link` header of earlier answers named its successor.",
  },
  "recording-not-ready": {
    status: 409,
    title: "Recording not ready",
    description:
      "The session's recording is still being made: the session runs, or it has just ended and its video is being encoded and stored. " +
      "Retry after `Retry-After` seconds; `recording.ready` in the session's events says when it can be fetched.",
  },
  "range-not-satisfiable": {
    status: 416,
    title: "Range not satisfiable",
    description: "The `Range` header asks for bytes beyond the end of the resource. `Content-Range: bytes */<size>` gives its size.",
  },
  "idempotency-key-in-use": {
    status: 409,
    title: "Idempotency-Key in use",
    description: "A request with this `Idempotency-Key` is still being processed. Retry after `Retry-After` seconds to get its result.",
  },
  "payload-too-large": {
    status: 413,
    title: "Payload too large",
    description: "The request body is larger than this operation accepts.",
  },
  "too-many-files": {
    status: 413,
    title: "Too many files",
    description:
      "The session already holds as many uploaded files as it may (`VESSEL_UPLOAD_MAX_FILES`, 200 by default), counting uploads still " +
      "in progress. Nothing was stored.",
  },
  "profile-too-large": {
    status: 413,
    title: "Profile too large",
    description:
      "The profile (its cookies, localStorage and sessionStorage as a profile document) is larger than this deployment allows " +
      "(`VESSEL_PROFILE_MAX_BYTES`). The detail gives both sizes. Nothing was stored; clear what the sites do not need, or raise the limit.",
  },
  "unsupported-media-type": {
    status: 415,
    title: "Unsupported media type",
    description: "Request bodies must be JSON, sent with `Content-Type: application/json`.",
  },
  "unknown-region": {
    status: 422,
    title: "Unknown region",
    description: "The region is not one this deployment serves. `GET /v1/health` lists the available regions.",
  },
  "webhook-address-refused": {
    status: 422,
    title: "Webhook address refused",
    description:
      "Deliveries to this URL would be refused: its host is (or resolves only to) a loopback, private, link-local or other non-public " +
      "address, or this server itself. `VESSEL_WEBHOOK_ALLOW` on the server opens addresses and host names for webhooks (for local " +
      "development: `VESSEL_WEBHOOK_ALLOW=127.0.0.1,localhost`); the browsers' `VESSEL_EGRESS_ALLOW` does not. Nothing was changed.",
  },
  "profile-unreadable": {
    status: 422,
    title: "Profile unreadable",
    description:
      "The stored profile cannot be decrypted or is not a valid profile document: its stored bytes were altered, or it was encrypted " +
      "under a master key this deployment does not have (rotate with `scripts/rotate-master-key.ts`). No session was started; " +
      "delete the profile and save a new one.",
  },
  "credential-origin-mismatch": {
    status: 422,
    title: "Credential origin mismatch",
    description:
      "The session's active tab shows a page whose top-level origin is not one of the credential's `origins`, so nothing was filled. " +
      "Navigate the tab to the login page first, or add its origin to the credential.",
  },
  "credential-unreadable": {
    status: 422,
    title: "Credential unreadable",
    description:
      "The stored credential cannot be decrypted: its stored bytes were altered, or it was sealed under a master key this deployment " +
      "does not have. Nothing was filled; replace its secrets (PATCH) or delete it.",
  },
  "extensions-unsupported": {
    status: 422,
    title: "Extensions unsupported",
    description:
      "The session asked for extensions (`extension_ids`), but this deployment's browsers cannot load any: Chromium's headless shell " +
      "has no extension system. Run full Chromium (`VESSEL_CHROMIUM_PATH=/usr/lib/chromium/chromium`; the set-up installs it). No session was started.",
  },
  "invalid-extension": {
    status: 422,
    title: "Invalid extension",
    description:
      "The upload is not a zip of an unpacked Manifest V3 extension: a `manifest.json` (at the top, or in the one folder at the top) with " +
      "`manifest_version` 3, a `name` and a `version`, relative file names only, within the size limits. Nothing was stored.",
  },
  "extension-permission-refused": {
    status: 422,
    title: "Extension permission refused",
    description:
      "The extension's manifest asks for a permission or key that would give it a debugging or native channel (the DevTools protocol, " +
      "programs or devices of the host, a way around the egress listener), such as `debugger`, `nativeMessaging` or `devtools_page`. " +
      "The `permission` member names it; the full list is in the session options guide. Nothing was stored (or, for an extension " +
      "stored earlier, no session was started).",
  },
  "extensions-need-jail": {
    status: 422,
    title: "Extensions need the jail",
    description:
      "This node's browsers run without the jail (`VESSEL_BROWSER_JAIL=off`, or `auto` on a host without working user namespaces), so " +
      "the CDP policy would be an extension's only fence. Extensions are neither stored nor loaded there. Run browsers jailed.",
  },
  "invalid-network-rule": {
    status: 422,
    title: "Invalid network rule",
    description:
      "A network rule (`network_policy.allow` or `.deny`) is not a host name, host pattern (`*.example.com`), IP address or CIDR with an " +
      "optional `:port` (an IPv6 address with a port in brackets: `[2001:db8::1]:443`). The `rule`, `list` and `index` members name it. Nothing was changed.",
  },
  "idempotency-key-reused": {
    status: 422,
    title: "Idempotency-Key reused",
    description: "This `Idempotency-Key` was already used, within the last 24 hours, for a request with a different body. Use a new key for a new request.",
  },
  "extension-quota-exceeded": {
    status: 409,
    title: "Extension quota exceeded",
    description:
      "The workspace already stores as many extensions (`VESSEL_EXTENSIONS_MAX_PER_WORKSPACE`) or as many bytes of them " +
      "(`VESSEL_EXTENSIONS_MAX_BYTES_PER_WORKSPACE`) as it may; `quota` says which and `limit` its value. Nothing was stored: delete an " +
      "extension the workspace no longer needs, then upload again.",
  },
  "rate-limited": {
    status: 429,
    title: "Too many requests",
    description: "The request rate limit was exceeded. Wait for the number of seconds in `Retry-After`, then retry.",
  },
  "workspace-session-limit": {
    status: 429,
    title: "Workspace session limit",
    description:
      "The workspace already holds as many live sessions as it may (`VESSEL_WORKSPACE_MAX_SESSIONS`, or the workspace's own " +
      "`max_sessions`), counted across every node. Nothing was started and the Idempotency-Key was not used up: release a " +
      "session, or retry with the same key after `Retry-After` seconds.",
  },
  "queue-full": {
    status: 429,
    title: "Admission queue full",
    description:
      "The admission queue already holds as many waiting sessions as it may: the workspace's (`VESSEL_WORKSPACE_MAX_QUEUED`) or the " +
      "deployment's (`VESSEL_MAX_QUEUED`); `limit` says which. Nothing was queued and the Idempotency-Key was not used up: retry with the " +
      "same key after `Retry-After` seconds (estimated from the rate sessions start at).",
  },
  "internal-error": {
    status: 500,
    title: "Internal server error",
    description:
      "An unexpected fault. The response carries a reference (`request_id`) that operators can find in the server log. Retrying is safe for idempotent requests.",
  },
  "service-unavailable": {
    status: 503,
    title: "Service unavailable",
    description: "A dependency (such as the database) is not reachable. Retry with backoff.",
  },
  "insufficient-storage": {
    status: 507,
    title: "Insufficient storage",
    description:
      "The node's volume the file would be written to has too little free space left (`VESSEL_UPLOAD_MIN_FREE_BYTES`, 1 GiB by default, " +
      "with the uploads in progress counted). Nothing was stored; retry later or ask the operator to free space.",
  },
  "insufficient-capacity": {
    status: 503,
    title: "Insufficient capacity",
    description: "No spare browser capacity in the region. Retry with exponential backoff, honouring `Retry-After`.",
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ProblemSlug = keyof typeof problemTypes;

export interface FieldError {
  /** Where the bad value was, for example `body.region` or `query.limit`. */
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    /** Extra members of the problem document (for example `errors`); never secrets. */
    readonly extensions: Record<string, unknown> = {},
    /** Response headers the problem needs (Allow, Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.status = problemTypes[slug].status;
    this.title = problemTypes[slug].title;
  }

  /** A stable GraphQL error code: `not-found` → `NOT_FOUND`. */
  get code(): string {
    return this.slug.toUpperCase().replaceAll("-", "_");
  }
}

export function validationError(errors: FieldError[]): AppError {
  const first = errors[0];
  const detail = first ? `${first.field}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}` : "The request is invalid.";
  return new AppError("validation-failed", detail, { errors });
}

export function isProblemSlug(value: string): value is ProblemSlug {
  return Object.hasOwn(problemTypes, value);
}
