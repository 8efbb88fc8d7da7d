// A HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/) built from a session's log
// alone: its `navigation` entries make the pages, its `network` entries the entries. Nothing is
// read from the browser, so a HAR can be had long after the session ended (within the log's
// retention), and it says no more than the log does: header values of credentials and credential
// query values are `[redacted]` (redaction.ts), bodies are never there.
import { version } from "../../config.ts";
import type { Timings } from "../../browser/logs/network-detail.ts";
import { TRUNCATED as TRUNCATED_TYPE, type SessionLogEntryView } from "../session-logs/log-entries.ts";

interface NameValue {
  name: string;
  value: string;
}

/** HAR's phases of one request: the network log keeps them in HAR's own form (network-detail.ts). */
export type HarTimings = Timings;

export interface HarPage {
  startedDateTime: string;
  id: string;
  title: string;
  pageTimings: { onContentLoad?: number; onLoad?: number };
}

export interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: NameValue[];
    headers: NameValue[];
    queryString: NameValue[];
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: NameValue[];
    headers: NameValue[];
    content: { size: number; mimeType: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _failure?: string;
  };
  cache: Record<string, never>;
  timings: HarTimings;
  serverIPAddress?: string;
  _resourceType?: string;
  comment?: string;
}

export interface Har {
  log: {
    version: "1.2";
    creator: { name: string; version: string };
    browser?: { name: string; version: string };
    pages: HarPage[];
    entries: HarEntry[];
    comment?: string;
  };
}

type Data = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Chromium's protocol names as HAR's httpVersion. */
function httpVersion(protocol: string | null): string {
  if (!protocol) return "";
  const known: Record<string, string> = { "http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", h2: "HTTP/2", h3: "HTTP/3", h2c: "HTTP/2" };
  return known[protocol.toLowerCase()] ?? protocol;
}

function headers(v: unknown): NameValue[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === "string" && typeof p[1] === "string")
    .map(([name, value]) => ({ name, value }));
}

/** The URL's query as pairs (values as the log kept them: credentials already masked). */
function queryString(url: string): NameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** Entries logged before the log kept phases (or without Chromium's timing) count as all `wait`. */
function timings(data: Data, duration: number): HarTimings {
  const t = data.timings as Partial<HarTimings> | undefined;
  const phase = (v: unknown) => num(v) ?? -1;
  if (!t || num(t.send) === null) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: duration, receive: 0 };
  return {
    blocked: phase(t.blocked),
    dns: phase(t.dns),
    connect: phase(t.connect),
    ssl: phase(t.ssl),
    send: phase(t.send),
    wait: phase(t.wait),
    receive: phase(t.receive),
  };
}

/** HAR's `time`: the sum of the phases that happened (`ssl` is within `connect`). */
const total = (t: HarTimings) => Math.round([t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].reduce((sum, v) => sum + Math.max(0, v), 0) * 10) / 10;

interface PageDraft extends HarPage {
  loaderId: string | null;
  url: string;
  used: boolean;
}

/** A page per document a main frame committed (its loader id). */
function pageOfNavigation(e: SessionLogEntryView, n: number): PageDraft | undefined {
  if (e.type !== "navigation" || e.data.main_frame !== true || e.data.same_document === true) return undefined;
  const url = str(e.data.url) ?? "";
  return { id: `page_${n}`, startedDateTime: e.at.toISOString(), title: url, pageTimings: {}, loaderId: str(e.data.loader_id), url, used: false };
}

/** The page a request belongs to: its document's, else the last page at its page's URL that began before it ended. */
function pageOf(pages: PageDraft[], byLoader: Map<string, PageDraft>, draft: EntryDraft): PageDraft | undefined {
  const own = draft.loaderId ? byLoader.get(draft.loaderId) : undefined;
  if (own || !draft.pageUrl) return own;
  return pages.filter((p) => p.url === draft.pageUrl && p.startedDateTime <= draft.at).at(-1);
}

interface EntryDraft {
  entry: HarEntry;
  loaderId: string | null;
  pageUrl: string | null;
  /** When it was logged (ISO). */
  at: string;
}

