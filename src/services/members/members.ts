import { z } from "zod";
import { AppError } from "../../errors.ts";
import type { Membership, Prisma, Role, User, Workspace } from "../../generated/prisma/client.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { requireWorkspaceRole } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { parseInput, prismaOf } from "../../kernel/support.ts";
import { requireUser } from "../sign-ins/users.ts";

/**
 * Workspace members. Roles: OWNER (everything, including owners), ADMIN (keys, invitations, members
 * below owner), MEMBER (reads). A workspace always keeps an owner: demoting or removing the last one
 * is 409 `last-owner`.
 *
 * Every change takes a row lock on the workspace first (SELECT … FOR UPDATE), so changes to one
 * workspace's members run one at a time and the owner count each one checks is current: two owners
 * demoting each other in parallel leave one owner, never none.
 */

export const RoleInput = z.enum(["OWNER", "ADMIN", "MEMBER"], { error: "must be OWNER, ADMIN or MEMBER" });
const UserId = z.string({ error: "must be a string" }).min(1, "cannot be empty").max(64, "must be at most 64 characters");

export type MemberView = Membership & { user: User };

const allRoles: readonly Role[] = ["OWNER", "ADMIN", "MEMBER"];

/** Every member of the workspace with their role, oldest first (any member may list them). */
export async function listMembers(ctx: ServiceContext): Promise<MemberView[]> {
  const ws = await requireWorkspaceRole(ctx, allRoles, "list members");
  return prismaOf(ctx).membership.findMany({ where: { workspaceId: ws.id }, include: { user: true }, orderBy: [{ createdAt: "asc" }, { userId: "asc" }] });
}

/**
 * Locks the workspace for a membership change and returns it with the actor's current role (read
 * after the lock, so a concurrent demotion of the actor is seen).
 */
export async function lockWorkspace(tx: Prisma.TransactionClient, workspace: Workspace, actorUserId: string): Promise<Role> {
  await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspace.id} FOR UPDATE`;
  const actor = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: workspace.id, userId: actorUserId } } });
  if (!actor) throw new AppError("not-found", "No such workspace.");
  return actor.role;
}

async function ownerCount(tx: Prisma.TransactionClient, workspaceId: string): Promise<number> {
  return tx.membership.count({ where: { workspaceId, role: "OWNER" } });
}

/**
 * Changes a member's role (owners and admins). Only owners grant or take away the owner role; the
 * last owner cannot be demoted (409 `last-owner`). Setting the role a member already has is a no-op.
 */
export async function changeMemberRole(ctx: ServiceContext, userId: string, role: Role): Promise<MemberView> {
  const actor = requireUser(ctx, "change member roles");
  const target = parseInput(UserId, userId);
  const newRole = parseInput(RoleInput, role);
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "change member roles");
  return auditedTransaction(ctx, async (tx, audit) => {
    const actorRole = await lockWorkspace(tx, ws, actor.userId);
    if (actorRole === "MEMBER") throw new AppError("forbidden", "Only owners and admins can change member roles.");
    const member = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: ws.id, userId: target } }, include: { user: true } });
    if (!member) throw new AppError("not-found", "No such member in this workspace.");
    if (actorRole !== "OWNER" && (member.role === "OWNER" || newRole === "OWNER")) {
      throw new AppError("forbidden", "Only owners can make someone an owner or change an owner's role.");
    }
    if (member.role === "OWNER" && newRole !== "OWNER" && (await ownerCount(tx, ws.id)) <= 1) {
      throw new AppError("last-owner", "This is the workspace's last owner; make another member an owner first.");
    }
    const updated = await tx.membership.update({
      where: { workspaceId_userId: { workspaceId: ws.id, userId: target } },
      data: { role: newRole },
      include: { user: true },
    });
    await audit(target);
    return updated;
  });
}

/**
 * Removes a member (owners and admins; anyone may remove themselves, which is leaving). Admins cannot
 * remove owners; the last owner cannot be removed (409 `last-owner`).
 */
export async function removeMember(ctx: ServiceContext, userId: string): Promise<MemberView> {
  const actor = requireUser(ctx, "remove members");
  const target = parseInput(UserId, userId);
  const ws = await requireWorkspaceRole(ctx, allRoles, "remove members");
  return auditedTransaction(ctx, async (tx, audit) => {
    const actorRole = await lockWorkspace(tx, ws, actor.userId);
    const leaving = target === actor.userId;
    if (!leaving && actorRole === "MEMBER") throw new AppError("forbidden", "Only owners and admins can remove other members.");
    const member = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: ws.id, userId: target } }, include: { user: true } });
    if (!member) throw new AppError("not-found", "No such member in this workspace.");
    if (!leaving && actorRole !== "OWNER" && member.role === "OWNER") throw new AppError("forbidden", "Only owners can remove an owner.");
    if (member.role === "OWNER" && (await ownerCount(tx, ws.id)) <= 1) {
      throw new AppError("last-owner", "This is the workspace's last owner; make another member an owner first.");
    }
    await tx.membership.delete({ where: { workspaceId_userId: { workspaceId: ws.id, userId: target } } });
    await audit(target);
    return member;
  });
}
