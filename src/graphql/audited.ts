import { auditScope, finishAudit } from "../services/audit/request-audit.ts";
import { toAppError } from "../kernel/problems.ts";
import { actingIn, type ServiceContext } from "../kernel/context.ts";
import type { Operation } from "../kernel/operations.ts";
import type { GraphQLContext } from "./builder.ts";

/**
 * Runs one root field as one audited call, like a REST request: same action name (from the shared
 * operations table), status 200 on success or the error's status. Anonymous calls are not audited.
 * The field's `workspace` argument, when it names one, is the call's acting workspace
 * (ServiceContext.workspace): the services read it there. (Each root field is one call of the
 * caller's budget too, spent up front: call-budget.ts.)
 */
export async function audited<Op extends Operation, T>(
  ctx: GraphQLContext,
  operation: Op,
  call: (svc: ServiceContext, run: Op["run"]) => Promise<T>,
  workspace?: string | null,
): Promise<T> {
  const slug = workspace ?? undefined;
  const acting = actingIn(ctx.services, slug);
  const svc: ServiceContext = acting.principal ? { ...acting, audit: auditScope(operation.action, 200, null, slug) } : acting;
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
