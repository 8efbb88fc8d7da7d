import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { spendCall } from "../auth/request-auth.ts";
import type { GraphQLContext } from "./builder.ts";

/**
 * GraphQL spends the caller's request budget as REST does: each root field is one call, so one
 * request of 15 aliased `createSession`s spends 15, as 15 POSTs would (aliases are otherwise a way
 * to run up to `maxAliases` calls for the price of one). Spent up front, for every root field the
 * operation asks for, before any of them runs: a mutation stops at its first failing field, which
 * would otherwise leave the rest unpaid-for, and an operation the budget cannot cover runs nothing
 * (429, like a REST call over its budget).
 *
 * Over HTTP the request's authentication spent one call already (yoga.ts, `calls.prepaid`), which
 * pays for the first field. Over WebSocket `connection_init` paid for the socket, and every
 * operation pays for all its fields. Anonymous operations (signing in) have budgets of their own.
 */

/** How many root fields the document's operation asks for, fragments at the root expanded; at least 1. */
export function rootFieldCount(document: DocumentNode, operationName?: string | null): number {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!op) return 1;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const count = (set: SelectionSetNode, seen: ReadonlySet<string>): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) n++;
      else if (sel.kind === Kind.INLINE_FRAGMENT) n += count(sel.selectionSet, seen);
      else if (!seen.has(sel.name.value)) {
        const fragment = fragments.get(sel.name.value);
        if (fragment) n += count(fragment.selectionSet, new Set([...seen, sel.name.value]));
      }
    }
    return n;
  };
  return Math.max(1, count(op.selectionSet, new Set()));
}

export function useCallBudget(): Plugin<GraphQLContext> {
  const spend = async (args: { document: DocumentNode; operationName?: string | null; contextValue: unknown }) => {
    const ctx = args.contextValue as Partial<GraphQLContext>;
    const principal = ctx.services?.principal;
    if (!ctx.services || !principal) return;
    const wanted = rootFieldCount(args.document, args.operationName);
    const prepaid = Math.min(wanted, ctx.calls?.prepaid ?? 0);
    if (ctx.calls) ctx.calls.prepaid -= prepaid;
    if (wanted > prepaid) await spendCall(ctx.services.deps, principal, wanted - prepaid);
  };
  return {
    onExecute: ({ args }) => spend(args),
    onSubscribe: ({ args }) => spend(args),
  };
}
