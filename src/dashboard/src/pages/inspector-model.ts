import { describeEvent } from "../components/session-bits.tsx";
import { safeJson, type TimelineEvent } from "./session-timeline.ts";
import { readableUrl, shortUrl } from "../lib/readable-url.ts";

export { readableUrl, shortUrl };

/**
 * What the session inspector shows, read from the session's logs (GET …/logs, the `sessionLogs`
 * query and subscription) and its events: one item per entry, placed in time, with the filters it
 * answers to. Entries keep their data as JSON text (like session events), so a field the server adds
 * later is shown in the details without a change here.
 */

export interface LogEntry {
  seq: number;
  type: string;
  at: string;
  data: string;
}

export type Filter = "console" | "errors" | "network" | "navigation" | "cdp" | "events";
export type Tone = "green" | "amber" | "neutral" | "red" | "blue" | "violet";

export const filters: Array<{ id: Filter; label: string }> = [
  { id: "console", label: "Console" },
  { id: "errors", label: "Errors" },
  { id: "network", label: "Network" },
  { id: "navigation", label: "Navigation" },
  { id: "cdp", label: "CDP" },
  { id: "events", label: "Events" },
];

/** Lanes of the timeline strip, top to bottom: one per kind, errors on a lane of their own so they stand out. */
export type Lane = "events" | "navigation" | "console" | "network" | "cdp" | "errors";
export const lanes: Array<{ id: Lane; label: string }> = [
  { id: "events", label: "Events" },
  { id: "navigation", label: "Navigation" },
  { id: "console", label: "Console" },
  { id: "network", label: "Network" },
  { id: "cdp", label: "CDP" },
  { id: "errors", label: "Errors" },
];

export interface Item {
  key: string;
  /** The entry's type (`console`, `network`, …) or `event` for a session event. */
  kind: string;
  at: number;
  iso: string;
  title: string;
  /** A word before the title that classifies it: a console level, an HTTP status, "uncaught". */
  tag?: string;
  /** Words after the title, quieter. */
  detail?: string;
  /** Where it came from (a script's URL and line), for console messages and page errors. */
  source?: string;
  tone: Tone;
  lane: Lane;
  filters: Filter[];
  data: Record<string, unknown>;
}

