import type { SessionLogEntryView, SessionLogPage } from "../../services/session-logs/log-entries.ts";
import { followSessionLogs } from "../../services/session-logs/log-feed.ts";
import { SessionLogQuery } from "../../services/session-logs/log-reads.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const SessionLogEntryRef = builder.objectRef<SessionLogEntryView>("SessionLogEntry").implement({
  description: "One entry of a session's log (console, page_error, navigation, network, cdp, logs.truncated). Entries sort by seq.",
  fields: (t) => ({
    seq: t.exposeInt("seq", { description: "1, 2, 3, … in the order the entries were recorded." }),
    type: t.exposeString("type"),
    at: t.field({ type: "DateTime", resolve: (e) => e.at }),
    data: t.string({
      description: "The entry's fields by type, as a JSON object (snake_case, as REST's GET /v1/sessions/{id}/logs shows them beside seq, type and at).",
      resolve: (e) => JSON.stringify(e.data),
    }),
  }),
});

const SessionLogPageRef = builder.objectRef<SessionLogPage>("SessionLogPage").implement({
  fields: (t) => ({
    items: t.field({ type: [SessionLogEntryRef], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true, description: "Pass as `cursor` to read on." }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

const typesArg = (types: readonly string[] | null | undefined) => (types && types.length > 0 ? types.join(",") : undefined);

builder.queryField(operations.sessionLogs.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionLogs },
    type: SessionLogPageRef,
    description:
      "A session's log, oldest first: console messages, page errors, navigations, network requests and CDP methods (see GET /v1/sessions/{id}/logs).",
    args: {
      id: t.arg.string({ required: true }),
      types: t.arg.stringList({ description: "console, network, page_error, navigation, cdp (logs.truncated always comes too)." }),
      after: t.arg.int({ description: "Only entries after this seq." }),
      first: t.arg.int({ description: "At most this many (1–1000, default 100)." }),
      cursor: t.arg.string({ description: "The nextCursor of the previous page." }),
      workspace: t.arg.string({ description: "The workspace's slug (dashboard users): the session must be one of its." }),
    },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.sessionLogs,
        (svc, run) =>
          run(
            svc,
            args.id,
            parseInput(SessionLogQuery, {
              type: typesArg(args.types),
              after: args.after ?? undefined,
              limit: args.first ?? undefined,
              cursor: args.cursor ?? undefined,
            }),
            undefined,
          ),
        args.workspace ?? undefined,
      ),
  }),
);

builder.subscriptionField(operations.sessionLogs.id, (t) =>
  t.field({
    type: SessionLogEntryRef,
    description:
      "A session's log as it is written (over graphql-ws at /graphql), after replaying what came after `after`. Completes once the session has ended and its last entries are delivered.",
    args: {
      id: t.arg.string({ required: true }),
      types: t.arg.stringList(),
      after: t.arg.int(),
      workspace: t.arg.string(),
    },
    subscribe: (_r, args, ctx) =>
      audited(
        ctx,
        operations.sessionLogs,
        (svc) => {
          const q = parseInput(SessionLogQuery, { type: typesArg(args.types), after: args.after ?? undefined });
          return followSessionLogs(svc, args.id, { after: q.after, types: q.type });
        },
        args.workspace ?? undefined,
      ),
    resolve: (entry) => entry,
  }),
);
