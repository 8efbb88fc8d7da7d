/**
 * `ask_human`: the agent hands a step to a person. The session's live view becomes interactive with
 * the agent's instructions; the link is in the first progress notification (and in every one after,
 * and in the result), so the agent can pass it on while the call is still waiting; the call ends when
 * the person clicks Done, the timeout runs out, or the session ends, and says which.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { awaitHandOff, maxHandOffSeconds, openHandOff } from "../services/sessions/human-hand-off.ts";
import type { McpState } from "./state.ts";
import { structured, toolCall, type ToolExtra } from "./tool-call.ts";

/** How often a waiting call reports progress (it also keeps clients' request timers from running out). */
const progressEverySeconds = 5;

export function registerHumanTools(server: McpServer, state: McpState): void {
  server.registerTool(
    "ask_human",
    {
      title: "Ask a person for help",
      description:
        "Hands the browser to a person for a step you cannot do (a CAPTCHA, a login with a second factor, a judgement call). " +
        "Opens an interactive live view of the session showing your instructions and gives you its link (live_view_url) at once " +
        "in a progress notification: pass it to the person. The call then waits until they click Done in the live view, " +
        "or until timeout_seconds, or until the session ends, and answers which (outcome: done, timed_out or session_ended). " +
        "Take a new snapshot afterwards: the person may have changed the page.",
      inputSchema: {
        session_id: z.string().min(1).max(64).optional().describe("The session to hand over (default: the one created or used last)."),
        instructions: z.string().min(1).max(2000).describe("What the person should do, shown above the live view, e.g. “Solve the CAPTCHA, then click Done.”"),
        timeout_seconds: z.number().int().min(1).max(maxHandOffSeconds).optional()
          .describe(`How long to wait for Done (default 300, at most ${maxHandOffSeconds}; never past the session's end).`),
      },
    },
    (args, rawExtra) => {
      const extra = rawExtra as ToolExtra;
      return toolCall(extra, "session.ask_human", args.session_id ?? state.lastSession, async (ctx) => {
        const id = state.sessionOf(args.session_id);
        const timeout = args.timeout_seconds ?? 300;
        const handOff = await openHandOff(ctx, id, args.instructions, timeout);
        state.lastSession = id;
        const total = Math.round((handOff.deadline.getTime() - ctx.deps.now().getTime()) / 1000);
        const token = extra._meta?.progressToken;
        const report = async (waited: number) => {
          if (token === undefined) return;
          await extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: waited, total, message: `Waiting for the person to click Done in the live view: ${handOff.liveViewUrl}` },
            })
            .catch(() => {});
        };
        await report(0);
        const result = await awaitHandOff(ctx, handOff, { signal: extra.signal, tickSeconds: progressEverySeconds, onTick: report });
        const said =
          result.outcome === "done"
            ? `The person clicked Done at ${result.at.toISOString()}. Take a new snapshot: the page may have changed.`
            : result.outcome === "timed_out"
              ? `Nobody clicked Done within ${total} seconds; the live-view link has expired.`
              : `The session ended (${result.status}) before anyone clicked Done.`;
        return structured(said, {
          outcome: result.outcome,
          session_id: id,
          live_view_url: handOff.liveViewUrl,
          ...(result.outcome === "done" ? { done_at: result.at.toISOString() } : {}),
        });
      });
    },
  );
}
