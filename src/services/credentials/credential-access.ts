import type { ApiKeyScope } from "../../auth/scopes.ts";
import { AppError } from "../../errors.ts";
import type { Credential } from "../../generated/prisma/client.ts";
import { actingWorkspace, requirePrincipal, requireWorkspaceRole } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";

/** A credential as the service hands it out: never its sealed secrets or their keys. */
export type CredentialRecord = Pick<
  Credential,
  "id" | "workspaceId" | "name" | "origins" | "usernameHint" | "hasTotp" | "createdAt" | "updatedAt" | "lastUsedAt"
>;

// Column by column, so a future secret-bearing column stays out by default.
export const publicColumns = {
  id: true,
  workspaceId: true,
  name: true,
  origins: true,
  usernameHint: true,
  hasTotp: true,
  createdAt: true,
  updatedAt: true,
  lastUsedAt: true,
} as const satisfies Record<keyof CredentialRecord, true>;

/**
 * The workspace a credential call acts in, once the caller may do `need` there. API keys: `manage`
 * needs the scope `credentials:manage`, `use` (filling) `credentials:use`, and reading either. People:
 * owners and admins manage; every member reads and fills.
 */
export async function credentialWorkspace(ctx: ServiceContext, need: "read" | "use" | "manage"): Promise<string> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "apiKey") {
    const key = await prismaOf(ctx).apiKey.findUnique({ where: { id: principal.keyId }, select: { scopes: true } });
    const has = (scope: ApiKeyScope) => key?.scopes.includes(scope) === true;
    if (need === "read" && !has("credentials:use") && !has("credentials:manage")) {
      throw new AppError("forbidden", "This API key lacks the scope `credentials:use` or `credentials:manage` needed to read credentials.");
    }
    if (need === "use" && !has("credentials:use"))
      throw new AppError("forbidden", "This API key lacks the scope `credentials:use` needed to fill credentials.");
    if (need === "manage" && !has("credentials:manage")) {
      throw new AppError("forbidden", "This API key lacks the scope `credentials:manage` needed to manage credentials.");
    }
    return actingWorkspace(ctx, "use its credentials");
  }
  if (need === "manage") return (await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "manage credentials")).id;
  return actingWorkspace(ctx, "use its credentials");
}

export const notFound = () => new AppError("not-found", "No credential with this id in this workspace.");

/** The credential of the workspace (another workspace's is indistinguishable from a missing one). */
export async function findCredential(ctx: ServiceContext, workspaceId: string, id: string): Promise<CredentialRecord> {
  if (ctx.audit) ctx.audit.target = id;
  const row = await prismaOf(ctx).credential.findFirst({ where: { id, workspaceId }, select: publicColumns });
  if (!row) throw notFound();
  return row;
}
