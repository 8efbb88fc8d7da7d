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
import { issueHandedSignIn } from "../sign-ins/console-sign-in.ts";

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

/**
 * How long the link an inviter is shown (no mail configured) works: long enough to pass it on by chat
 * the same day; a mailed link needs no such reach (the invitee asks for one when they come).
 */
export const HANDED_INVITATION_LINK_SECONDS = 24 * 3600;

/** An invitation as created: on a server without mail, with the one-time link the inviter passes on (it signs the invitee in). */
export type CreatedInvitation = Invitation & { signInLink: string | null };

/** Invites an address. A current member, or a pending invitation for the address, is 409 `conflict`. */
export async function createInvitation(ctx: ServiceContext, input: { email: string; role: Role }): Promise<CreatedInvitation> {
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
  if (ctx.deps.dashboard.mailer.kind !== "smtp") {
    // No mail reaches anyone: the inviter is shown a link to hand over instead (never logged or stored in the clear).
    const handed = await issueHandedSignIn(ctx.deps, email, HANDED_INVITATION_LINK_SECONDS);
    return { ...invitation, signInLink: handed?.link ?? null };
  }
  ctx.deps.dashboard.mailer.send({
    to: email,
    subject: `You are invited to ${ws.name} on Vessel`,
    text:
      `${actor.email} invited you to the workspace "${ws.name}" on Vessel.\n\n` +
      `Sign in with this address at ${ctx.deps.config.publicBaseUrl}/dashboard/sign-in within ${INVITATION_LIFETIME_DAYS} days to join.\n`,
  });
  return { ...invitation, signInLink: null };
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