function entryOf(data: Data): HarEntry {
  const url = str(data.url) ?? "";
  const duration = num(data.duration_ms) ?? 0;
  const t = timings(data, duration);
  const version = httpVersion(str(data.http_version));
  const failure = str(data.failure);
  const received = num(data.response_bytes);
  const entry: HarEntry = {
    startedDateTime: str(data.started_at) ?? new Date(0).toISOString(),
    time: total(t),
    request: {
      method: str(data.method) ?? "GET",
      url,
      httpVersion: version,
      cookies: [],
      headers: headers(data.request_headers),
      queryString: queryString(url),
      headersSize: -1,
      bodySize: num(data.request_bytes) ?? -1,
    },
    response: {
      status: num(data.status) ?? 0,
      statusText: str(data.status_text) ?? "",
      httpVersion: version,
      cookies: [],
      headers: headers(data.response_headers),
      content: { size: Math.max(0, received ?? 0), mimeType: str(data.mime_type) ?? "x-unknown" },
      redirectURL: str(data.redirect_url) ?? "",
      headersSize: -1,
      bodySize: received ?? -1,
      ...(failure ? { _failure: failure } : {}),
    },
    cache: {},
    timings: t,
  };
  const ip = str(data.server_ip);
  if (ip) entry.serverIPAddress = ip;
  const type = str(data.resource_type);
  if (type) entry._resourceType = type;
  if (failure) entry.comment = failure;
  return entry;
}

const TRUNCATED_NOTE = "The session's log reached its bounds (VESSEL_LOGS_MAX_ENTRIES, VESSEL_LOGS_MAX_BYTES): later requests are missing.";

/**
 * The HAR of a session's log, built page of the log by page (`add`, as they are read: the work is
 * spread between the reads rather than done at once), then `finish`ed: entries in the order their
 * requests started, each in its page; a page's start is its document request's start when the log
 * has it (a navigation commits after its request began). Entries of other types are passed over.
 */
export class HarBuilder {
  readonly #pages: PageDraft[] = [];
  readonly #drafts: EntryDraft[] = [];
  #truncated = false;

  add(items: readonly SessionLogEntryView[]): void {
    for (const e of items) {
      if (e.type === TRUNCATED_TYPE) this.#truncated = true;
      if (e.type === "navigation") {
        const page = pageOfNavigation(e, this.#pages.length + 1);
        if (page) this.#pages.push(page);
      }
      if (e.type !== "network") continue;
      this.#drafts.push({ entry: entryOf(e.data), loaderId: str(e.data.loader_id), pageUrl: str(e.data.page_url), at: e.at.toISOString() });
    }
  }

  finish(browserVersion = ""): Har {
    const pages = this.#pages;
    const byLoader = new Map(pages.filter((p) => p.loaderId).map((p) => [p.loaderId!, p]));
    const entries = this.#drafts.map((draft) => {
      const page = pageOf(pages, byLoader, draft);
      if (!page) return draft.entry;
      page.used = true;
      if (draft.entry.startedDateTime < page.startedDateTime) page.startedDateTime = draft.entry.startedDateTime;
      return { pageref: page.id, ...draft.entry };
    });
    entries.sort((a, b) => (a.startedDateTime < b.startedDateTime ? -1 : a.startedDateTime > b.startedDateTime ? 1 : 0));
    const kept = pages.filter((p) => p.used || !p.url.startsWith("about:"));
    return {
      log: {
        version: "1.2",
        creator: { name: "Vessel", version },
        ...(browserVersion ? { browser: { name: "Chromium", version: browserVersion } } : {}),
        pages: kept.map(({ id, startedDateTime, title, pageTimings }) => ({ id, startedDateTime, title, pageTimings })),
        entries,
        ...(this.#truncated ? { comment: TRUNCATED_NOTE } : {}),
      },
    };
  }
}

/** The HAR of these log entries at once (HarBuilder). */
export function buildHar(entries: readonly SessionLogEntryView[]): Har {
  const builder = new HarBuilder();
  builder.add(entries);
  return builder.finish();
}
