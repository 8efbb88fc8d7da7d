import { z } from "zod";
import type { SessionLogEntryView } from "../../services/session-logs/log-entries.ts";
import { SessionLogQuery } from "../../services/session-logs/log-reads.ts";
import { defineRoute, listEnvelope } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

export const SessionLogEntryDto = z
  .looseObject({
    seq: z.number().int().describe("1, 2, 3, … in the order the entries were recorded."),
    type: z.string().describe("`console`, `page_error`, `navigation`, `network`, `cdp`, or `logs.truncated` (the log reached its bounds; nothing follows)."),
    at: z.string().describe("When it was recorded (for `network`, when the request finished; `started_at` is when it began)."),
  })
  .describe(
    "One entry, its fields beside `seq`, `type` and `at` (snake_case). console: `level`, `text`, `source_url`, `line`, `column`, `page_url`. " +
      "page_error: `message`, `stack`, `source_url`, `line`, `column`, `page_url`. navigation: `url`, `frame_id`, `main_frame`, `same_document`. " +
      "network: `method`, `url`, `resource_type`, `status`, `status_text`, `mime_type`, `response_bytes`, `request_bytes`, `started_at`, " +
      "`duration_ms`, `failure`, `from_cache`, `page_url`. cdp: `method`, `duration_ms` (null: never answered), `refused` (the policy refused it). " +
      "logs.truncated: `reason`, `max_entries`, `max_bytes`.",
  )
  .meta({ id: "SessionLogEntry" });

function toSessionLogEntryDto(e: SessionLogEntryView): z.output<typeof SessionLogEntryDto> {
  return { ...e.data, seq: e.seq, type: e.type, at: e.at.toISOString() };
}

const Params = z.object({ id: z.string().min(1).max(64) });

export const sessionLogRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/logs",
    operation: operations.sessionLogs,
    summary: "Read a session's logs (long poll)",
    description:
      "What the session's pages did, in order: console messages, uncaught errors, navigations, network requests (never a body or a " +
      "header; credential query values masked) and the CDP methods clients sent (names and times, never params). Captured by the " +
      "node over its own connection unless the session was created with `logs: false`. Pass the answer's `next_cursor` as `cursor` " +
      "(or a `seq` as `after`) to read on. With `wait` (up to 30 s) an empty answer is held while the session runs until an entry is " +
      "written or the log ends: `GET /v1/sessions/{id}/logs?type=console,page_error&cursor=…&wait=30` follows a session. Kept " +
      "`VESSEL_LOGS_RETENTION_DAYS` (7) after the session started; every read is audited (`session.logs.read`).",
    tags: ["Sessions"],
    auth: "apiKeyOrUser",
    input: { params: Params, query: SessionLogQuery },
    status: 200,
    response: listEnvelope(SessionLogEntryDto, "SessionLogList"),
    problems: ["not-found"],
    handler: async (ctx, { params, query }, { res }, run) => {
      // A long poll ends early when the client goes away.
      const gone = new AbortController();
      res.once("close", () => gone.abort());
      const page = await run(ctx, params.id, query, gone.signal);
      return { items: page.items.map(toSessionLogEntryDto), next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  }),
];
