import { z } from "zod";
import { toPageDto } from "../presenters/page.ts";
import { CreateSessionInput, SessionListQuery } from "../../services/sessions/session-input.ts";
import { SessionDto, toSessionDto } from "../../services/sessions/session-wire.ts";
import { BrowserSettingsInput } from "../../services/sessions/browser-settings-input.ts";
import type { SessionView } from "../../services/sessions/session-view.ts";
import type { SessionEventView } from "../../services/session-events/session-events.ts";
import { SessionEventQuery } from "../../services/session-events/event-feed.ts";
import { Reply, defineRoute, listEnvelope } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

export const SessionEventDto = z
  .object({
    id: z.string().describe("`evt_<ULID>`: events sort by id."),
    session_id: z.string(),
    type: z.string().describe("For example `live_view.done`."),
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()).describe("Details by type: an end's `reason`, a viewer's `viewer_id`, a CDP client count."),
  })
  .meta({ id: "SessionEvent" });

function toSessionEventDto(e: SessionEventView): z.infer<typeof SessionEventDto> {
  return { id: e.id, session_id: e.sessionId, type: e.type, created_at: e.createdAt.toISOString(), data: e.data };
}

const viewDto = (v: SessionView, viewers = 0) => toSessionDto(v.session, v, viewers);
const Id = z.object({ id: z.string().min(1).max(64) });

