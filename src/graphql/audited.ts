import { auditScope, finishAudit, spendCall } from "../auth/request-auth.ts";
import { AppError } from "../errors.ts";
import type { ServiceContext } from "../services/context.ts";
import { auditAction, type OperationId } from "../services/operations.ts";
import type { GraphQLContext } from "./builder.ts";

/**
 * Runs one root field as one audited call, like a REST request: same action name (from the shared
 * operations table), status 200 on success or the error's status, and one call of the caller's
 * budget, so an operation of 15 aliased mutations spends 15 (the first is the one its HTTP request
 * spent; over WebSocket every field spends its own). Anonymous calls are neither audited nor counted.
 */
export async function audited<T>(
  ctx: GraphQLContext,
  operationId: OperationId,
  run: (svc: ServiceContext) => Promise<T>,
  workspaceSlug?: string,
): Promise<T> {
  const svc: ServiceContext = ctx.services.principal
    ? { ...ctx.services, audit: auditScope(auditAction(operationId), 200, null, workspaceSlug) }
    : ctx.services;
  let status = 500;
  try {
    if (svc.principal) {
      if (ctx.calls && ctx.calls.prepaid > 0) ctx.calls.prepaid--;
      else await spendCall(svc.deps, svc.principal);
    }
    const result = await run(svc);
    status = 200;
    return result;
  } catch (err) {
    status = err instanceof AppError ? err.status : 500;
    throw err;
  } finally {
    await finishAudit(svc, status);
  }
}
