import type { Prisma } from "../../generated/prisma/client.ts";
import { auditRecord } from "./request-audit.ts";
import { auditInsertSql, writeAuditInTx } from "./audit.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";
import { noteSetAside } from "../../kernel/set-aside.ts";
import type { AuditRecord } from "./audit-row.ts";
import { screenRow, setAsideFields } from "./audit-set-aside.ts";

export type Tx = Prisma.TransactionClient;

/**
 * Runs a mutation in one transaction with its audit entry: both commit or neither does. The entry is
 * marked written only after the commit, so a rolled-back call is still audited (with its error status).
 */
export async function auditedTransaction<T>(ctx: ServiceContext, work: (tx: Tx, audit: (target: string) => Promise<void>) => Promise<T>): Promise<T> {
  let wrote = false;
  const result = await prismaOf(ctx).$transaction(async (tx) =>
    work(tx, async (target) => {
      const scope = ctx.audit;
      if (!scope || !ctx.principal) return;
      scope.target = target;
      await writeAuditInTx(tx, screened(ctx, auditRecord(ctx, scope, scope.successStatus)));
      wrote = true;
    }),
  );
  if (wrote && ctx.audit) ctx.audit.written = true;
  return result;
}

/**
 * The one-statement form of {@link auditedTransaction}, for a mutation whose writes fit one SQL
 * statement (data-modifying CTEs): `run` gets the INSERT of the call's audit entry on `target`
 * (`audit()`, or `audit(condition)` to write it only when the condition holds), or null when the
 * call has no entry to write here (no audit scope or no principal), and must run it as a part of
 * its statement, so the change and its entry commit or fail together. As with the transaction, the
 * entry is marked written only once the statement has succeeded (and, with a condition, when
 * `wrote` says it held); otherwise the transport writes it, with the call's status.
 *
 * Why: on the embedded database every statement costs this process CPU (PGlite runs in-process),
 * and an interactive transaction adds its BEGIN and COMMIT; on the session paths (create, end) that
 * was most of the server's time (bench/sessions).
 */
export async function auditedStatement<T>(
  ctx: ServiceContext | undefined,
  target: string,
  run: (audit: ((when?: Prisma.Sql) => Prisma.Sql) | null) => Promise<T>,
  wrote: (result: T) => boolean = () => true,
): Promise<T> {
  const scope = ctx?.audit;
  const principal = ctx?.principal;
  let used = false;
  const audit =
    ctx && scope && principal
      ? (when?: Prisma.Sql) => {
          used = true;
          return auditInsertSql(screened(ctx, auditRecord(ctx, { ...scope, target }, scope.successStatus)), when);
        }
      : null;
  const result = await run(audit);
  if (used && scope && wrote(result)) {
    scope.target = target;
    scope.written = true;
  }
  return result;
}

/**
 * The entry with text the database cannot store escaped (audit-set-aside.ts), counted and logged as
 * set aside as the batched writer does: written in the mutation's own statement, such an entry would
 * fail the mutation with it.
 */
function screened(ctx: ServiceContext, record: AuditRecord): AuditRecord {
  const escaped = screenRow(record);
  if (escaped.length > 0) {
    noteSetAside(
      { log: ctx.deps.log, counter: ctx.deps.metrics?.setAside },
      "audit",
      "warn",
      { ...setAsideFields(record), escaped },
      "audit entry set aside: it holds text the database cannot store (NUL or a lone surrogate); stored with that text escaped",
    );
  }
  return record;
}
