/**
 * The audit of one transport call: a call refused at authentication (it has no principal, so no
 * service audits it), and the entry of an authenticated call once it is answered. It lives in the
 * audit domain, not in src/auth, because it writes through this domain's ports (`deps.audit`,
 * `deps.refusals`, added to AppDeps by ./ports.ts): src/auth stays key and token primitives that
 * know no domain, and the in-transaction writers (audited.ts) build their records here too.
 */
import type { IncomingMessage } from "node:http";
import { AppError } from "../../errors.ts";
import type { AppDeps, AuditScope, ServiceContext } from "../../kernel/context.ts";
import type { Principal } from "../../auth/principal.ts";
import { presentedKeyPrefix } from "../../auth/api-key-format.ts";
import { authenticateCaller, type UserAuthenticator } from "../../auth/request-auth.ts";
import { requestIdsOf } from "../../request-id.ts";
import type { AuditRecord } from "./audit-row.ts";
import { readGroupingOf } from "./read-grouping.ts";

/**
 * The caller of a request, with one request of its budget spent (auth/request-auth.ts), its refusal
 * (401, 429) audited before it is answered. `limitHeaders` go on every answer, refusals included
 * (a refusal carries them itself).
 */
export async function authenticateRequest(
  deps: AppDeps,
  req: IncomingMessage,
  ip: string,
  options: { acceptUsers: boolean; users?: UserAuthenticator },
): Promise<{ principal: Principal; limitHeaders: Record<string, string> }> {
  try {
    return await authenticateCaller(deps, req, ip, options);
  } catch (err) {
    await auditRefusal(deps, req, ip, err);
    throw err;
  }
}

/** Recorded within the limits of audit-refusals.ts, so a flood of refusals cannot fill the table. */
async function auditRefusal(deps: AppDeps, req: IncomingMessage, ip: string, err: unknown): Promise<void> {
  if (!(err instanceof AppError) || (err.status !== 401 && err.status !== 429)) return;
  await deps.refusals.record({ status: err.status, ip: ip || null, keyPrefix: presentedKeyPrefix(req.headers.authorization), ...requestIdsOf(req) });
}

export function auditScope(operationAction: string, successStatus: number, target: string | null, workspaceSlug?: string): AuditScope {
  return { action: operationAction, target, successStatus, written: false, ...(workspaceSlug ? { workspaceSlug } : {}) };
}

/**
 * Writes the call's audit entry through the batched writer, unless the service already wrote it in
 * its transaction, or it is a person's read written already in this window (read-grouping.ts). A user's call refused before its service ran (bad input, say) is filed under the
 * workspace its path names, so that workspace's admins see it.
 */
export async function finishAudit(ctx: ServiceContext, httpStatus: number): Promise<void> {
  const scope = ctx.audit;
  if (!scope || scope.written || !ctx.principal) return;
  scope.written = true;
  if (!scope.workspaceId && scope.workspaceSlug && ctx.principal.kind === "user") {
    const ws = await ctx.deps.db.prisma.workspace.findUnique({ where: { slug: scope.workspaceSlug }, select: { id: true } }).catch(() => null);
    if (ws) scope.workspaceId = ws.id;
  }
  const record = auditRecord(ctx, scope, httpStatus);
  if (readGroupingOf(ctx.deps.audit).admit(record)) ctx.deps.audit.enqueue(record);
}

/** The entry of one call: who (a key's prefix or a user), what, the answer's status, and the request's ids. */
export function auditRecord(ctx: ServiceContext, scope: AuditScope, httpStatus: number): AuditRecord {
  const p = ctx.principal;
  return {
    workspaceId: scope.workspaceId ?? (p?.kind === "apiKey" ? p.workspaceId : null),
    keyPrefix: p?.kind === "apiKey" ? p.keyPrefix : null,
    actorUserId: p?.kind === "user" ? p.userId : null,
    action: scope.action,
    target: scope.target,
    httpStatus,
    requestId: ctx.requestId,
    clientRequestId: ctx.clientRequestId ?? null,
    ip: ctx.ip,
    at: ctx.deps.now(),
  };
}
