/**
 * The MCP tools that manage sessions and profiles: thin over the same operations REST and GraphQL
 * call (src/services/operations.ts), audited under the same actions.
 */
import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { parseInput } from "../kernel/support.ts";
import { operations } from "../services/operations.ts";
import { BrowserSettingsInput } from "../services/sessions/browser-settings-input.ts";
import { CreateSessionInput } from "../services/sessions/session-input.ts";
import { toSessionDto } from "../services/sessions/session-wire.ts";
import type { Session } from "../generated/prisma/client.ts";
import type { McpState } from "./state.ts";
import { ToolError, structured, text, toolCall, type ToolExtra } from "./tool-call.ts";

const SessionId = z.string().min(1).max(64).describe("The session's id (`ses_…`), as create_session or list_sessions gave it.");

/**
 * create_session's input: the service's CreateSessionInput (the one declaration of a create's
 * options), with `region` optional (the node's own by default). `settings` is the name this tool
 * once gave `browser`; it is still accepted.
 */
function createSessionShape(regions: readonly string[], nodeRegion: string) {
  const { region, browser, ...options } = CreateSessionInput.shape;
  return {
    region: region.optional().describe(`Where the browser runs: one of ${regions.join(", ")} (default ${nodeRegion}).`),
    ...options,
    browser,
    settings: BrowserSettingsInput.optional().describe("Deprecated: the same as `browser` (its former name here)."),
  };
}

export function registerSessionTools(server: McpServer, state: McpState): void {
  const { config } = state.deps;
  server.registerTool(
    "create_session",
    {
      title: "Create a browser session",
      description:
        "Starts a new remote Chromium browser for this workspace and answers its id once it is running. Pass that id as " +
        "session_id to the other tools (they default to the session created last). A session lives at most " +
        `${config.maxSessionSeconds / 60} minutes (unless its workspace sets another limit); release it with release_session when done. ` +
        "With queue_timeout_seconds, when no browser is free it waits in the queue up to that long and answers once the session runs (or ended waiting). " +
        `Regions: ${config.regions.join(", ")} (default ${config.nodeRegion}).`,
      inputSchema: createSessionShape(config.regions, config.nodeRegion),
    },
    (args, extra) =>
      toolCall(extra as ToolExtra, operations.createSession.action, null, async (ctx) => {
        const { settings, ...rest } = args;
        const input = parseInput(CreateSessionInput, {
          ...rest,
          region: args.region ?? config.nodeRegion,
          ...(settings && !args.browser ? { browser: settings } : {}),
        });
        const created = await operations.createSession.run(ctx, input, randomUUID());
        // Queued: this call waits (up to the queue timeout) until it starts or ends waiting.
        const session = created.view.session.status === "QUEUED" ? await untilStarted(ctx, created.view.session, extra as ToolExtra) : created.view.session;
        state.lastSession = session.id;
        const earlier = created.replayed ? " (answered from an earlier request)" : "";
        return structured(
          `Session ${session.id}${earlier} is ${session.status} in ${session.region}; it ends at ${session.expiresAt.toISOString()} at the latest.`,
          toSessionDto(session),
        );
      }),
  );

  server.registerTool(
    "list_sessions",
    {
      title: "List sessions",
      description: "Lists this workspace's browser sessions (oldest first), optionally only those with one status, e.g. RUNNING.",
      inputSchema: {
        status: z
          .enum(["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"])
          .optional()
          .describe("Only sessions in this status."),
        limit: z.number().int().min(1).max(100).optional().describe("At most this many (default 100)."),
      },
    },
    (args, extra) =>
      toolCall(extra as ToolExtra, operations.sessions.action, null, async (ctx) => {
        const page = await operations.sessions.run(
          ctx,
          parseInput(operations.sessions.input, { limit: args.limit ?? 100, ...(args.status ? { status: args.status } : {}) }),
        );
        const lines = page.items.map((s) => `${s.id}  ${s.status}  ${s.region}  created ${s.createdAt.toISOString()}`);
        return structured(lines.length ? lines.join("\n") : "No sessions.", { sessions: page.items.map((s) => toSessionDto(s)), has_more: page.hasMore });
      }),
  );

  server.registerTool(
    "release_session",
    {
      title: "Release a session",
      description:
        "Ends a session: its browser closes (and its profile is saved if it was created with save_profile_on_release). Also fine on an ended session.",
      inputSchema: { session_id: SessionId.optional() },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args, extra) =>
      toolCall(extra as ToolExtra, operations.releaseSession.action, args.session_id ?? state.lastSession, async (ctx) => {
        const id = state.sessionIdOr(args.session_id);
        await state.links.close(id);
        await operations.releaseSession.run(ctx, id);
        if (state.lastSession === id) state.lastSession = null;
        return text(`Session ${id} is released.`);
      }),
  );

  server.registerTool(
    "save_profile",
    {
      title: "Save a profile",
      description:
        "Saves a running session's cookies, localStorage and sessionStorage as a profile, to start later sessions logged in " +
        "(create_session profile_id). Give profile_id to overwrite an existing profile, or label to create a new one.",
      inputSchema: {
        session_id: SessionId.optional(),
        profile_id: z.string().max(64).optional().describe("An existing profile to overwrite."),
        label: z.string().min(1).max(100).optional().describe("The label of a new profile (when no profile_id is given)."),
      },
    },
    (args, extra) =>
      toolCall(extra as ToolExtra, args.profile_id ? operations.saveProfile.action : operations.createProfile.action, args.profile_id ?? null, async (ctx) => {
        const id = state.sessionIdOr(args.session_id);
        if (!args.profile_id && !args.label) throw new ToolError("Give profile_id (overwrite a profile) or label (a new profile).");
        const profile = args.profile_id
          ? await operations.saveProfile.run(ctx, args.profile_id, parseInput(operations.saveProfile.input, { session_id: id }))
          : await operations.createProfile.run(ctx, parseInput(operations.createProfile.input, { label: args.label, session_id: id }));
        return structured(
          `Saved session ${id} into profile ${profile.id} (${profile.label}): ${profile.cookieCount} cookies, ${profile.originCount} origins.`,
          {
            profile_id: profile.id,
            label: profile.label,
            cookies: profile.cookieCount,
            origins: profile.originCount,
          },
        );
      }),
  );
}

/** A queued session as it is once it left the queue (started or ended), read until its queue deadline passes (and a little after: the sweep ends it). */
async function untilStarted(ctx: Parameters<typeof operations.session.run>[0], queued: Session, extra: ToolExtra): Promise<Session> {
  const waitMs = (queuedTimeout(queued) + 5) * 1000;
  const until = Date.now() + waitMs;
  let session = queued;
  while ((session.status === "QUEUED" || session.status === "PENDING") && Date.now() < until && !extra.signal?.aborted) {
    await new Promise((r) => setTimeout(r, 250));
    session = (await operations.session.run(ctx, queued.id)).session;
  }
  return session;
}

function queuedTimeout(s: Session): number {
  const value = (s.options as { queue_timeout_seconds?: unknown } | null)?.queue_timeout_seconds;
  return typeof value === "number" ? value : 0;
}
