import { z } from "zod";
import { openBundle } from "../../services/session-exports/bundle.ts";
import { operations } from "../../services/operations.ts";
import { defineRoute, FileReply } from "../define-route.ts";

const Params = z.object({ id: z.string().min(1).max(64) });
const Query = z.object({
  workspace: z.string().min(1).max(64).optional().describe("Dashboard users may name the session's workspace (slug); API keys act in their own."),
});

const NameValue = z.object({ name: z.string(), value: z.string() });
export const HarDto = z
  .looseObject({
    log: z.looseObject({
      version: z.literal("1.2"),
      creator: z.object({ name: z.string(), version: z.string() }),
      pages: z.array(z.looseObject({ id: z.string(), startedDateTime: z.string(), title: z.string(), pageTimings: z.looseObject({}) })),
      entries: z.array(
        z.looseObject({
          pageref: z.string().optional(),
          startedDateTime: z.string(),
          time: z.number(),
          request: z.looseObject({ method: z.string(), url: z.string(), headers: z.array(NameValue) }),
          response: z.looseObject({ status: z.number().int(), headers: z.array(NameValue), redirectURL: z.string() }),
          timings: z.looseObject({ send: z.number(), wait: z.number(), receive: z.number() }),
        }),
      ),
    }),
  })
  .describe("HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): its `log` with `pages` and `entries`.")
  .meta({ id: "Har" });

export const sessionExportRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/har",
    operation: operations.sessionHar,
    summary: "Export a session's network log as HAR",
    description:
      "HAR 1.2, built from the session's logs (so only for sessions whose logs are captured, within `VESSEL_LOGS_RETENTION_DAYS`): a " +
      "page per document its tabs' main frames committed, an entry per request and per hop of a redirect (`redirectURL`), with status, " +
      "timings (blocked, dns, connect, ssl, send, wait, receive), sizes, mime type and headers. Header names are kept; the values of " +
      "credential headers (`Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, …) and credential query values are `[redacted]`, by the " +
      "same rule as the logs; bodies are never kept. A failed request has status 0 and `response._failure`. Audited (`session.har.read`).",
    tags: ["Sessions"],
    input: { params: Params, query: Query },
    status: 200,
    response: HarDto,
    problems: ["not-found", "forbidden"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }, _http, run) => (await run(ctx, params.id)).har,
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/bundle",
    operation: operations.sessionBundle,
    summary: "Download a session's evidence bundle (zip)",
    description:
      "One zip of what Vessel keeps of the session, written as it is sent: `session.json` (the session as `GET /v1/sessions/{id}` " +
      "shows it, without its URLs), `events.json` (its events, oldest first), `logs.ndjson` (its log entries, one JSON object a line), " +
      "`session.har` (as `GET /v1/sessions/{id}/har`) and `recording.mp4` when it has a video. 409 `recording-not-ready` with " +
      "`Retry-After` while its recording is still being written; a failed, deleted or expired recording is left out. Audited " +
      "(`session.bundle.read`).",
    tags: ["Sessions"],
    input: { params: Params, query: Query },
    status: 200,
    file: "application/zip",
    problems: ["not-found", "forbidden", "recording-not-ready"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }, _http, run) => {
      const view = await run(ctx, params.id);
      return new FileReply(`${view.sessionId}.zip`, null, () => openBundle(ctx, view), "application/zip");
    },
  }),
];
