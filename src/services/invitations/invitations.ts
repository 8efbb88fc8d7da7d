import { ulid } from "../../ids.ts";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import type { Invitation, Role } from "../../generated/prisma/client.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { requireWorkspaceRole } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { lockWorkspace, RoleInput } from "../members/members.ts";
import { parseInput, prismaOf } from "../../kernel/support.ts";
import { EmailAddress, requireUser } from "../sign-ins/users.ts";

/**
 * Invitations (sign-up is by invitation only, spec 5.2). An invitation names an address and a role;
 * the first sign-in of that address within 7 days turns it into a membership. Owners and admins
 * invite; only owners invite owners.
 */

export const INVITATION_LIFETIME_DAYS = 7;

const CreateInvitationInput = z.object({ email: EmailAddress, role: RoleInput });
const InvitationId = z.string({ error: "must be a string" }).min(1, "cannot be empty").max(64, "must be at most 64 characters");

export type InvitationStatus = "PENDING" | "ACCEPTED" | "REVOKED" | "EXPIRED";

export function invitationStatus(inv: Invitation, now: Date): InvitationStatus {
  if (inv.acceptedAt) return "ACCEPTED";
  if (inv.revokedAt) return "REVOKED";
  return inv.expiresAt <= now ? "EXPIRED" : "PENDING";
}

/** Invites an address. A current member, or a pending invitation for the address, is 409 `conflict`. */
export async function createInvitation(ctx: ServiceContext, input: { email: string; role: Role }): Promise<Invitation> {
  const actor = requireUser(ctx, "invite members");
  const { email, role } = parseInput(CreateInvitationInput, input);
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "invite members");
  const now = ctx.deps.now();
  const invitation = await auditedTransaction(ctx, async (tx, audit) => {
    const actorRole = await lockWorkspace(tx, ws, actor.userId);
    if (actorRole === "MEMBER") throw new AppError("forbidden", "Only owners and admins can invite members.");
    if (role === "OWNER" && actorRole !== "OWNER") throw new AppError("forbidden", "Only owners can invite an owner.");
    const member = await tx.membership.findFirst({ where: { workspaceId: ws.id, user: { email } }, select: { userId: true } });
    if (member) throw new AppError("conflict", "This address already belongs to a member of the workspace.");
    const pending = await tx.invitation.findFirst({ where: { workspaceId: ws.id, email, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } } });
    if (pending) throw new AppError("conflict", "This address already has a pending invitation; revoke it to invite again.");
    const row = await tx.invitation.create({
      data: {
        id: ulid(now.getTime()),
        workspaceId: ws.id,
        email,
        role,
        invitedById: actor.userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_DAYS * 24 * 3600 * 1000),
      },
    });
    await audit(row.id);
    return row;
  });
  ctx.deps.dashboard.mailer.send({
    to: email,
    subject: `You are invited to ${ws.name} on Vessel`,
    text:
      `${actor.email} invited you to the workspace "${ws.name}" on Vessel.\n\n` +
      `Sign in with this address at ${ctx.deps.config.publicBaseUrl}/dashboard/sign-in within ${INVITATION_LIFETIME_DAYS} days to join.\n`,
  });
  return invitation;
}

/** The workspace's invitations, newest first, whatever their state (owners and admins). */
export async function listInvitations(ctx: ServiceContext): Promise<Invitation[]> {
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "list invitations");
  return prismaOf(ctx).invitation.findMany({ where: { workspaceId: ws.id }, orderBy: { id: "desc" } });
}

/**
 * Revokes a pending invitation (owners and admins). Idempotent for a revoked one; an accepted one is
 * 409 (remove the member instead); another workspace's, or none, is 404.
 */
export async function revokeInvitation(ctx: ServiceContext, id: string): Promise<Invitation> {
  const invitationId = parseInput(InvitationId, id);
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "revoke invitations");
  return auditedTransaction(ctx, async (tx, audit) => {
    await tx.invitation.updateMany({ where: { id: invitationId, workspaceId: ws.id, acceptedAt: null, revokedAt: null }, data: { revokedAt: ctx.deps.now() } });
    const row = await tx.invitation.findFirst({ where: { id: invitationId, workspaceId: ws.id } });
    if (!row) throw new AppError("not-found", "No such invitation in this workspace.");
    if (row.acceptedAt) throw new AppError("conflict", "This invitation was already accepted; remove the member instead.");
    await audit(invitationId);
    return row;
  });
}