export interface NetworkData {
  method: string;
  url: string | null;
  resource_type: string | null;
  status: number | null;
  status_text: string | null;
  mime_type: string | null;
  response_bytes: number | null;
  duration_ms: number | null;
  failure: string | null;
  from_cache?: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function networkOf(data: Record<string, unknown>): NetworkData {
  return {
    method: str(data.method) ?? "GET",
    url: str(data.url) ?? null,
    resource_type: str(data.resource_type) ?? null,
    status: num(data.status),
    status_text: str(data.status_text) ?? null,
    mime_type: str(data.mime_type) ?? null,
    response_bytes: num(data.response_bytes),
    duration_ms: num(data.duration_ms),
    failure: str(data.failure) ?? null,
    from_cache: data.from_cache === true,
  };
}

/** The colour class of a request's outcome: 2xx, 3xx, 4xx, 5xx, or failed before any answer. */
export function statusClass(n: Pick<NetworkData, "status" | "failure">): "ok" | "redirect" | "client" | "server" | "failed" | "none" {
  if (n.failure && (n.status === null || n.status < 400)) return "failed";
  if (n.status === null) return n.failure ? "failed" : "none";
  if (n.status >= 500) return "server";
  if (n.status >= 400) return "client";
  if (n.status >= 300) return "redirect";
  return "ok";
}

export const requestFailed = (n: NetworkData) => n.failure !== null || (n.status !== null && n.status >= 400);

function sourceOf(data: Record<string, unknown>): string | undefined {
  const url = str(data.source_url);
  if (!url) return undefined;
  let path = url.replace(/[?#].*$/, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not percent-encoded after all: shown as it is.
  }
  const file = path.split("/").filter(Boolean).pop() || url;
  return typeof data.line === "number" ? `${file}:${data.line}` : file;
}

const consoleTone: Record<string, Tone> = { error: "red", assert: "red", warning: "amber", warn: "amber", info: "blue", debug: "neutral" };

/** One log entry in words, with its lane and filters. */
export function logItem(e: LogEntry): Item {
  const data = safeJson(e.data);
  const base = { key: `log-${e.seq}`, kind: e.type, at: Date.parse(e.at), iso: e.at, data };
  switch (e.type) {
    case "console": {
      const level = str(data.level) ?? "log";
      const error = level === "error" || level === "assert";
      return {
        ...base,
        title: str(data.text) ?? "",
        tag: level === "log" ? undefined : level,
        source: sourceOf(data),
        tone: consoleTone[level] ?? "neutral",
        lane: error ? "errors" : "console",
        filters: error ? ["console", "errors"] : ["console"],
      };
    }
    case "page_error":
      return {
        ...base,
        title: str(data.message) ?? "Uncaught error",
        tag: "uncaught",
        source: sourceOf(data),
        tone: "red",
        lane: "errors",
        filters: ["errors"],
      };
    case "navigation":
      return {
        ...base,
        title: readableUrl(str(data.url) ?? "(no URL)"),
        tag: data.same_document === true ? "within the page" : data.main_frame === false ? "frame" : undefined,
        tone: "violet",
        lane: "navigation",
        filters: ["navigation"],
      };
    case "network": {
      const n = networkOf(data);
      const failed = requestFailed(n);
      return {
        ...base,
        title: `${n.method} ${shortUrl(n.url, str(data.page_url))}`,
        tag: n.status !== null ? String(n.status) : "failed",
        detail: n.failure ?? undefined,
        tone: failed ? "red" : "blue",
        lane: failed ? "errors" : "network",
        filters: failed ? ["network", "errors"] : ["network"],
      };
    }
    case "cdp": {
      const ms = num(data.duration_ms);
      return {
        ...base,
        title: str(data.method) ?? "(command)",
        tag: data.refused === true ? "refused" : undefined,
        detail: ms !== null ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : undefined,
        tone: data.refused === true ? "amber" : "neutral",
        lane: "cdp",
        filters: ["cdp"],
      };
    }
    case "logs.truncated":
      return { ...base, title: "The log is full: later entries were dropped", tone: "amber", lane: "events", filters: ["events"] };
    default:
      return { ...base, title: e.type, tone: "neutral", lane: "events", filters: ["events"] };
  }
}

export function eventItem(e: TimelineEvent): Item {
  const data = safeJson(e.data);
  const d = describeEvent(e.type, data);
  return {
    key: `event-${e.id}`,
    kind: "event",
    at: Date.parse(e.createdAt),
    iso: e.createdAt,
    title: d.title,
    detail: d.detail,
    tone: d.tone,
    lane: "events",
    filters: ["events"],
    data,
  };
}

/** Shown when any of its filters is on. */
export const shown = (item: Item, on: ReadonlySet<Filter>) => item.filters.some((f) => on.has(f));

/** "0:07.4", "12:03.0", "1:02:03" from milliseconds after the start. */
export function formatOffset(ms: number): string {
  const neg = ms < 0;
  const tenths = Math.round(Math.abs(ms) / 100);
  const s = Math.floor(tenths / 10);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const text = h > 0 ? `${h}:${String(m).padStart(2, "0")}:${String(sec).padStart(2, "0")}` : `${m}:${String(sec).padStart(2, "0")}.${tenths % 10}`;
  return neg ? `−${text}` : text;
}

/** Words for a screen reader: "1 minute 4 seconds in". */
export function spokenOffset(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const m = Math.floor(s / 60);
  const parts = [m > 0 ? `${m} minute${m === 1 ? "" : "s"}` : "", `${s % 60} second${s % 60 === 1 ? "" : "s"}`].filter(Boolean);
  return `${parts.join(" ")} in`;
}

const tickSteps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);

/** Round moments for the axis (every 1 s, 2 s, 5 s, … 1 h), at most about six of them. */
export function ticks(span: number): number[] {
  const step = tickSteps.find((s) => span / s <= 6) ?? tickSteps.at(-1)!;
  const out: number[] = [];
  for (let t = 0; t <= span; t += step) out.push(t);
  return out;
}
