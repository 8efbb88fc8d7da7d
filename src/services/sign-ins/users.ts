import { z } from "zod";
import { AppError } from "../../errors.ts";
import type { Prisma, Role, User, Workspace } from "../../generated/prisma/client.ts";
import { requirePrincipal } from "../../kernel/authz.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import type { Principal } from "../../auth/principal.ts";
import { prismaOf } from "../../kernel/support.ts";

/** A mail address as the dashboard stores it: trimmed and lower-cased (the sign-in identity). */
export const EmailAddress = z
  .string({ error: "must be a string" })
  .trim()
  .max(254, "must be at most 254 characters")
  .pipe(z.email({ error: "must be a mail address" }))
  .transform((e) => e.toLowerCase());

/** The owner of `default` when no bootstrap admin is configured: `.localhost` is never a real mailbox (RFC 6761). */
export const LOCAL_ADMIN_EMAIL = "admin@vessel.localhost";

/**
 * Organization admins: the deploy-time list `dashboard.api.bootstrapAdminEmails`. They may create
 * workspaces. With an empty list, the local administrator is one: no mail reaches that address, so
 * only the link printed on the server's console signs it in (console-sign-in.ts).
 */
export function isOrganizationAdmin(deps: AppDeps, email: string): boolean {
  const admins = deps.config.dashboard.api.bootstrapAdminEmails;
  const address = email.toLowerCase();
  return admins.length === 0 ? address === LOCAL_ADMIN_EMAIL : admins.includes(address);
}

type Db = Pick<Prisma.TransactionClient, "user" | "invitation" | "membership">;

/**
 * Whether an address may sign in (spec 5.2: sign-up by invitation only): an organization admin, a
 * member of some workspace, or the address of a pending invitation (not accepted, revoked or expired).
 */
export async function maySignIn(deps: AppDeps, db: Db, email: string, now: Date): Promise<boolean> {
  // Both lookups always run, admins included, so the time taken does not single out admin addresses.
  const [member, invited] = await Promise.all([
    db.membership.findFirst({ where: { user: { email } }, select: { userId: true } }),
    db.invitation.findFirst({ where: { email, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } }, select: { id: true } }),
  ]);
  return isOrganizationAdmin(deps, email) || member !== null || invited !== null;
}

/** The dashboard user of this call; API keys are refused (403), anonymous calls 401. */
export function requireUser(ctx: ServiceContext, what: string): Extract<Principal, { kind: "user" }> {
  const principal = requirePrincipal(ctx);
  if (principal.kind !== "user") throw new AppError("forbidden", `API keys cannot ${what}; this is a dashboard action.`);
  return principal;
}

export interface Me {
  user: User;
  organizationAdmin: boolean;
  memberships: Array<{ role: Role; workspace: Workspace }>;
}

/** The signed-in user, whether they are an organization admin, and their workspaces with their role in each. */
export async function getMe(ctx: ServiceContext): Promise<Me> {
  const principal = requireUser(ctx, "read a dashboard profile");
  const user = await prismaOf(ctx).user.findUnique({
    where: { id: principal.userId },
    include: { memberships: { include: { workspace: true }, orderBy: { workspace: { slug: "asc" } } } },
  });
  if (!user) throw new AppError("unauthenticated", "This user no longer exists.");
  const { memberships, ...rest } = user;
  return {
    user: rest,
    organizationAdmin: isOrganizationAdmin(ctx.deps, user.email),
    memberships: memberships.map((m) => ({ role: m.role, workspace: m.workspace })),
  };
}
