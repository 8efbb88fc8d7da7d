import type { AuditEntry } from "../../generated/prisma/client.ts";
import { AuditQuery } from "../../services/audit/audit.ts";
import type { Page } from "../../kernel/pagination.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const AuditEntryType = builder.objectRef<AuditEntry>("AuditEntry").implement({
  description: "One authenticated call. Never holds a secret: API keys appear by their prefix only.",
  fields: (t) => ({
    id: t.exposeString("id"),
    keyPrefix: t.exposeString("keyPrefix", { nullable: true }),
    actorUserId: t.exposeString("actorUserId", { nullable: true }),
    action: t.exposeString("action"),
    target: t.exposeString("target", { nullable: true }),
    httpStatus: t.exposeInt("httpStatus"),
    requestId: t.exposeString("requestId", { nullable: true, description: "The request's id, as in the server log and its `X-Request-Id` answer header." }),
    clientRequestId: t.exposeString("clientRequestId", {
      nullable: true,
      description: "The `X-Request-Id` the client sent, if it was 1–128 letters, digits or `._:+/=-`; only for correlation, never the request's id.",
    }),
    ip: t.exposeString("ip", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
  }),
});

const AuditPage = builder.objectRef<Page<AuditEntry>>("AuditEntryPage").implement({
  fields: (t) => ({
    items: t.field({ type: [AuditEntryType], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

builder.queryField(operations.auditLog.id, (t) =>
  t.field({
    extensions: { operation: operations.auditLog },
    type: AuditPage,
    description:
      "A workspace's audit log, newest first (owners and admins; members and API keys are refused). Filters combine; " +
      "`since` is inclusive and `until` exclusive.",
    args: {
      workspace: t.arg.string({ required: true }),
      keyPrefix: t.arg.string({ description: "`vs_<id>`: only that API key's calls." }),
      action: t.arg.string(),
      actorUserId: t.arg.string(),
      target: t.arg.string({ description: "Only calls on this resource (a session id, an API key id…)." }),
      since: t.arg({ type: "DateTime" }),
      until: t.arg({ type: "DateTime" }),
      changesOnly: t.arg.boolean({ description: "true: leave reads out (lists, gets, exports, event and log reads), so the changes stand out." }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      audited(
        ctx,
        operations.auditLog,
        (svc, run) =>
          run(
            svc,
            parseInput(AuditQuery, {
              key_prefix: args.keyPrefix ?? undefined,
              action: args.action ?? undefined,
              actor_user_id: args.actorUserId ?? undefined,
              target: args.target ?? undefined,
              since: args.since?.toISOString(),
              until: args.until?.toISOString(),
              changes_only: args.changesOnly === true ? "true" : undefined,
              limit: args.limit ?? undefined,
              cursor: args.cursor ?? undefined,
            }),
          ),
        args.workspace,
      ),
  }),
);
