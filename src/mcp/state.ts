/**
 * What one MCP connection (one agent's, bound to the API key that opened it; the MCP specification
 * calls it a session) keeps between tool calls: its Puppeteer connections and the browser session its
 * tools act on by default.
 */
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import { operations } from "../services/operations.ts";
import type { HandOff } from "../services/sessions/human-hand-off.ts";
import { BrowserLinks, type Link } from "./browser-links.ts";
import { ToolError } from "./tool-call.ts";

export class McpState {
  readonly links = new BrowserLinks();
  /** The session created or used last: the default `session_id`. */
  lastSession: string | null = null;
  /** Hand-offs to a person still waiting for an outcome, by session (ask_human, wait_for_human). */
  readonly handOffs = new Map<string, HandOff>();

  constructor(readonly deps: AppDeps) {}

  /** The browser session a tool acts on: the one it names, else the one used last. */
  sessionIdOr(given: string | undefined): string {
    const id = given ?? this.lastSession;
    if (!id) throw new ToolError("Which session? Pass session_id (create_session starts one; list_sessions lists them).");
    return id;
  }

  /**
   * The connection to a session, opened on first use after the session is read as the caller (so
   * another workspace's session is refused here, as missing) and found running.
   */
  async linkFor(ctx: ServiceContext, given: string | undefined): Promise<{ id: string; link: Link }> {
    const id = this.sessionIdOr(given);
    if (ctx.audit) ctx.audit.target = id;
    const link = await this.links.link(id, async () => {
      const { session, connectUrl } = await operations.session.run(ctx, id);
      if (!connectUrl) throw new ToolError(`Session ${id} is not running (${session.status}).`);
      return connectUrl;
    });
    this.lastSession = id;
    return { id, link };
  }

  close(): Promise<void> {
    return this.links.closeAll();
  }
}
