import type { User } from "../../generated/prisma/client.ts";
import { getMe, type Me } from "../../services/sign-ins/users.ts";
import { audited } from "../audited.ts";
import { builder, type GraphQLContext } from "../builder.ts";
import { operations } from "../../services/operations.ts";
import { WorkspaceType } from "./workspace.ts";
import { listClaimableWorkspaces } from "../../services/workspaces/workspace-claims.ts";

const ClaimableWorkspaceType = builder.objectRef<{ slug: string; name: string }>("ClaimableWorkspace").implement({
  description: "A workspace without an owner, which this organization admin may claim (claimWorkspace).",
  fields: (t) => ({ slug: t.exposeString("slug"), name: t.exposeString("name") }),
});

export const MeType = builder.objectRef<Me>("Me").implement({
  description: "The signed-in dashboard user.",
  fields: (t) => ({
    id: t.string({ resolve: (m) => m.user.id }),
    email: t.string({ resolve: (m) => m.user.email }),
    name: t.string({ nullable: true, resolve: (m) => m.user.name }),
    createdAt: t.field({ type: "DateTime", resolve: (m) => m.user.createdAt }),
    lastSignInAt: t.field({ type: "DateTime", nullable: true, resolve: (m) => m.user.lastLoginAt }),
    organizationAdmin: t.boolean({
      description: "Listed in dashboard.api.bootstrapAdminEmails (or, with that list empty, the local administrator): may create and claim workspaces.",
      resolve: (m) => m.organizationAdmin,
    }),
    workspaces: t.field({ type: [WorkspaceType], resolve: (m) => m.memberships }),
    claimableWorkspaces: t.field({
      type: [ClaimableWorkspaceType],
      description: "Workspaces without an owner that this user may claim: every one for an organization admin, none otherwise.",
      resolve: (m, _a, ctx) => listClaimableWorkspaces({ ...ctx.services, principal: { kind: "user", userId: m.user.id, email: m.user.email } }),
    }),
  }),
});

/** The profile of a user who just signed in (the call itself carried no principal yet). */
export function loadMe(ctx: GraphQLContext, user: User): Promise<Me> {
  return getMe({ ...ctx.services, principal: { kind: "user", userId: user.id, email: user.email } });
}

builder.queryField(operations.me.id, (t) =>
  t.field({
    extensions: { operation: operations.me },
    type: MeType,
    description: "The signed-in dashboard user (API keys are refused).",
    resolve: (_r, _a, ctx) => audited(ctx, operations.me, (svc, run) => run(svc)),
  }),
);
