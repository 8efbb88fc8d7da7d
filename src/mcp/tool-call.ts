/**
 * One MCP tool call as a service call: the HTTP request that carried it was authenticated and rate
 * limited by the endpoint (./endpoint.ts), which hands its ServiceContext through the SDK's
 * `authInfo.extra`; each call gets its own audit entry (as every REST call does), and every failure
 * becomes a tool error the model can read, never a protocol error.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { AppError, validationError } from "../errors.ts";
import type { ServiceContext } from "../kernel/context.ts";
import { toAppError } from "../kernel/problems.ts";
import { textFaults } from "../kernel/text.ts";
import { auditedCall } from "../services/audit/audited-call.ts";

/** A failure whose message is meant for the model as it is (a page error, a stale reference). */
export class ToolError extends Error {}

/** What the SDK passes a tool callback that this layer reads. */
export interface ToolExtra {
  authInfo?: AuthInfo;
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  /** The tool's arguments broke the text rule (set by checkToolArguments): the call is refused, audited. */
  refused?: AppError;
  sendNotification: (
    n:
      | { method: "notifications/progress"; params: { progressToken: string | number; progress: number; total?: number; message?: string } }
      | { method: "notifications/message"; params: { level: "info" | "notice"; logger?: string; data: unknown } },
  ) => Promise<void>;
}

/** Puts the request's context where the SDK carries it to the tool callbacks. */
export function authInfoFor(ctx: ServiceContext, keyPrefix: string): AuthInfo {
  return { token: "", clientId: keyPrefix, scopes: [], extra: { ctx } };
}

function contextOf(extra: ToolExtra): ServiceContext {
  const ctx = extra.authInfo?.extra?.ctx as ServiceContext | undefined;
  if (!ctx?.principal) throw new Error("MCP tool called without an authenticated request");
  return ctx;
}

/** Connect URLs and live-view links carry tokens: never echoed back in an error. */
const withoutTokens = (text: string) => text.replace(/([?&#]token=)[^&#\s"']+/gi, "$1[redacted]");

function messageOf(err: unknown, ctx: ServiceContext): string {
  if (err instanceof ToolError) return withoutTokens(err.message);
  const { error, unexpected } = toAppError(err);
  if (!unexpected) {
    const fields = (error.extensions.errors as Array<{ field: string; message: string }> | undefined) ?? [];
    const more = fields.length > 1 ? ` ${fields.map((f) => `${f.field}: ${f.message}`).join("; ")}` : "";
    return `${error.title}: ${error.detail}${more}`;
  }
  // Browser-side failures (a navigation refused by the egress policy, a closed tab) say what went wrong.
  const text = err instanceof Error ? err.message : String(err);
  ctx.log.warn({ err }, "MCP tool failed");
  return `The browser reported: ${withoutTokens(text).slice(0, 1000)}`;
}

const statusOf = (err: unknown) => (err instanceof ToolError ? 422 : err instanceof AppError ? err.status : toAppError(err).error.status);

/**
 * Runs a tool's work as one audited call (`action`, on `target` when known) and turns a failure into
 * an `isError` result.
 */
export async function toolCall(
  extra: ToolExtra,
  action: string,
  target: string | null,
  work: (ctx: ServiceContext) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const ctx = contextOf(extra);
  try {
    return await auditedCall(
      ctx,
      { action, target },
      (audited) => {
        if (extra.refused) throw extra.refused;
        return work(audited);
      },
      { failed: statusOf, unrecorded: (err) => ctx.log.warn({ err }, "MCP tool call not audited") },
    );
  } catch (err) {
    return { isError: true, content: [{ type: "text", text: messageOf(err, ctx) }] };
  }
}

export const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** A text answer with the same facts as structured content, for clients that read it. */
export const structured = (value: string, data: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: value }],
  structuredContent: data,
});

/**
 * Text is total (kernel/text.ts) for every tool of `server`, registered before or after: a tool's
 * arguments holding a NUL or a lone surrogate (named by their path, `instructions`, `metadata.team`)
 * make its call a refused one, audited with 400 under the tool's own action by toolCall, before its
 * work begins. Every tool runs through toolCall, so none is left out.
 */
export function checkToolArguments(server: McpServer): McpServer {
  const register = server.registerTool.bind(server) as (name: string, config: { inputSchema?: unknown }, cb: (...a: unknown[]) => unknown) => unknown;
  (server as { registerTool: unknown }).registerTool = (name: string, config: { inputSchema?: unknown }, cb: (...a: unknown[]) => unknown) => {
    if (config.inputSchema === undefined) return register(name, config, cb);
    return register(name, config, (args: unknown, extra: unknown) => {
      const faults = textFaults(args, []);
      return cb(args, faults.length > 0 ? { ...(extra as ToolExtra), refused: validationError(faults) } : extra);
    });
  };
  return server;
}
