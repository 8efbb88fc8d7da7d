import { randomUUID } from "node:crypto";
import { createClient, type Client } from "./api.ts";
import type { RetryOptions, VesselOptions } from "./client-options.ts";
import { errorFor, QueueTimeoutError, TimeoutError, VesselError, type Problem } from "./errors.ts";
import { allPages } from "./pages.ts";
import { Credentials } from "./credentials.ts";
import { Profiles } from "./profiles.ts";
import type { components, operations, paths } from "./generated/openapi.ts";
import { sessionLogs, type SessionLogEntry, type SessionLogsOptions } from "./session-logs.ts";
import { Extensions } from "./extensions.ts";
import { deleteRecording, recordingBytes, recordingStream, recordingToFile, type DownloadRecordingOptions } from "./recordings.ts";
import { listSessionFiles, uploadSessionFile, type SessionFile, type UploadData } from "./session-files.ts";
import { downloadBundle, sessionHar, type BundleDownload, type DownloadBundleOptions, type Har } from "./session-exports.ts";

export * from "./errors.ts";
/** Checks a webhook delivery's signature and timestamp (Standard Webhooks) and answers its event. */
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type VerifyWebhookOptions } from "./webhooks.ts";
/** The pager: every item of a cursor-paginated list, page after page, as the caller iterates. */
export { allPages } from "./pages.ts";
export type { SessionLogEntry, SessionLogsOptions, DownloadRecordingOptions, DownloadBundleOptions, Har };

export type Session = components["schemas"]["Session"];
export type SessionEvent = components["schemas"]["SessionEvent"];
export type SessionStatus = Session["status"];
type SessionListQuery = NonNullable<operations["sessions"]["parameters"]["query"]>;
export type { Profile, StorageState, StorageStateExport } from "./profiles.ts";
export type { Credential, CredentialFill } from "./credentials.ts";
export type { Extension } from "./extensions.ts";
export { Credentials, Profiles };

export type { RetryOptions, VesselOptions } from "./client-options.ts";

/** The create's body as the server declares it (schema/openapi.json, generated from its one declaration). */
type CreateSessionBody = NonNullable<operations["createSession"]["requestBody"]>["content"]["application/json"];
/** `idle_timeout_seconds` → `idleTimeoutSeconds`. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/**
 * A create's options: the server's declared options with camelCase names (derived, so an option
 * added on the server is here after `npm run generate`). Only the top level is renamed: nested
 * values (`browser`, `liveView`, `proxy`, `metadata`) are sent as given, in the server's own form.
 */
export type CreateSessionOptions = { [K in keyof CreateSessionBody as K extends string ? Camel<K> : K]: CreateSessionBody[K] } & {
  /** How long to wait for a session that is not RUNNING yet (default 60 s), besides any time it waits in the queue. */
  waitSeconds?: number;
  /** Seconds to wait in the server's queue when no browser is free (`queue_timeout_seconds`); past it, a QueueTimeoutError. */
  queueTimeout?: number;
};

/** `idleTimeoutSeconds` → `idle_timeout_seconds`. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** Options of the client itself, never sent. */
const clientOnly = new Set(["waitSeconds", "queueTimeout"]);

