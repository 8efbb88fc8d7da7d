import { type MemberView } from "../../services/members/members.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";
import { RoleType } from "./workspace.ts";

const MemberType = builder.objectRef<MemberView>("Member").implement({
  description: "A member of a workspace and their role.",
  fields: (t) => ({
    userId: t.string({ resolve: (m) => m.userId }),
    email: t.string({ resolve: (m) => m.user.email }),
    name: t.string({ nullable: true, resolve: (m) => m.user.name }),
    role: t.field({ type: RoleType, resolve: (m) => m.role }),
    joinedAt: t.field({ type: "DateTime", resolve: (m) => m.createdAt }),
  }),
});

builder.queryField(operations.members.id, (t) =>
  t.field({
    extensions: { operation: operations.members },
    type: [MemberType],
    description: "A workspace's members, oldest first (any member).",
    args: { workspace: t.arg.string({ required: true, description: "The workspace slug." }) },
    resolve: (_r, { workspace }, ctx) => audited(ctx, operations.members, (svc, run) => run(svc), workspace),
  }),
);

builder.mutationField(operations.changeMemberRole.id, (t) =>
  t.field({
    extensions: { operation: operations.changeMemberRole },
    type: MemberType,
    description: "Change a member's role (owners and admins; only owners grant or remove OWNER). The last owner cannot be demoted (LAST_OWNER).",
    args: { workspace: t.arg.string({ required: true }), userId: t.arg.string({ required: true }), role: t.arg({ type: RoleType, required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.changeMemberRole, (svc, run) => run(svc, args.userId, args.role), args.workspace),
  }),
);

builder.mutationField(operations.removeMember.id, (t) =>
  t.field({
    extensions: { operation: operations.removeMember },
    type: MemberType,
    description: "Remove a member (owners and admins; anyone may remove themselves). The last owner cannot be removed (LAST_OWNER).",
    args: { workspace: t.arg.string({ required: true }), userId: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.removeMember, (svc, run) => run(svc, args.userId), args.workspace),
  }),
);
