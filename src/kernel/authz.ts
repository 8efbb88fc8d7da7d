import { AppError, validationError } from "../errors.ts";
import type { Role, Workspace } from "../generated/prisma/client.ts";
import type { ServiceContext } from "./context.ts";
import type { Principal } from "../auth/principal.ts";
import { prismaOf } from "./support.ts";

export function requirePrincipal(ctx: ServiceContext): Principal {
  if (!ctx.principal) throw new AppError("unauthenticated", "This operation needs `Authorization: Bearer <API key>`.");
  return ctx.principal;
}

/**
 * A dashboard action on the workspace the call names (`ctx.workspace`, spec 5.1): API keys are
 * refused whatever their workspace (403); a user must be a member with one of `roles`. A workspace
 * the user does not belong to is reported as missing, so membership of others' workspaces cannot be
 * probed.
 */
export async function requireWorkspaceRole(ctx: ServiceContext, roles: readonly Role[], what: string): Promise<Workspace> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "apiKey") {
    throw new AppError("forbidden", `API keys cannot ${what}; this is a dashboard action.`);
  }
  const slug = ctx.workspace;
  if (slug === undefined) throw validationError([{ field: "workspace", message: `name the workspace (its slug) to ${what}` }]);
  const membership = await prismaOf(ctx).membership.findFirst({
    where: { userId: principal.userId, workspace: { slug } },
    include: { workspace: true },
  });
  if (!membership) throw new AppError("not-found", "No such workspace.");
  if (ctx.audit) ctx.audit.workspaceId = membership.workspaceId;
  if (!roles.includes(membership.role)) {
    throw new AppError("forbidden", `Only ${roles.map((r) => r.toLowerCase()).join(" or ")} members can ${what}.`);
  }
  return membership.workspace;
}

/**
 * The workspace a session or profile operation acts in. An API key acts in its own (naming another
 * workspace is 403, spec 5.1); a dashboard user in the workspace the call names (`ctx.workspace`,
 * set by the transport), which they must belong to, in any role (one they are not in is reported as
 * missing). Names the audit entry's workspace.
 */
export async function actingWorkspace(ctx: ServiceContext, what: string): Promise<string> {
  return (await actingWorkspaceWithCap(ctx, what)).id;
}

/**
 * {@link actingWorkspace}, with the workspace's own cap on live sessions and its own longest session
 * (null: none of its own, the deployment's applies). A
 * key carries it (read with the key record), a user's membership read brings the workspace along:
 * neither costs a statement.
 */
export async function actingWorkspaceWithCap(ctx: ServiceContext, what: string): Promise<WorkspaceLimits> {
  const principal = requirePrincipal(ctx);
  const slug = ctx.workspace;
  if (principal.kind === "apiKey") {
    if (slug !== undefined) {
      const own = await prismaOf(ctx).workspace.findUnique({ where: { id: principal.workspaceId }, select: { slug: true } });
      if (own?.slug !== slug) throw new AppError("forbidden", "An API key acts only in its own workspace.");
    }
    return { id: principal.workspaceId, maxSessions: principal.maxSessions, maxSessionSeconds: principal.maxSessionSeconds ?? null };
  }
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN", "MEMBER"], what);
  return { id: ws.id, maxSessions: ws.maxSessions, maxSessionSeconds: ws.maxSessionSeconds };
}

/** The acting workspace and the limits it may set for itself (null: the deployment's). */
export interface WorkspaceLimits {
  id: string;
  maxSessions: number | null;
  maxSessionSeconds: number | null;
}