export const sessionRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/sessions",
    operation: operations.createSession,
    summary: "Create a browser session",
    description:
      "Starts a Chromium for the key's workspace and answers 201 once it is RUNNING, with `connect_url` and `live_view_url`. " +
      "`Idempotency-Key` (a UUID) is required: the same key and body within 24 hours replays the first answer with 200 and " +
      "`Idempotent-Replayed: true`; the same key with another body is 422; while the first is in flight, 409 with `Retry-After`. " +
      "Requests refused before they run (400, 401, 403, 429) and failures (503, 5xx) store nothing, so they can be retried with the same key. " +
      "A workspace already holding its cap of live sessions (`VESSEL_WORKSPACE_MAX_SESSIONS`, or its own) gets 429 `workspace-session-limit` " +
      "with `Retry-After`; a replay is never refused by the cap.",
    tags: ["Sessions"],
    input: { headers: z.object({ "idempotency-key": z.string().optional().describe("A UUID, one per logical request.") }), body: CreateSessionInput },
    fieldHints: (deps) => ({ "body.region": `this deployment serves: ${deps.config.regions.join(", ")}` }),
    status: 201,
    response: SessionDto,
    alternatives: {
      200: { description: "Replay of the first answer for this Idempotency-Key (`Idempotent-Replayed: true`)." },
      202: {
        description:
          "Queued (`queue_timeout_seconds` > 0 and no free browser, or the workspace at its cap): `status` QUEUED with `queue_position`, " +
          "`Location` the session. It becomes RUNNING as soon as a browser frees anywhere (event `session.started`), or ends TIMED_OUT " +
          "`queue_timeout`. A replay answers the session as it is now.",
      },
    },
    problems: [
      "idempotency-key-missing",
      "idempotency-key-invalid",
      "idempotency-key-in-use",
      "idempotency-key-reused",
      "unknown-region",
      "not-found",
      "forbidden",
      "workspace-session-limit",
      "queue-full",
      "insufficient-capacity",
      "profile-unreadable",
      "extensions-unsupported",
      "extensions-need-jail",
      "extension-permission-refused",
      "invalid-extension",
    ],
    bodyLimit: "16kb",
    databaseBudget: true,
    handler: async (ctx, { headers, body }, _http, run) => {
      const created = await run(ctx, body, headers["idempotency-key"]);
      const location = { Location: `/v1/sessions/${created.view.session.id}` };
      if (created.view.session.status === "QUEUED") {
        return new Reply(202, viewDto(created.view), created.replayed ? { ...location, "Idempotent-Replayed": "true" } : location);
      }
      if (!created.replayed) return new Reply(201, viewDto(created.view));
      // The first answer again; an older stored answer is that REST body, replayed as it is.
      const replayed = created.storedBody !== undefined ? (created.storedBody as z.infer<typeof SessionDto>) : viewDto(created.view);
      return new Reply(200, replayed, { "Idempotent-Replayed": "true" });
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions",
    operation: operations.sessions,
    summary: "List sessions",
    description: "The workspace's sessions in creation (ULID) order; cursors stay stable while sessions are created. No tokens in lists.",
    tags: ["Sessions"],
    input: { query: SessionListQuery },
    status: 200,
    response: listEnvelope(SessionDto, "SessionList"),
    problems: ["forbidden"],
    handler: async (ctx, { query }, _http, run) =>
      toPageDto(await run(ctx, query), (s) =>
        toSessionDto(s, { connectUrl: null, liveViewUrl: null, queuePosition: s.queuePosition }, ctx.deps.runtime.viewerCount(s.id)),
      ),
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}",
    operation: operations.session,
    summary: "Get a session",
    description: "With freshly minted `connect_url` and `live_view_url` while it runs.",
    tags: ["Sessions"],
    input: { params: Id },
    status: 200,
    response: SessionDto,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => viewDto(await run(ctx, params.id), ctx.deps.runtime.viewerCount(params.id)),
  }),
  defineRoute({
    method: "patch",
    path: "/v1/sessions/{id}",
    operation: operations.releaseSession,
    summary: "Release a session",
    description: '`{"status": "REQUEST_RELEASE"}` ends the session: its browser closes and its sockets close. 204, also for a session that already ended.',
    tags: ["Sessions"],
    input: { params: Id, body: z.strictObject({ status: z.literal("REQUEST_RELEASE") }) },
    status: 204,
    problems: ["not-found", "forbidden"],
    bodyLimit: "1kb",
    handler: async (ctx, { params }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/sessions/{id}",
    operation: operations.forceStopSession,
    summary: "Force-stop a session (dashboard)",
    description: "For workspace owners and admins signed in to the dashboard. API keys get 403: they release with PATCH.",
    tags: ["Sessions"],
    auth: "apiKeyOrUser",
    input: { params: Id },
    status: 204,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/events",
    operation: operations.sessionEvents,
    summary: "Read a session's events (long poll)",
    description:
      "What happened to the session, oldest first: `session.running`, `session.released`, `session.timed_out`, `session.failed`, " +
      "`live_view.opened`, `live_view.closed`, `live_view.done` (the person clicked Done), `cdp.connected`, `cdp.disconnected`. " +
      "Pass the answer's `next_cursor` as `after` to read on. With `wait` (up to 30 s) an empty answer is held until a matching " +
      "event arrives or the session ends, so waiting for Done needs no tight loop: " +
      "`GET /v1/sessions/{id}/events?type=live_view.done&wait=30`.",
    tags: ["Sessions"],
    auth: "apiKeyOrUser",
    input: { params: Id, query: SessionEventQuery },
    status: 200,
    response: listEnvelope(SessionEventDto, "SessionEventList"),
    problems: ["not-found"],
    handler: async (ctx, { params, query }, { res }, run) => {
      // A long poll ends early when the client goes away.
      const gone = new AbortController();
      res.once("close", () => gone.abort());
      const page = await run(ctx, params.id, query, gone.signal);
      return { items: page.items.map(toSessionEventDto), next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/sessions/{id}/live-view",
    operation: operations.revokeLiveViews,
    summary: "Close a session's live views",
    description:
      "Every `live_view_url` handed out so far stops working and open viewers are dropped (they are told why); the session keeps " +
      "running. A new link comes from keepalive. API keys of the session's workspace, or its dashboard owners and admins.",
    tags: ["Sessions"],
    auth: "apiKeyOrUser",
    input: { params: Id },
    status: 204,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/sessions/{id}:keepalive",
    operation: operations.keepaliveSession,
    summary: "Re-mint a session's tokens",
    description: "New `connect_url` and `live_view_url` (never past the session's hard end); also resets the idle countdown.",
    tags: ["Sessions"],
    input: { params: Id },
    status: 200,
    response: SessionDto,
    problems: ["not-found", "forbidden", "conflict"],
    handler: async (ctx, { params }, _http, run) => viewDto(await run(ctx, params.id), ctx.deps.runtime.viewerCount(params.id)),
  }),
];