/** The options as the create's body: top-level names in snake_case, an empty value (undefined, null, "", []) left out as not given. */
function createSessionBody(options: CreateSessionOptions): CreateSessionBody {
  const body: Record<string, unknown> = options.queueTimeout === undefined ? {} : { queue_timeout_seconds: options.queueTimeout };
  for (const [name, value] of Object.entries(options)) {
    if (clientOnly.has(name) || value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    body[snake(name)] = value;
  }
  return body as CreateSessionBody;
}

const live: readonly SessionStatus[] = ["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE"];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the API answered: its data, or a typed error; `retryable` says whether the same call may succeed later. */
interface Outcome<T> {
  data?: T;
  error?: ReturnType<typeof errorFor>;
  retryAfterMs?: number;
  retryable: boolean;
}

/**
 * The Vessel API from TypeScript. Every call retries what may succeed later — 429 (after its
 * `Retry-After`), 503, other 5xx and network failures — with exponential backoff and jitter, within
 * a bounded total time; creating a session sends one Idempotency-Key for all its attempts, so a retry
 * can never start a second browser.
 */
export class Vessel {
  readonly sessions: Sessions;
  readonly profiles: Profiles;
  /** Logins the server fills into sessions; their secrets never come back. */
  readonly credentials: Credentials;
  readonly extensions: Extensions;
  readonly baseUrl: string;
  /** @internal */
  readonly api: Client<paths>;
  private readonly retry: Required<RetryOptions>;

  constructor(options: VesselOptions = {}) {
    const apiKey = options.apiKey ?? process.env.VESSEL_API_KEY;
    if (!apiKey) throw new VesselError("No API key: pass { apiKey } or set VESSEL_API_KEY.");
    this.baseUrl = (options.baseUrl ?? process.env.VESSEL_BASE_URL ?? "http://localhost:8080").replace(/\/+$/, "");
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { authorization: `Bearer ${apiKey}`, "user-agent": "vessel-client" },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.retry = { maxAttempts: 6, maxElapsedMs: 60_000, baseDelayMs: 250, maxDelayMs: 10_000, ...options.retry };
    this.sessions = new Sessions(this);
    this.profiles = new Profiles(this);
    this.credentials = new Credentials(this);
    this.extensions = new Extensions(this);
  }

  /** Runs one API call with the retry policy; resolves with its data or rejects with the last typed error. */
  async call<T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const started = Date.now();
    for (let n = 1; ; n++) {
      const outcome = await this.once(attempt);
      if (!outcome.error && outcome.retryable === false) return outcome.data as T;
      const backoff = Math.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (n - 1));
      const delay = Math.max(backoff, outcome.retryAfterMs ?? 0);
      const lastError = outcome.error ?? new VesselError("The request failed.");
      if (!outcome.retryable || n >= this.retry.maxAttempts || Date.now() - started + delay > this.retry.maxElapsedMs) throw lastError;
      await sleep(delay);
    }
  }

  private async once<T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Outcome<T>> {
    let result: { data?: T; error?: unknown; response: Response };
    try {
      result = await attempt();
    } catch (err) {
      // No answer at all (connection refused or reset): worth another try.
      const error = new VesselError(`Could not reach ${this.baseUrl}: ${(err as Error).message}`) as ReturnType<typeof errorFor>;
      return { error, retryable: true };
    }
    const { response } = result;
    if (response.ok) return { data: result.data, retryable: false };
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
    const problem = isProblem(result.error)
      ? result.error
      : { type: "about:blank", title: response.statusText || "Error", status: response.status, detail: String(result.error ?? "") };
    const error = errorFor(response.status, problem, retryAfter);
    const retryable = response.status === 429 || response.status >= 500 || error.slug === "idempotency-key-in-use";
    return { error, retryable, retryAfterMs: retryAfter === undefined ? undefined : retryAfter * 1000 };
  }
}

