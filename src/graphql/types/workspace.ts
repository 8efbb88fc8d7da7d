import type { Role, Workspace } from "../../generated/prisma/client.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

export const RoleType = builder.enumType("Role", {
  description: "OWNER: everything, owners included. ADMIN: API keys, invitations, members below owner, audit log. MEMBER: reads.",
  values: ["OWNER", "ADMIN", "MEMBER"] as const,
});

export interface WorkspaceView {
  workspace: Workspace;
  /** The caller's role in it. */
  role: Role;
}

export const WorkspaceType = builder.objectRef<WorkspaceView>("Workspace").implement({
  description: "A workspace the caller belongs to.",
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.workspace.id }),
    slug: t.string({ resolve: (v) => v.workspace.slug }),
    name: t.string({ resolve: (v) => v.workspace.name }),
    createdAt: t.field({ type: "DateTime", resolve: (v) => v.workspace.createdAt }),
    role: t.field({ type: RoleType, description: "The caller's role in this workspace.", resolve: (v) => v.role }),
  }),
});

builder.queryField(operations.workspaces.id, (t) =>
  t.field({
    extensions: { operation: operations.workspaces },
    type: [WorkspaceType],
    description: "The signed-in user's workspaces, by slug (dashboard; API keys are refused).",
    resolve: (_r, _a, ctx) => audited(ctx, operations.workspaces, (svc, run) => run(svc)),
  }),
);

builder.mutationField(operations.createWorkspace.id, (t) =>
  t.field({
    extensions: { operation: operations.createWorkspace },
    type: WorkspaceType,
    description: "Create a workspace and become its owner (organization admins only).",
    args: { slug: t.arg.string({ required: true }), name: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.createWorkspace, (svc, run) => run(svc, { slug: args.slug, name: args.name })),
  }),
);

builder.mutationField(operations.claimWorkspace.id, (t) =>
  t.field({
    extensions: { operation: operations.claimWorkspace },
    type: WorkspaceType,
    description:
      "Become the owner of a workspace that has none (organization admins only; see Me.claimableWorkspaces). " +
      "A workspace with an owner is a conflict: ask that owner for an invitation.",
    args: { slug: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.claimWorkspace, (svc, run) => run(svc, args.slug)),
  }),
);
