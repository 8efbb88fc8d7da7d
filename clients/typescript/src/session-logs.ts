import type { Client } from "./api.ts";
import type { components, operations, paths } from "./generated/openapi.ts";

/** One entry of a session's log: `seq`, `type`, `at` and the fields of its type (see docs/sessions.md, Session logs). */
export type SessionLogEntry = components["schemas"]["SessionLogEntry"];
type SessionLogQuery = NonNullable<operations["sessionLogs"]["parameters"]["query"]>;
type Call = <T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>) => Promise<T>;

export interface SessionLogsOptions {
  /** Only these types (`console`, `network`, `page_error`, `navigation`, `cdp`); `logs.truncated` always comes. */
  types?: string[];
  /** Only entries after this `seq`. */
  after?: number;
  /** Keep long-polling until the session has ended and its last entries are read (default: what is there now). */
  follow?: boolean;
}

const live = ["PENDING", "RUNNING", "REQUEST_RELEASE"];
/** What a long poll holds at most (the server's limit). */
const WAIT_SECONDS = 30;

/** The entries of a session's log in order, page after page (Sessions.logs). */
export async function* sessionLogs(api: Client<paths>, call: Call, id: string, options: SessionLogsOptions): AsyncGenerator<SessionLogEntry> {
  const base: SessionLogQuery = { limit: 1000, ...(options.types?.length ? { type: options.types.join(",") } : {}) };
  let position: Pick<SessionLogQuery, "after" | "cursor"> = options.after !== undefined ? { after: options.after } : {};
  for (;;) {
    const wait = options.follow ? WAIT_SECONDS : 0;
    const page = await call(() => api.GET("/v1/sessions/{id}/logs", { params: { path: { id }, query: { ...base, ...position, wait } } }));
    yield* page.items;
    if (page.next_cursor) position = { cursor: page.next_cursor };
    if (page.has_more) continue;
    if (!options.follow) return;
    // An empty answer to a long poll: the wait ran out, or the session's log has ended.
    if (page.items.length === 0) {
      const session = await call(() => api.GET("/v1/sessions/{id}", { params: { path: { id } } }));
      if (!live.includes(session.status)) return;
    }
  }
}
