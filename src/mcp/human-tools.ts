/**
 * `ask_human`: the agent hands a step to a person. The session's live view becomes interactive with
 * the agent's instructions; the link is in the first progress notification (and in every one after,
 * and in the result), so the agent can pass it on while the call is still waiting; the call ends when
 * the person clicks Done, the timeout runs out, or the session ends, and says which.
 *
 * A model sees no progress notification, only results: with `wait: false` the call answers with the
 * link at once, and `wait_for_human` waits afterwards (also after a wait the client gave up on).
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ServiceContext } from "../kernel/context.ts";
import { awaitHandOff, maxHandOffSeconds, openHandOff, type HandOff } from "../services/sessions/human-hand-off.ts";
import type { McpState } from "./state.ts";
import { ToolError, structured, toolCall, type ToolExtra } from "./tool-call.ts";

/** How often a waiting call reports progress (it also keeps clients' request timers from running out). */
const progressEverySeconds = 5;

/** Waits with progress on the call's token; the hand-off is forgotten once it has an outcome. */
async function waitFor(ctx: ServiceContext, extra: ToolExtra, state: McpState, handOff: HandOff) {
  const total = Math.max(0, Math.round((handOff.deadline.getTime() - ctx.deps.now().getTime()) / 1000));
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
  await extra
    .sendNotification({
      method: "notifications/message",
      params: { level: "notice", logger: "vessel", data: { message: "Pass this live-view link to the person", live_view_url: handOff.liveViewUrl } },
    })
    .catch(() => {});
  await report(0);
  const result = await awaitHandOff(ctx, handOff, { signal: extra.signal, tickSeconds: progressEverySeconds, onTick: report });
  state.handOffs.delete(handOff.sessionId);
  const said =
    result.outcome === "done"
      ? `The person clicked Done at ${result.at.toISOString()}. Take a new snapshot: the page may have changed.`
      : result.outcome === "timed_out"
        ? "Nobody clicked Done before the timeout; the live-view link has expired."
        : `The session ended (${result.status}) before anyone clicked Done.`;
  return structured(said, {
    outcome: result.outcome,
    session_id: handOff.sessionId,
    live_view_url: handOff.liveViewUrl,
    ...(result.outcome === "done" ? { done_at: result.at.toISOString() } : {}),
  });
}

const SessionId = z.string().min(1).max(64).optional().describe("The session to hand over (default: the one created or used last).");

export function registerHumanTools(server: McpServer, state: McpState): void {
  server.registerTool(
    "ask_human",
    {
      title: "Ask a person for help",
      description:
        "Hands the browser to a person for a step you cannot do (a CAPTCHA, a login with a second factor, a judgement call). " +
        "Opens an interactive live view of the session showing your instructions, with a link (live_view_url) to pass to the person. " +
        "By default the call then waits (reporting progress, the link in each report) until they click Done in the live view, " +
        "timeout_seconds pass, or the session ends, and answers which (outcome: done, timed_out or session_ended). " +
        "With wait: false it answers with the link at once: send it to the person, then call wait_for_human. " +
        "Take a new snapshot afterwards: the person may have changed the page.",
      inputSchema: {
        session_id: SessionId,
        instructions: z.string().min(1).max(2000).describe("What the person should do, shown above the live view, e.g. “Solve the CAPTCHA, then click Done.”"),
        timeout_seconds: z
          .number()
          .int()
          .min(1)
          .max(maxHandOffSeconds)
          .optional()
          .describe(`How long to wait for Done (default 300, at most ${maxHandOffSeconds}; never past the session's end). The link works that long.`),
        wait: z.boolean().optional().describe("Wait for Done in this call (default true); false: answer with the link now and wait with wait_for_human."),
      },
    },
    (args, rawExtra) => {
      const extra = rawExtra as ToolExtra;
      return toolCall(extra, "session.ask_human", args.session_id ?? state.lastSession, async (ctx) => {
        const id = state.sessionIdOr(args.session_id);
        const handOff = await openHandOff(ctx, id, args.instructions, args.timeout_seconds ?? 300);
        state.lastSession = id;
        state.handOffs.set(id, handOff);
        if (args.wait === false) {
          return structured(
            `Send this link to the person: ${handOff.liveViewUrl}\nIt works until ${handOff.deadline.toISOString()}. Then call wait_for_human.`,
            { outcome: "waiting", session_id: id, live_view_url: handOff.liveViewUrl, deadline: handOff.deadline.toISOString() },
          );
        }
        return waitFor(ctx, extra, state, handOff);
      });
    },
  );

  server.registerTool(
    "wait_for_human",
    {
      title: "Wait for the person",
      description:
        "After ask_human (with wait: false, or when its wait was cut short): waits until the person clicks Done, the hand-off's " +
        "timeout passes, or the session ends, and answers which (outcome: done, timed_out or session_ended).",
      inputSchema: { session_id: SessionId },
      annotations: { readOnlyHint: true },
    },
    (args, rawExtra) => {
      const extra = rawExtra as ToolExtra;
      return toolCall(extra, "session.wait_for_human", args.session_id ?? state.lastSession, async (ctx) => {
        const id = state.sessionIdOr(args.session_id);
        const handOff = state.handOffs.get(id);
        if (!handOff) throw new ToolError(`No hand-off is open for session ${id}: call ask_human first.`);
        return waitFor(ctx, extra, state, handOff);
      });
    },
  );
}
