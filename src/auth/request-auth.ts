import type { IncomingMessage } from "node:http";
import { AppError } from "../kernel/errors.ts";
import type { AppDeps, AuditScope, ServiceContext } from "../kernel/context.ts";
import type { Principal } from "./principal.ts";
import { presentedKeyPrefix } from "./api-key-format.ts";
import { requestIdsOf } from "../request-id.ts";
import { DEFAULT_KEY_LIMIT_PER_MINUTE } from "./rate-limit.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";

export type UserPrincipal = Extract<Principal, { kind: "user" }>;

/** Resolves a dashboard user from the request (cookies or a dashboard JWT); supplied by the dashboard auth. */
export type UserAuthenticator = (req: IncomingMessage) => Promise<UserPrincipal | null>;

/**
 * The caller of a request, with one request of its budget spent. API keys are recognised by their
 * `vs_` prefix; anything else is offered to the dashboard's authenticator when the operation accepts
 * users. `limitHeaders` go on every answer, refusals included (a refusal carries them itself).
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

/**
 * A call refused here (401, 429) has no principal, so no service or transport audits it: it is
 * recorded now, before the refusal is answered, within the limits of services/audit/audit-refusals.ts.
 */
async function auditRefusal(deps: AppDeps, req: IncomingMessage, ip: string, err: unknown): Promise<void> {
  if (!(err instanceof AppError) || (err.status !== 401 && err.status !== 429)) return;
  await deps.refusals.record({ status: err.status, ip: ip || null, keyPrefix: presentedKeyPrefix(req.headers.authorization), ...requestIdsOf(req) });
}

async function authenticateCaller(
  deps: AppDeps,
  req: IncomingMessage,
  ip: string,
  options: { acceptUsers: boolean; users?: UserAuthenticator },
): Promise<{ principal: Principal; limitHeaders: Record<string, string> }> {
  const authorization = req.headers.authorization;
  const isKey = /^Bearer +vs_/i.test(authorization ?? "");
  if (!isKey && options.acceptUsers && options.users) {
    const user = await options.users(req);
    if (user) return { principal: user, limitHeaders: await spendCall(deps, user) };
  }
  const { principal, alongside } = await deps.auth.authenticate(authorization, ip, (p) => spendCall(deps, p));
  return { principal, limitHeaders: alongside ?? {} };
}

/**
 * Spends `calls` (one, unless a GraphQL operation asks for more root fields: graphql/call-budget.ts)
 * of the caller's budget and answers its RateLimit headers; throws the 429 when it is spent. A key
 * spends its own (its workspace's limit, 600 by default); a dashboard user, signed in with a cookie
 * or a bearer token, one of their own at the default limit, so the dashboard and GraphQL cost what
 * REST does.
 */
export async function spendCall(deps: AppDeps, principal: Principal, calls = 1): Promise<Record<string, string>> {
  const [bucket, limit] = principal.kind === "apiKey"
    ? [principal.keyId, principal.rateLimitPerMinute]
    : [`user:${principal.userId}`, DEFAULT_KEY_LIMIT_PER_MINUTE];
  const decision = await deps.limiter.consumeKey(bucket, limit, calls);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    deps.metrics?.rateLimited.inc({ kind: principal.kind === "apiKey" ? "key" : "user" });
    const who = principal.kind === "apiKey" ? "This key" : "A dashboard user";
    throw new AppError("rate-limited", `${who} may make ${decision.limit} requests per minute.`, {}, headers);
  }
  return headers;
}

export function auditScope(operationAction: string, successStatus: number, target: string | null, workspaceSlug?: string): AuditScope {
  return { action: operationAction, target, successStatus, written: false, ...(workspaceSlug ? { workspaceSlug } : {}) };
}

/**
 * Writes the call's audit entry through the batched writer, unless the service already wrote it in
 * its transaction. A user's call refused before its service ran (bad input, say) is filed under the
 * workspace its path names, so that workspace's admins see it.
 */
export async function finishAudit(ctx: ServiceContext, httpStatus: number): Promise<void> {
  const scope = ctx.audit;
  if (!scope || scope.written || !ctx.principal) return;
  scope.written = true;
  if (!scope.workspaceId && scope.workspaceSlug && ctx.principal.kind === "user") {
    const ws = await ctx.deps.db.prisma.workspace
      .findUnique({ where: { slug: scope.workspaceSlug }, select: { id: true } })
      .catch(() => null);
    if (ws) scope.workspaceId = ws.id;
  }
  ctx.deps.audit.enqueue(auditRecord(ctx, scope, httpStatus));
}

export function auditRecord(ctx: ServiceContext, scope: AuditScope, httpStatus: number) {
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
