import type { Invitation } from "../../generated/prisma/client.ts";
import { createInvitation, invitationStatus, listInvitations, revokeInvitation } from "../../services/invitations/invitations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { RoleType } from "./workspace.ts";

const InvitationStatusType = builder.enumType("InvitationStatus", { values: ["PENDING", "ACCEPTED", "REVOKED", "EXPIRED"] as const });

const InvitationType = builder.objectRef<Invitation>("Invitation").implement({
  description: "An invitation to a workspace: accepted by the first sign-in of its address within 7 days.",
  fields: (t) => ({
    id: t.exposeString("id"),
    email: t.exposeString("email"),
    role: t.field({ type: RoleType, resolve: (i) => i.role }),
    status: t.field({ type: InvitationStatusType, resolve: (i, _a, ctx) => invitationStatus(i, ctx.services.deps.now()) }),
    invitedByUserId: t.exposeString("invitedById", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (i) => i.createdAt }),
    expiresAt: t.field({ type: "DateTime", resolve: (i) => i.expiresAt }),
    acceptedAt: t.field({ type: "DateTime", nullable: true, resolve: (i) => i.acceptedAt }),
    revokedAt: t.field({ type: "DateTime", nullable: true, resolve: (i) => i.revokedAt }),
  }),
});

builder.queryField("invitations", (t) =>
  t.field({
    type: [InvitationType],
    description: "A workspace's invitations, newest first, in every state (owners and admins).",
    args: { workspace: t.arg.string({ required: true, description: "The workspace slug." }) },
    resolve: (_r, { workspace }, ctx) => audited(ctx, "invitations", (svc) => listInvitations(svc, workspace), workspace),
  }),
);

builder.mutationField("createInvitation", (t) =>
  t.field({
    type: InvitationType,
    description: "Invite an address with a role (owners and admins; only owners invite owners). The address gets a mail.",
    args: { workspace: t.arg.string({ required: true }), email: t.arg.string({ required: true }), role: t.arg({ type: RoleType, required: true }) },
    resolve: (_r, args, ctx) =>
      audited(ctx, "createInvitation", (svc) => createInvitation(svc, args.workspace, { email: args.email, role: args.role }), args.workspace),
  }),
);

builder.mutationField("revokeInvitation", (t) =>
  t.field({
    type: InvitationType,
    description: "Revoke a pending invitation (owners and admins). Idempotent.",
    args: { workspace: t.arg.string({ required: true }), id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, "revokeInvitation", (svc) => revokeInvitation(svc, args.workspace, args.id), args.workspace),
  }),
);
