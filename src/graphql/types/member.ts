import { changeMemberRole, listMembers, removeMember, type MemberView } from "../../services/members/members.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
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

builder.queryField("members", (t) =>
  t.field({
    type: [MemberType],
    description: "A workspace's members, oldest first (any member).",
    args: { workspace: t.arg.string({ required: true, description: "The workspace slug." }) },
    resolve: (_r, { workspace }, ctx) => audited(ctx, "members", (svc) => listMembers(svc, workspace), workspace),
  }),
);

builder.mutationField("changeMemberRole", (t) =>
  t.field({
    type: MemberType,
    description: "Change a member's role (owners and admins; only owners grant or remove OWNER). The last owner cannot be demoted (LAST_OWNER).",
    args: { workspace: t.arg.string({ required: true }), userId: t.arg.string({ required: true }), role: t.arg({ type: RoleType, required: true }) },
    resolve: (_r, args, ctx) =>
      audited(ctx, "changeMemberRole", (svc) => changeMemberRole(svc, args.workspace, args.userId, args.role), args.workspace),
  }),
);

builder.mutationField("removeMember", (t) =>
  t.field({
    type: MemberType,
    description: "Remove a member (owners and admins; anyone may remove themselves). The last owner cannot be removed (LAST_OWNER).",
    args: { workspace: t.arg.string({ required: true }), userId: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, "removeMember", (svc) => removeMember(svc, args.workspace, args.userId), args.workspace),
  }),
);
