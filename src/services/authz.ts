import { AppError } from "../errors.ts";
import type { Role, Workspace } from "../generated/prisma/client.ts";
import type { Principal, ServiceContext } from "./context.ts";
import { prismaOf } from "./support.ts";

export function requirePrincipal(ctx: ServiceContext): Principal {
  if (!ctx.principal) throw new AppError("unauthenticated", "This operation needs `Authorization: Bearer <API key>`.");
  return ctx.principal;
}

/**
 * A dashboard action on a workspace (spec 5.1): API keys are refused whatever their workspace (403);
 * a user must be a member with one of `roles`. A workspace the user does not belong to is reported
 * as missing, so membership of others' workspaces cannot be probed.
 */
export async function requireWorkspaceRole(ctx: ServiceContext, slug: string, roles: readonly Role[], what: string): Promise<Workspace> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "apiKey") {
    throw new AppError("forbidden", `API keys cannot ${what}; this is a dashboard action.`);
  }
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
