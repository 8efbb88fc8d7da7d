// What a session's log holds, as the services hand it out, and the signal that tells readers on
// every node that more was written.

/** The types a reader may filter by; `logs.truncated` comes with any filter. */
export const sessionLogTypes = ["console", "page_error", "navigation", "network", "cdp"] as const;
export type SessionLogType = (typeof sessionLogTypes)[number];

/** The entry written once, when a session's log reached its bounds: nothing follows it. */
export const TRUNCATED = "logs.truncated";

/** One entry of a session's log. */
export interface SessionLogEntryView {
  /** 1, 2, 3, … in the order the entries were recorded. */
  seq: number;
  type: string;
  at: Date;
  /** The entry's fields by type (snake_case): a console message's `level` and `text`, a request's `status`, … */
  data: Record<string, unknown>;
}

export interface SessionLogPage {
  items: SessionLogEntryView[];
  /** An opaque cursor after the last item (or after where the read started): what to pass as `cursor` next time. */
  nextCursor: string | null;
  hasMore: boolean;
}

/** A long poll holds the request at most this long (as session events' do). */
export const MAX_LOG_WAIT_SECONDS = 30;
export const DEFAULT_LOG_PAGE = 100;
export const MAX_LOG_PAGE = 1_000;

/** Where the node writing a session's log says it wrote more (`seq`: the last one), or that it wrote its last (`finished`). */
export const logsChannel = (sessionId: string) => `session-logs:${sessionId}`;

export interface LogSignal {
  seq: number;
  finished?: true;
}

export function readLogSignal(message: string): LogSignal {
  try {
    const m = JSON.parse(message) as Partial<LogSignal>;
    return { seq: typeof m.seq === "number" ? m.seq : 0, ...(m.finished === true ? { finished: true as const } : {}) };
  } catch {
    return { seq: 0 };
  }
}

const CURSOR_VERSION = 1;

/** The opaque cursor that continues a session's log after `seq`. */
export function logCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, seq }), "utf8").toString("base64url");
}

/** The seq a cursor continues after, or undefined for anything this server did not issue. */
export function readLogCursor(cursor: string): number | undefined {
  if (cursor.length === 0 || cursor.length > 128 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const doc = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; seq?: unknown };
    return doc.v === CURSOR_VERSION && typeof doc.seq === "number" && Number.isSafeInteger(doc.seq) && doc.seq >= 0 ? doc.seq : undefined;
  } catch {
    return undefined;
  }
}
