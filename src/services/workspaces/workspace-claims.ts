import type { Role, Workspace } from "../../generated/prisma/client.ts";
import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { isOrganizationAdmin, requireUser } from "../sign-ins/users.ts";

/**
 * Workspaces nobody owns: `default` on data folders made before its first start gave it an owner, or
 * one whose owners were all removed from the database by hand. Without an owner nobody can see what
 * its API keys create, invite anyone, or manage keys; an organization admin may take ownership.
 */

const ownerless = { memberships: { none: { role: "OWNER" as Role } } };

/** The workspaces the caller may claim: every ownerless one for an organization admin, none for anyone else. */
export async function listClaimableWorkspaces(ctx: ServiceContext): Promise<Workspace[]> {
  const user = requireUser(ctx, "list workspaces");
  if (!isOrganizationAdmin(ctx.deps, user.email)) return [];
  return prismaOf(ctx).workspace.findMany({ where: ownerless, orderBy: { slug: "asc" }, take: 100 });
}

/**
 * An organization admin becomes the owner of an ownerless workspace (an existing membership is raised
 * to OWNER), in one audited transaction filed in that workspace. Anyone else → 403; a workspace that
 * has an owner → 409 (ask that owner for an invitation); no such slug → 404.
 */
export async function claimWorkspace(ctx: ServiceContext, slug: string): Promise<{ workspace: Workspace; role: Role }> {
  const user = requireUser(ctx, "claim workspaces");
  if (!isOrganizationAdmin(ctx.deps, user.email)) throw new AppError("forbidden", "Only organization admins can claim a workspace.");
  if (typeof slug !== "string" || slug.length > 64) throw new AppError("not-found", "No such workspace.");
  const now = ctx.deps.now();
  const workspace = await auditedTransaction(ctx, async (tx, audit) => {
    const ws = await tx.workspace.findUnique({ where: { slug } });
    if (!ws) throw new AppError("not-found", "No such workspace.");
    if (ctx.audit) ctx.audit.workspaceId = ws.id;
    // Serializes two claims of one workspace: the second sees the first's owner.
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${ws.id} FOR UPDATE`;
    const owners = await tx.membership.count({ where: { workspaceId: ws.id, role: "OWNER" } });
    if (owners > 0) throw new AppError("conflict", `Workspace "${slug}" has an owner already; ask them to invite you.`);
    await tx.membership.upsert({
      where: { workspaceId_userId: { workspaceId: ws.id, userId: user.userId } },
      create: { workspaceId: ws.id, userId: user.userId, role: "OWNER", createdAt: now },
      update: { role: "OWNER" },
    });
    await audit(ws.id);
    return ws;
  });
  return { workspace, role: "OWNER" };
}
