import { entryUrl } from "./format.ts";
import type { PolicyFailure } from "./policy-refusals.ts";
import { entryHeaders, serverAddress, timingsOf, type HeaderPair, type ResourceTiming, type Timings } from "./network-detail.ts";

/**
 * One target's network requests, from Chromium's Network events to one `network` entry per request
 * (per hop of a redirect), when it finished or failed. What is kept between the events is the
 * fields the entry needs: never a body (a request body only counts its bytes); headers with
 * credential values masked and the phases of its time (network-detail.ts), so a HAR can be built.
 */

interface Request {
  url: string;
  method: string;
  resourceType: string | null;
  startedAt: number;
  /** Chromium's monotonic clock, seconds. */
  start: number;
  requestBytes: number | null;
  status: number | null;
  statusText: string | null;
  mimeType: string | null;
  fromCache: boolean;
  loaderId: string | null;
  frameId: string | null;
  requestHeaders: HeaderPair[];
  responseHeaders: HeaderPair[];
  timing: ResourceTiming | undefined;
  protocol: string | null;
  remote: string | null;
  redirectUrl: string | null;
  /** Chromium's clock when the response's headers arrived: the entry's end if the body never finishes. */
  answered?: number;
  /** Logs it as answered if its body has not finished by then (see `flush`). */
  timer?: NodeJS.Timeout;
}

interface RequestParams {
  requestId: string;
  loaderId?: string;
  frameId?: string;
  request: {
    url: string;
    method: string;
    headers?: Record<string, string>;
    postData?: string;
    hasPostData?: boolean;
    postDataEntries?: Array<{ bytes?: string }>;
  };
  type?: string;
  timestamp: number;
  wallTime: number;
  redirectResponse?: ResponseParams["response"];
}
interface ResponseParams {
  requestId: string;
  timestamp?: number;
  response: {
    status: number;
    statusText: string;
    mimeType: string;
    fromDiskCache?: boolean;
    fromServiceWorker?: boolean;
    fromPrefetchCache?: boolean;
    encodedDataLength?: number;
    headers?: Record<string, string>;
    timing?: ResourceTiming;
    protocol?: string;
    remoteIPAddress?: string;
  };
}

/** A target holds at most this many requests in flight; beyond, the oldest is forgotten (never logged). */
const MAX_PENDING = 2_000;
/**
 * A response whose body has not finished loading this long after its headers is logged as answered.
 * Chromium says `loadingFinished` only once the page has read the body: a `fetch` whose body is
 * never read, answered with `Cache-Control: no-store` (so the HTTP cache does not drain it either),
 * would otherwise never be logged (issue 45). Streams and long downloads are logged at this point too.
 */
export const ANSWERED_FLUSH_MS = 3_000;

export interface NetworkData {
  method: string;
  url: string | null;
  resource_type: string | null;
  status: number | null;
  status_text: string | null;
  mime_type: string | null;
  response_bytes: number | null;
  request_bytes: number | null;
  started_at: string;
  duration_ms: number;
  failure: string | null;
  from_cache: boolean;
  /** With `failure: "blocked-by-policy"`: the network rule that refused it (policy-refusals.ts). */
  rule?: string;
  rule_list?: "allow" | "deny";
  policy?: string;
  /** The document (Chromium's loader) the request belongs to: a page of the HAR is a main frame's document. */
  loader_id: string | null;
  frame_id: string | null;
  /** Where a redirect hop sent the browser next. */
  redirect_url: string | null;
  http_version: string | null;
  server_ip: string | null;
  request_headers: HeaderPair[];
  response_headers: HeaderPair[];
  timings: Timings;
}

function bodyBytes(request: RequestParams["request"]): number | null {
  if (request.postDataEntries) {
    let n = 0;
    for (const e of request.postDataEntries)
      n += e.bytes ? Math.floor((e.bytes.length * 3) / 4) - (e.bytes.endsWith("==") ? 2 : e.bytes.endsWith("=") ? 1 : 0) : 0;
    return n;
  }
  if (request.postData !== undefined) return Buffer.byteLength(request.postData);
  return request.hasPostData ? null : 0;
}

const ms = (seconds: number) => Math.round(seconds * 10_000) / 10;

/**
 * The browser's traffic leaves through the egress proxy, so a destination the policy refuses (or one
 * that cannot be reached) reaches the page only as Chromium's SOCKS error: the log says where to look.
 */
export const EGRESS_HINT =
  "refused by the egress policy or unreachable: see this session's egress.refused events; the server's VESSEL_EGRESS_ALLOW lists allowed destinations";

export function egressHint(errorText: string): string {
  return /ERR_SOCKS_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED/.test(errorText) ? `${errorText} (${EGRESS_HINT})` : errorText;
}

export class NetworkTracker {
  readonly #pending = new Map<string, Request>();

