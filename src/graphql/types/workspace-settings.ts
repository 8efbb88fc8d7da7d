import type { Limits, WorkspaceSettingsView } from "../../services/workspaces/workspace-settings.ts";
import { operations } from "../../services/operations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";

const WORKSPACE = "The workspace (slug) to act in: required for dashboard users; an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

const LimitsRef = builder.objectRef<Limits>("WorkspaceLimits").implement({
  description: "A workspace's limits. In `limits`, null = the deployment's default applies; in `effective`, max_sessions null = no cap.",
  fields: (t) => ({
    maxSessions: t.int({ nullable: true, resolve: (l) => l.max_sessions }),
    maxSessionSeconds: t.int({ nullable: true, resolve: (l) => l.max_session_seconds }),
    queueWeight: t.int({ nullable: true, resolve: (l) => l.queue_weight }),
    rateLimitPerMinute: t.int({ nullable: true, resolve: (l) => l.rate_limit_per_minute }),
  }),
});

const WorkspaceSettingsRef = builder.objectRef<WorkspaceSettingsView>("WorkspaceSettings").implement({
  description: "A workspace's name and limits: its own values, what applies, and the most an owner may set.",
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.workspace.id }),
    slug: t.string({ resolve: (v) => v.workspace.slug }),
    name: t.string({ resolve: (v) => v.workspace.name }),
    createdAt: t.field({ type: "DateTime", resolve: (v) => v.workspace.createdAt }),
    limits: t.field({ type: LimitsRef, resolve: (v) => v.limits }),
    effective: t.field({ type: LimitsRef, resolve: (v) => v.effective }),
    ownerBounds: t.field({ type: LimitsRef, description: "What the deployment grants an owner (null: only the hard bound).", resolve: (v) => v.ownerBounds }),
  }),
});

builder.queryField(operations.workspaceSettings.id, (t) =>
  t.field({
    extensions: { operation: operations.workspaceSettings },
    type: WorkspaceSettingsRef,
    args: { workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.workspaceSettings, (svc, run) => run(svc), opt(args.workspace)),
  }),
);

builder.mutationField(operations.updateWorkspaceSettings.id, (t) =>
  t.field({
    extensions: { operation: operations.updateWorkspaceSettings },
    type: WorkspaceSettingsRef,
    description:
      "Rename the workspace or change its limits (owners within ownerBounds, organization admins within the hard bounds). An absent " +
      "argument is unchanged, null = the deployment's default. Above an owner's bound → FORBIDDEN naming the bound.",
    args: {
      workspace: t.arg.string({ description: WORKSPACE }),
      name: t.arg.string(),
      maxSessions: t.arg.int(),
      maxSessionSeconds: t.arg.int(),
      queueWeight: t.arg.int(),
      rateLimitPerMinute: t.arg.int(),
    },
    resolve: (_r, args, ctx) => {
      const input = {
        ...(args.name !== undefined && args.name !== null ? { name: args.name } : {}),
        ...(args.maxSessions !== undefined ? { max_sessions: args.maxSessions } : {}),
        ...(args.maxSessionSeconds !== undefined ? { max_session_seconds: args.maxSessionSeconds } : {}),
        ...(args.queueWeight !== undefined ? { queue_weight: args.queueWeight } : {}),
        ...(args.rateLimitPerMinute !== undefined ? { rate_limit_per_minute: args.rateLimitPerMinute } : {}),
      };
      return audited(ctx, operations.updateWorkspaceSettings, (svc, run) => run(svc, input), opt(args.workspace));
    },
  }),
);
