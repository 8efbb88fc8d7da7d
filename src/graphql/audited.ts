import { auditedCall } from "../services/audit/audited-call.ts";
import { actingIn, type ServiceContext } from "../kernel/context.ts";
import type { Operation } from "../kernel/operations.ts";
import type { GraphQLContext } from "./builder.ts";

/**
 * Runs one root field as one audited call (services/audit/audited-call.ts), like a REST request:
 * same action name (from the shared operations table), status 200 on success or the error's status.
 * The field's `workspace` argument, when it names one, is the call's acting workspace
 * (ServiceContext.workspace): the services read it there. (Each root field is one call of the
 * caller's budget too, spent up front: call-budget.ts.)
 */
export function audited<Op extends Operation, T>(
  ctx: GraphQLContext,
  operation: Op,
  call: (svc: ServiceContext, run: Op["run"]) => Promise<T>,
  workspace?: string | null,
): Promise<T> {
  const slug = workspace ?? undefined;
  return auditedCall(actingIn(ctx.services, slug), { action: operation.action, workspaceSlug: slug }, (svc) => call(svc, operation.run));
}