  constructor(
    private readonly emit: (data: NetworkData) => void,
    /** Whether a failure was a refusal by the session's network rules (policy-refusals.ts). */
    private readonly explain: (url: string, errorText: string) => PolicyFailure | null = () => null,
  ) {}

  willBeSent(p: RequestParams): void {
    const earlier = this.#pending.get(p.requestId);
    if (earlier && p.redirectResponse) {
      earlier.redirectUrl = entryUrl(p.request.url);
      this.#took(earlier, p.redirectResponse);
      this.#end(p.requestId, earlier, p.timestamp, p.redirectResponse.encodedDataLength ?? null, null);
    }
    if (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value!;
      clearTimeout(this.#pending.get(oldest)?.timer);
      this.#pending.delete(oldest);
    }
    this.#pending.set(p.requestId, {
      url: p.request.url,
      method: p.request.method,
      resourceType: p.type ? p.type.toLowerCase() : null,
      startedAt: p.wallTime * 1000,
      start: p.timestamp,
      requestBytes: bodyBytes(p.request),
      status: null,
      statusText: null,
      mimeType: null,
      fromCache: false,
      loaderId: p.loaderId ?? null,
      frameId: p.frameId ?? null,
      requestHeaders: entryHeaders(p.request.headers),
      responseHeaders: [],
      timing: undefined,
      protocol: null,
      remote: null,
      redirectUrl: null,
    });
  }

  responseReceived(p: ResponseParams & { type?: string }): void {
    const r = this.#pending.get(p.requestId);
    if (!r) return;
    this.#took(r, p.response);
    if (!r.resourceType && p.type) r.resourceType = p.type.toLowerCase();
    r.answered = p.timestamp ?? r.start;
    clearTimeout(r.timer);
    r.timer = setTimeout(() => this.#answeredOnly(p.requestId), ANSWERED_FLUSH_MS);
    r.timer.unref();
  }

  /**
   * Logs every request that has its response but not the end of its body: the target went away,
   * or the capture stops. What never got a response is dropped, as before.
   */
  flush(): void {
    for (const [id, r] of [...this.#pending]) {
      if (r.answered !== undefined) this.#answeredOnly(id);
      else clearTimeout(r.timer);
    }
  }

  #answeredOnly(id: string): void {
    const r = this.#pending.get(id);
    if (r?.answered !== undefined) this.#end(id, r, r.answered, null, null);
  }

  servedFromCache(p: { requestId: string }): void {
    const r = this.#pending.get(p.requestId);
    if (r) r.fromCache = true;
  }

  finished(p: { requestId: string; timestamp: number; encodedDataLength: number }): void {
    const r = this.#pending.get(p.requestId);
    if (r) this.#end(p.requestId, r, p.timestamp, p.encodedDataLength, null);
  }

  failed(p: { requestId: string; timestamp: number; errorText: string; canceled?: boolean; blockedReason?: string }): void {
    const r = this.#pending.get(p.requestId);
    if (!r) return;
    const policy = p.blockedReason || p.canceled ? null : this.explain(r.url, p.errorText);
    if (policy) return this.#end(p.requestId, r, p.timestamp, null, policy.failure, policy);
    const failure = p.blockedReason ? `${p.errorText} (blocked: ${p.blockedReason})` : p.canceled ? `${p.errorText} (canceled)` : egressHint(p.errorText);
    this.#end(p.requestId, r, p.timestamp, null, failure || "failed");
  }

  #took(r: Request, response: ResponseParams["response"]): void {
    r.status = response.status;
    r.statusText = response.statusText || null;
    r.mimeType = response.mimeType || null;
    r.responseHeaders = entryHeaders(response.headers);
    r.timing = response.timing;
    r.protocol = response.protocol || null;
    r.remote = serverAddress(response.remoteIPAddress);
    if (response.fromDiskCache || response.fromPrefetchCache || response.fromServiceWorker) r.fromCache = true;
  }

  #end(id: string, r: Request, timestamp: number, responseBytes: number | null, failure: string | null, policy?: PolicyFailure): void {
    clearTimeout(r.timer);
    this.#pending.delete(id);
    const duration = Math.max(0, ms(timestamp - r.start));
    this.emit({
      method: r.method,
      url: entryUrl(r.url),
      resource_type: r.resourceType,
      status: r.status,
      status_text: r.statusText,
      mime_type: r.mimeType,
      response_bytes: responseBytes,
      request_bytes: r.requestBytes,
      started_at: new Date(r.startedAt).toISOString(),
      duration_ms: duration,
      failure,
      from_cache: r.fromCache,
      ...(policy ? { rule: policy.rule, rule_list: policy.rule_list, policy: policy.policy } : {}),
      loader_id: r.loaderId,
      frame_id: r.frameId,
      redirect_url: r.redirectUrl,
      http_version: r.protocol,
      server_ip: r.remote,
      request_headers: r.requestHeaders,
      response_headers: r.responseHeaders,
      timings: timingsOf(r.timing, r.start, duration),
    });
  }
}
