import { auditScope, finishAudit } from "../services/audit/request-audit.ts";
import { toAppError } from "../kernel/problems.ts";
import type { ServiceContext } from "../kernel/context.ts";
import type { Operation } from "../kernel/operations.ts";
import type { GraphQLContext } from "./builder.ts";

/**
 * Runs one root field as one audited call, like a REST request: same action name (from the shared
 * operations table), status 200 on success or the error's status. Anonymous calls are not audited.
 * (Each root field is one call of the caller's budget too, spent up front: call-budget.ts.)
 */
export async function audited<Op extends Operation, T>(
  ctx: GraphQLContext,
  operation: Op,
  call: (svc: ServiceContext, run: Op["run"]) => Promise<T>,
  workspaceSlug?: string,
): Promise<T> {
  const svc: ServiceContext = ctx.services.principal
    ? { ...ctx.services, audit: auditScope(operation.action, 200, null, workspaceSlug) }
    : ctx.services;
  let status = 500;
  try {
    const result = await call(svc, operation.run);
    status = 200;
    return result;
  } catch (err) {
    status = toAppError(err).error.status;
    throw err;
  } finally {
    await finishAudit(svc, status);
  }
}
