import type { EndReason, SessionEventType, SessionFieldsFragment, SessionStatus } from "@gql/graphql.ts";
import { Badge } from "./ui.tsx";
import { formatBytes, formatDuration } from "../lib/format.ts";

export type SessionRow = SessionFieldsFragment;

const statusLook: Record<SessionStatus, { label: string; tone: "green" | "amber" | "neutral" | "red" | "blue" }> = {
  QUEUED: { label: "Queued", tone: "blue" },
  PENDING: { label: "Starting", tone: "amber" },
  RUNNING: { label: "Running", tone: "green" },
  REQUEST_RELEASE: { label: "Releasing", tone: "amber" },
  RELEASED: { label: "Released", tone: "neutral" },
  TIMED_OUT: { label: "Timed out", tone: "neutral" },
  FAILED: { label: "Failed", tone: "red" },
};

export const isLive = (s: SessionStatus) => s === "QUEUED" || s === "PENDING" || s === "RUNNING" || s === "REQUEST_RELEASE";

export function StatusBadge({ status }: { status: SessionStatus }) {
  const look = statusLook[status];
  return (
    <span className={`status status-${status.toLowerCase()}`} data-status={status}>
      <Badge tone={look.tone} dot>
        {look.label}
      </Badge>
    </span>
  );
}

export const statusOptions: Array<{ value: SessionStatus | ""; label: string }> = [
  { value: "", label: "All" },
  { value: "QUEUED", label: "Queued" },
  { value: "RUNNING", label: "Running" },
  { value: "RELEASED", label: "Released" },
  { value: "TIMED_OUT", label: "Timed out" },
  { value: "FAILED", label: "Failed" },
];

export const endReasonText: Record<EndReason, string> = {
  CLIENT_RELEASE: "Released by its owner",
  FORCE_STOP: "Force-stopped by an admin",
  TIMEOUT: "Reached its time limit",
  IDLE_TIMEOUT: "Idle: nothing was connected for too long",
  BROWSER_CRASH: "The browser crashed",
  NODE_SHUTDOWN: "Its server shut down",
  LAUNCH_FAILED: "The browser could not start",
  API_KEY_REVOKED: "The API key that started it was revoked",
  QUEUE_TIMEOUT: "Waited in the queue past its timeout",
};

type EventData = Record<string, unknown>;

const reasonWords = (data: EventData) => (typeof data.reason === "string" ? (endReasonText[data.reason.toUpperCase() as EndReason] ?? data.reason) : undefined);

/** "Chrome on Linux · 1280×720" from a viewer's user agent and viewport. */
const viewerWords = (data: EventData): string | undefined => {
  const ua = typeof data.user_agent === "string" ? data.user_agent : "";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /HeadlessChrome/.test(ua)
        ? "Headless Chrome"
        : /Chrome\//.test(ua)
          ? "Chrome"
          : /Safari\//.test(ua)
            ? "Safari"
            : "";
  const os = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : "";
  const vp = data.viewport as { width?: number; height?: number } | undefined;
  const parts = [browser && os ? `${browser} on ${os}` : browser || os, vp?.width && vp.height ? `${vp.width}×${vp.height}` : ""].filter(Boolean);
  return parts.length > 0 ? parts.join(" · ") : undefined;
};

const closedWords = (data: EventData): string | undefined => {
  const reason = typeof data.reason === "string" ? data.reason.replace(/_/g, " ") : "";
  const after = typeof data.seconds === "number" ? `after ${data.seconds < 60 ? `${data.seconds}s` : `${Math.round(data.seconds / 60)} min`}` : "";
  const text = [reason, after].filter(Boolean).join(", ");
  return text ? text[0]!.toUpperCase() + text.slice(1) : undefined;
};