function isProblem(value: unknown): value is Problem {
  return typeof value === "object" && value !== null && typeof (value as Problem).type === "string" && typeof (value as Problem).status === "number";
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

export class Sessions {
  constructor(private readonly vessel: Vessel) {}

  /** Starts a session and resolves once it is RUNNING (with `connect_url` and `live_view_url`). */
  async create(options: CreateSessionOptions): Promise<Session> {
    const idempotencyKey = randomUUID();
    const body = createSessionBody(options);
    const session = await this.vessel.call(() => this.vessel.api.POST("/v1/sessions", { body, params: { header: { "idempotency-key": idempotencyKey } } }));
    if (session.status === "RUNNING") return session;
    return this.waitUntilRunning(session.id, ((options.waitSeconds ?? 60) + (body.queue_timeout_seconds ?? 0)) * 1000);
  }

  private async waitUntilRunning(id: string, ms: number): Promise<Session> {
    const until = Date.now() + ms;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
      const session = await this.get(id);
      if (session.status === "RUNNING") return session;
      if (session.end_reason === "queue_timeout") throw new QueueTimeoutError(`Session ${id} waited in the queue past its timeout.`, session);
      if (!live.includes(session.status)) throw new VesselError(`Session ${id} ended (${session.status}) before it was running.`);
      if (Date.now() + delay > until) throw new TimeoutError(`Session ${id} was not running after ${Math.round(ms / 1000)} s.`);
      await sleep(delay);
    }
  }

  get(id: string): Promise<Session> {
    return this.vessel.call(() => this.vessel.api.GET("/v1/sessions/{id}", { params: { path: { id } } }));
  }

  /** One page of the workspace's sessions. */
  listPage(query: SessionListQuery = {}) {
    return this.vessel.call(() => this.vessel.api.GET("/v1/sessions", { params: { query } }));
  }

  /** Every session, page after page, in creation order: `for await (const s of vessel.sessions.list())`. */
  list(query: Omit<SessionListQuery, "cursor"> = {}): AsyncGenerator<Session> {
    return allPages((cursor) => this.listPage({ ...query, ...(cursor ? { cursor } : {}) }));
  }

  /** Ends the session (idempotent). */
  async release(id: string): Promise<void> {
    await this.vessel.call(() =>
      this.vessel.api.PATCH("/v1/sessions/{id}", { params: { path: { id } }, body: { status: "REQUEST_RELEASE" }, parseAs: "text" }),
    );
  }

  /** Fresh `connect_url` and `live_view_url`; also resets the idle countdown. */
  keepalive(id: string): Promise<Session> {
    return this.vessel.call(() => this.vessel.api.POST("/v1/sessions/{id}:keepalive", { params: { path: { id } } }));
  }

  /**
   * The session's recording (MP4) once it has ended and its video is stored, waiting while it is
   * being made (`waitSeconds`, default 120): its bytes, a stream (`{ stream: true }`), or written
   * to a file (`{ to: path }`, answering its size).
   */
  downloadRecording(id: string, options?: DownloadRecordingOptions): Promise<Uint8Array>;
  downloadRecording(id: string, options: DownloadRecordingOptions & { stream: true }): Promise<ReadableStream<Uint8Array>>;
  downloadRecording(id: string, options: DownloadRecordingOptions & { to: string }): Promise<number>;
  downloadRecording(
    id: string,
    options: DownloadRecordingOptions & { stream?: boolean; to?: string } = {},
  ): Promise<Uint8Array | ReadableStream<Uint8Array> | number> {
    const call = <T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>) => this.vessel.call(attempt);
    if (options.to !== undefined) return recordingToFile(this.vessel.api, call, id, options.to, options);
    return options.stream ? recordingStream(this.vessel.api, call, id, options) : recordingBytes(this.vessel.api, call, id, options);
  }

  /** Deletes the session's recording and its key (404 when there is none). */
  deleteRecording(id: string): Promise<void> {
    return deleteRecording(this.vessel.api, (attempt) => this.vessel.call(attempt), id);
  }

  /** The session's network log as HAR 1.2 (credential header and query values `[redacted]`). */
  har = (id: string): Promise<Har> => sessionHar(this.vessel.api, (attempt) => this.vessel.call(attempt), id);
  /** The session's evidence bundle (zip: session, events, logs, HAR, video), waiting while its video is written: its bytes, or written to `to` (its size). */
  bundle: BundleDownload = (id: string, options: DownloadBundleOptions = {}) => downloadBundle(this.vessel, id, options) as never;
  /** One read of the session's events (with `wait`, a long poll of up to 30 s). */
  events(id: string, query: { after?: string; types?: string[]; limit?: number; wait?: number } = {}) {
    const { types, ...rest } = query;
    return this.vessel.call(() =>
      this.vessel.api.GET("/v1/sessions/{id}/events", {
        params: { path: { id }, query: { ...rest, ...(types?.length ? { type: types.join(",") } : {}) } },
      }),
    );
  }

  /** The session's log entries in order (`for await`); with `follow`, long-polls until the session has ended. */
  logs(id: string, options: SessionLogsOptions = {}): AsyncGenerator<SessionLogEntry> {
    return sessionLogs(this.vessel.api, (attempt) => this.vessel.call(attempt), id, options);
  }

  /**
   * Puts a file into the running session's folder; give its `path` to Puppeteer's `uploadFile`.
   * `file` is a local path (read here, named by its last part unless `name` says) or the bytes (then `name` is required).
   */
  uploadFile(id: string, file: string, name?: string): Promise<SessionFile>;
  uploadFile(id: string, data: Uint8Array | ArrayBuffer | Blob, name: string): Promise<SessionFile>;
  uploadFile(id: string, data: UploadData, name?: string): Promise<SessionFile> {
    return uploadSessionFile(this.vessel.api, (attempt) => this.vessel.call(attempt), id, data, name);
  }

  files(id: string): Promise<SessionFile[]> {
    return listSessionFiles(this.vessel.api, (attempt) => this.vessel.call(attempt), id);
  }

  /** The files the session's pages downloaded (the list outlives the session; the files do not). */
  async downloads(id: string) {
    return (await this.vessel.call(() => this.vessel.api.GET("/v1/sessions/{id}/downloads", { params: { path: { id } } }))).items;
  }

  /** A finished download's bytes, while the session runs. */
  download(id: string, downloadId: string): Promise<ArrayBuffer> {
    return this.vessel.call(() =>
      this.vessel.api.GET("/v1/sessions/{id}/downloads/{download_id}", { params: { path: { id, download_id: downloadId } }, parseAs: "arrayBuffer" }),
    );
  }

  /**
   * Resolves with the first `live_view.done` event (a person clicked Done in the live view), waiting
   * at most `timeoutSeconds` by long polling (no tight loop). Rejects with TimeoutError naming the
   * session, or VesselError when the session ends first.
   */
  async waitForLiveViewDone(id: string, options: { timeoutSeconds: number; after?: string }): Promise<SessionEvent> {
    const until = Date.now() + options.timeoutSeconds * 1000;
    let after = options.after;
    for (;;) {
      const remaining = Math.ceil((until - Date.now()) / 1000);
      if (remaining <= 0) throw new TimeoutError(`No one clicked Done in the live view of session ${id} within ${options.timeoutSeconds} s.`);
      const page = await this.events(id, { types: ["live_view.done"], wait: Math.min(30, remaining), ...(after ? { after } : {}) });
      const done = page.items[0];
      if (done) return done;
      after = page.next_cursor ?? after;
      // An empty answer before the wait ran out means the session ended.
      const session = await this.get(id);
      if (!live.includes(session.status)) throw new VesselError(`Session ${id} ended (${session.status}) before anyone clicked Done.`);
    }
  }
}

export type { SessionFile, UploadData } from "./session-files.ts";
