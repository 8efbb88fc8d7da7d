import type { Invitation } from "../../generated/prisma/client.ts";
import { invitationStatus } from "../../services/invitations/invitations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";
import { RoleType } from "./workspace.ts";

const InvitationStatusType = builder.enumType("InvitationStatus", { values: ["PENDING", "ACCEPTED", "REVOKED", "EXPIRED"] as const });

const InvitationType = builder.objectRef<Invitation & { signInLink?: string | null }>("Invitation").implement({
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
    signInLink: t.string({
      nullable: true,
      description:
        "Only in createInvitation's answer, and only on a server that sends no mail (no VESSEL_SMTP_HOST): a one-time link (24 hours) that signs the invitee in. " +
        "Pass it on to them yourself; it is shown once, never stored in the clear or logged. Null otherwise.",
      resolve: (i) => i.signInLink ?? null,
    }),
  }),
});

builder.queryField(operations.invitations.id, (t) =>
  t.field({
    extensions: { operation: operations.invitations },
    type: [InvitationType],
    description: "A workspace's invitations, newest first, in every state (owners and admins).",
    args: { workspace: t.arg.string({ required: true, description: "The workspace slug." }) },
    resolve: (_r, { workspace }, ctx) => audited(ctx, operations.invitations, (svc, run) => run(svc), workspace),
  }),
);

builder.mutationField(operations.createInvitation.id, (t) =>
  t.field({
    extensions: { operation: operations.createInvitation },
    type: InvitationType,
    description:
      "Invite an address with a role (owners and admins; only owners invite owners). The address gets a mail; on a server without mail the answer's signInLink is the link to pass on.",
    args: { workspace: t.arg.string({ required: true }), email: t.arg.string({ required: true }), role: t.arg({ type: RoleType, required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.createInvitation, (svc, run) => run(svc, { email: args.email, role: args.role }), args.workspace),
  }),
);

builder.mutationField(operations.revokeInvitation.id, (t) =>
  t.field({
    extensions: { operation: operations.revokeInvitation },
    type: InvitationType,
    description: "Revoke a pending invitation (owners and admins). Idempotent.",
    args: { workspace: t.arg.string({ required: true }), id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.revokeInvitation, (svc, run) => run(svc, args.id), args.workspace),
  }),
);
