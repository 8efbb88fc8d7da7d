import type { User } from "../../generated/prisma/client.ts";
import { getMe, type Me } from "../../services/sign-ins/users.ts";
import { audited } from "../audited.ts";
import { builder, type GraphQLContext } from "../builder.ts";
import { operations } from "../../services/operations.ts";
import { WorkspaceType } from "./workspace.ts";

export const MeType = builder.objectRef<Me>("Me").implement({
  description: "The signed-in dashboard user.",
  fields: (t) => ({
    id: t.string({ resolve: (m) => m.user.id }),
    email: t.string({ resolve: (m) => m.user.email }),
    name: t.string({ nullable: true, resolve: (m) => m.user.name }),
    createdAt: t.field({ type: "DateTime", resolve: (m) => m.user.createdAt }),
    lastSignInAt: t.field({ type: "DateTime", nullable: true, resolve: (m) => m.user.lastLoginAt }),
    organizationAdmin: t.boolean({
      description: "Listed in dashboard.api.bootstrapAdminEmails: may create workspaces.",
      resolve: (m) => m.organizationAdmin,
    }),
    workspaces: t.field({ type: [WorkspaceType], resolve: (m) => m.memberships }),
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