/** A session event in words, with a tone for the timeline's marker. */
export function describeEvent(
  type: SessionEventType,
  data: EventData,
): { title: string; detail?: string; tone: "green" | "amber" | "neutral" | "red" | "blue" | "violet" } {
  switch (type) {
    case "SESSION_RUNNING":
      return { title: "Session started", detail: "The browser is running.", tone: "green" };
    case "SESSION_RELEASED":
      return { title: "Session released", detail: reasonWords(data), tone: "neutral" };
    case "SESSION_TIMED_OUT":
      return { title: "Session timed out", detail: reasonWords(data), tone: "amber" };
    case "SESSION_FAILED":
      return { title: "Session failed", detail: reasonWords(data), tone: "red" };
    case "LIVE_VIEW_OPENED":
      return {
        title: `Live view opened${data.interactive === true ? " (interactive)" : data.interactive === false ? " (view only)" : ""}`,
        detail: viewerWords(data),
        tone: "blue",
      };
    case "LIVE_VIEW_CLOSED":
      return { title: "Live view closed", detail: closedWords(data), tone: "neutral" };
    case "LIVE_VIEW_DONE":
      return {
        title: "Marked done in the live view",
        detail: viewerWords(data) ? `Done clicked in ${viewerWords(data)}` : "The person in the live view clicked Done.",
        tone: "violet",
      };
    case "CDP_CONNECTED":
      return {
        title: "Automation connected",
        detail: typeof data.clients === "number" ? `${data.clients} CDP client${data.clients === 1 ? "" : "s"} connected` : undefined,
        tone: "blue",
      };
    case "CDP_DISCONNECTED":
      return {
        title: "Automation disconnected",
        detail: typeof data.clients === "number" ? `${data.clients} CDP client${data.clients === 1 ? "" : "s"} left` : undefined,
        tone: "neutral",
      };
    case "CDP_REFUSED":
      return { title: "Command refused by the browser policy", detail: refusedWords(data.method, data.reason), tone: "amber" };
    case "EGRESS_REFUSED":
      return {
        title: "Connection refused by the egress policy",
        // The page only sees net::ERR_SOCKS_CONNECTION_FAILED; this is where it is explained.
        detail: [
          refusedWords(typeof data.host === "string" ? `${data.host}:${String(data.port)}` : undefined, data.reason),
          "The page saw net::ERR_SOCKS_CONNECTION_FAILED; allowed destinations are set by VESSEL_EGRESS_ALLOW on the server.",
        ]
          .filter(Boolean)
          .join(". "),
        tone: "amber",
      };
    case "DOWNLOAD_STARTED":
      return { title: "Download started", detail: typeof data.name === "string" ? data.name : undefined, tone: "blue" };
    case "DOWNLOAD_COMPLETED":
      return { title: "Download finished", detail: downloadWords(data), tone: "green" };
    case "DOWNLOAD_CANCELED":
      return { title: "Download cancelled", detail: downloadWords(data), tone: "neutral" };
    case "DOWNLOAD_REFUSED":
      return { title: "Download refused", detail: refusedWords(typeof data.name === "string" ? data.name : undefined, data.reason), tone: "amber" };
    case "RECORDING_READY":
      return { title: "Recording ready", detail: recordingWords(data), tone: "green" };
    case "RECORDING_FAILED":
      return { title: "Recording failed", detail: typeof data.reason === "string" ? data.reason : undefined, tone: "red" };
    default: {
      const words = String(type).toLowerCase().replace(/_/g, " ");
      return { title: words[0]!.toUpperCase() + words.slice(1), tone: "neutral" };
    }
  }
}

function refusedWords(what: unknown, reason: unknown): string | undefined {
  const parts = [typeof what === "string" ? what : undefined, typeof reason === "string" ? reason : undefined].filter(Boolean);
  return parts.length > 0 ? parts.join(": ") : undefined;
}

function recordingWords(data: EventData): string | undefined {
  const parts = [
    typeof data.duration_ms === "number" ? formatDuration(data.duration_ms) : "",
    typeof data.size_bytes === "number" ? formatBytes(data.size_bytes) : "",
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : undefined;
}

function downloadWords(data: EventData): string | undefined {
  if (typeof data.name !== "string") return undefined;
  return typeof data.bytes === "number" ? `${data.name}, ${formatBytes(data.bytes)}` : data.name;
}

/** `ses_01J…` shortened for narrow places; the full id stays in the title. */
export function shortId(id: string): string {
  const [prefix, rest] = id.includes("_") ? [id.slice(0, id.indexOf("_") + 1), id.slice(id.indexOf("_") + 1)] : ["", id];
  return rest.length > 12 ? `${prefix}${rest.slice(0, 6)}…${rest.slice(-4)}` : id;
}
