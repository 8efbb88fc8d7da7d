/**
 * One audited call, whichever transport made it (a REST request, a GraphQL root field, an MCP tool
 * call): the one place that opens its entry, runs the service with it in the context, and finishes
 * it with the answer's status. Transports say only what they know before the service runs (the
 * operation's action, a target their path or arguments name, the workspace a user named, the status a
 * success answers with on their wire); the service may name the target and write the entry in its
 * own transaction (audited.ts); what is left is written here. Anonymous calls are not audited.
 */
import type { ServiceContext } from "../../kernel/context.ts";
import { toAppError } from "../../kernel/problems.ts";
import { auditScope, finishAudit } from "./request-audit.ts";

/** What a transport knows of a call's entry before its service runs. */
export interface CallAudit {
  /** The operation's action (src/services/operations.ts). */
  action: string;
  /** The resource the call names, if the transport knows it (a path's id, a tool's argument); else the service names it. */
  target?: string | null;
  /** The status a success answers with on this transport (201 for a REST create; 200 over GraphQL and MCP). */
  successStatus?: number;
  /** The workspace (slug) the request names, for a user's call refused before a service resolved it. */
  workspaceSlug?: string | undefined;
}

export interface AuditedCallOptions<T> {
  /** The status the answer carries, when it is not `successStatus` (a REST replay's 200, a range's 206). */
  answered?: (result: T) => number;
  /** The status a failure answers with (default: its problem's). */
  failed?: (err: unknown) => number;
  /** The entry could not be handed to the writer: by default the call fails with it. */
  unrecorded?: (err: unknown) => void;
}

/** The status of the problem a failure is answered with. */
export const problemStatus = (err: unknown): number => toAppError(err).error.status;

/**
 * Runs `work` as one audited call (`call` null: not audited, as routes without authentication). The
 * entry is handed to the audit writer (and its journal) before this returns, so a transport that
 * answers after it can promise a client its entry survives a kill -9.
 */
export async function auditedCall<T>(
  ctx: ServiceContext,
  call: CallAudit | null,
  work: (ctx: ServiceContext) => Promise<T>,
  options: AuditedCallOptions<T> = {},
): Promise<T> {
  const audited: ServiceContext =
    call && ctx.principal ? { ...ctx, audit: auditScope(call.action, call.successStatus ?? 200, call.target ?? null, call.workspaceSlug) } : ctx;
  let status = 500;
  try {
    const result = await work(audited);
    status = options.answered?.(result) ?? call?.successStatus ?? 200;
    return result;
  } catch (err) {
    status = (options.failed ?? problemStatus)(err);
    throw err;
  } finally {
    const recorded = finishAudit(audited, status);
    await (options.unrecorded ? recorded.catch(options.unrecorded) : recorded);
  }
}
