import type { Prisma } from "../generated/prisma/client.ts";
import { auditRecord } from "../auth/request-auth.ts";
import { writeAuditInTx } from "./audit.ts";
import type { ServiceContext } from "./context.ts";
import { prismaOf } from "./support.ts";

export type Tx = Prisma.TransactionClient;

/**
 * Runs a mutation in one transaction with its audit entry: both commit or neither does. The entry is
 * marked written only after the commit, so a rolled-back call is still audited (with its error status).
 */
export async function auditedTransaction<T>(
  ctx: ServiceContext,
  work: (tx: Tx, audit: (target: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  let wrote = false;
  const result = await prismaOf(ctx).$transaction(async (tx) =>
    work(tx, async (target) => {
      const scope = ctx.audit;
      if (!scope || !ctx.principal) return;
      scope.target = target;
      await writeAuditInTx(tx, auditRecord(ctx, scope, scope.successStatus));
      wrote = true;
    }),
  );
  if (wrote && ctx.audit) ctx.audit.written = true;
  return result;
}
