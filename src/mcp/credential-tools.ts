/**
 * `fill_credential`: the server signs the agent in. The agent names a credential (by name or id);
 * the server types it into the session's active tab through its own connection to the browser, so
 * the secrets never reach the model, its context, or the agent's CDP socket. The result says which
 * fields were filled and on which origin, nothing more.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { operations } from "../services/operations.ts";
import type { McpState } from "./state.ts";
import { structured, toolCall, type ToolExtra } from "./tool-call.ts";

export function registerCredentialTools(server: McpServer, state: McpState): void {
  server.registerTool(
    "fill_credential",
    {
      title: "Sign in with a stored credential",
      description:
        "Fills a login stored in the workspace's vault (username, password, and a TOTP code when it has one) into the session's " +
        "active tab, typed by the server: you never see the secrets. Only when the tab's top-level origin is one of the credential's " +
        "origins; navigate to the login page first. Fields are found by their autocomplete tokens unless selectors are given. " +
        "With submit: true the form is submitted too; take a new snapshot afterwards.",
      inputSchema: {
        session_id: z.string().min(1).max(64).optional().describe("The session (default: the one created or used last)."),
        credential: z.string().min(1).max(100).describe("The credential's name or id (`cred_…`)."),
        submit: z.boolean().optional().describe("Submit the form once filled (default false)."),
        username_selector: z.string().min(1).max(500).optional().describe("CSS selector of the username field, when it cannot be found."),
        password_selector: z.string().min(1).max(500).optional().describe("CSS selector of the password field, when it cannot be found."),
        totp_selector: z.string().min(1).max(500).optional().describe("CSS selector of the one-time-code field, when it cannot be found."),
      },
    },
    (args, extra) =>
      toolCall(extra as ToolExtra, operations.fillCredential.action, null, async (ctx) => {
        const id = state.sessionIdOr(args.session_id);
        const input = {
          username_selector: args.username_selector,
          password_selector: args.password_selector,
          totp_selector: args.totp_selector,
          submit: args.submit ?? false,
        };
        const outcome = await operations.fillCredential.run(ctx, id, args.credential, input);
        state.lastSession = id;
        const what = outcome.filled.length > 0 ? `Filled ${outcome.filled.join(", ")}` : "Found no login field to fill";
        const submitted = input.submit && outcome.filled.length > 0 ? " and submitted the form" : "";
        return structured(`${what}${submitted} on ${outcome.origin}. Take a new snapshot to see the result.`, {
          session_id: id,
          filled: outcome.filled,
          origin: outcome.origin,
        });
      }),
  );
}
