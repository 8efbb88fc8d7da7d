import { sessionEventTypes, type SessionEventView, type SessionEventType } from "../../services/session-events/session-events.ts";
import { followSessionEvents, SessionEventQuery, type EventPage } from "../../services/session-events/event-feed.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const SessionEventTypeEnum = builder.enumType("SessionEventType", {
  description: "What happened: `session.running` is SESSION_RUNNING, `live_view.done` is LIVE_VIEW_DONE, and so on.",
  values: Object.fromEntries(sessionEventTypes.map((t) => [t.replace(/[._]/g, "_").toUpperCase(), { value: t }])) as Record<
    string,
    { value: SessionEventType }
  >,
});

const SessionEventRef = builder.objectRef<SessionEventView>("SessionEvent").implement({
  description: "Something that happened to a session. Events sort by id.",
  fields: (t) => ({
    id: t.exposeString("id"),
    sessionId: t.exposeString("sessionId"),
    type: t.field({ type: SessionEventTypeEnum, resolve: (e) => e.type as SessionEventType }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    data: t.string({ description: "Details by type, as a JSON object.", resolve: (e) => JSON.stringify(e.data) }),
  }),
});

const SessionEventPage = builder.objectRef<EventPage>("SessionEventPage").implement({
  fields: (t) => ({
    items: t.field({ type: [SessionEventRef], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true, description: "Pass as `after` to read on." }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

const typesArg = (types: readonly SessionEventType[] | null | undefined) => (types && types.length > 0 ? types.join(",") : undefined);

builder.queryField(operations.sessionEvents.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionEvents },
    type: SessionEventPage,
    description: "A session's events, oldest first; `wait` (seconds, up to 30) holds an empty answer until one arrives.",
    args: {
      sessionId: t.arg.string({ required: true }),
      after: t.arg.string(),
      types: t.arg({ type: [SessionEventTypeEnum] }),
      limit: t.arg.int(),
      wait: t.arg.int(),
    },
    resolve: (_r, args, ctx) =>
      audited(ctx, operations.sessionEvents, (svc, run) =>
        run(
          svc,
          args.sessionId,
          parseInput(SessionEventQuery, {
            after: args.after ?? undefined,
            type: typesArg(args.types),
            limit: args.limit ?? undefined,
            wait: args.wait ?? undefined,
          }),
        ),
      ),
  }),
);

builder.subscriptionType({});

builder.subscriptionField(operations.sessionEvents.id, (t) =>
  t.field({
    type: SessionEventRef,
    description:
      "A session's events as they happen (over graphql-ws at /graphql), after replaying those after `after`. Completes after the session's final event.",
    args: { sessionId: t.arg.string({ required: true }), after: t.arg.string(), types: t.arg({ type: [SessionEventTypeEnum] }) },
    subscribe: (_r, args, ctx) =>
      audited(ctx, operations.sessionEvents, (svc) => {
        const q = parseInput(SessionEventQuery, { after: args.after ?? undefined, type: typesArg(args.types) });
        return followSessionEvents(svc, args.sessionId, { after: q.after, types: q.type });
      }),
    resolve: (event) => event,
  }),
);

builder.mutationField(operations.revokeLiveViews.id, (t) =>
  t.field({
    extensions: { operation: operations.revokeLiveViews },
    type: "Boolean",
    description: "Close every live view of a session (links handed out so far stop working).",
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, { id }, ctx) => audited(ctx, operations.revokeLiveViews, async (svc, run) => (await run(svc, id), true)),
  }),
);
