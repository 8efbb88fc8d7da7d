import { z } from "zod";
import type { Session } from "../../generated/prisma/client.ts";
import { BrowserSettingsInput } from "./browser-settings-input.ts";
import { StoredOptions, storedOptions } from "./session-options.ts";

/**
 * The one wire shape of a session (snake_case JSON): the REST API's answers, webhook deliveries'
 * `data` and the MCP tools' structured results are all this, so they cannot drift apart. It lives
 * with the domain, not in a transport, because the webhooks domain sends it too.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const SessionDto = z
  .object({
    id: z.string().describe("`ses_<ULID>`"),
    status: z.enum(["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"]),
    end_reason: z
      .enum(["client_release", "force_stop", "timeout", "idle_timeout", "browser_crash", "node_shutdown", "launch_failed", "api_key_revoked", "queue_timeout"])
      .nullable(),
    region: z.string(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    expires_at: z.string().describe("The hard end: creation plus `timeout_seconds` (at most the session limit, VESSEL_MAX_SESSION_SECONDS)."),
    ended_at: z.string().nullable(),
    timeout_seconds: z.number().int(),
    idle_timeout_seconds: z.number().int().nullable(),
    profile_id: z.string().nullable(),
    live_view: z.object({
      interactive: z.boolean(),
      instructions: z.string().nullable(),
      viewers: z.number().int().describe("People watching the live view now (on the node that runs the session)."),
    }),
    metadata: z.record(z.string(), z.string()).describe("Your own labels, as given at create."),
    browser: BrowserSettingsInput.nullable().describe("The browser settings given at create, or null."),
    extension_ids: z.array(z.string()).describe("Extensions loaded into this session."),
    logs: z.boolean().describe("Whether the session's logs are captured (GET …/logs)."),
    recording: z.boolean().describe("Whether the session's screen is recorded (GET …/recording once it ends)."),
    // Declared create options without a column of their own (session-options.ts), as given.
    ...StoredOptions.shape,
    queue_position: z.number().int().nullable().describe("While QUEUED: its place in the admission queue's fair order (1 = next to start); null otherwise."),
    connect_url: z
      .string()
      .nullable()
      .describe("`wss://<host>/cdp?token=<JWT>` for any CDP client, valid until the session ends. Only in single-session answers while RUNNING."),
    live_view_url: z.string().nullable().describe("`https://<host>/?token=<JWT>`, valid about 5 minutes; re-mint with keepalive."),
  })
  .meta({ id: "Session" });
export type SessionDto = z.infer<typeof SessionDto>;

/**
 * A session as its wire shape. `urls` only in single-session answers while it runs (they carry
 * tokens: lists, webhooks and MCP leave them out); `viewers` as the node that asks counts them.
 */
export function toSessionDto(
  s: Session,
  urls: { connectUrl: string | null; liveViewUrl: string | null; queuePosition?: number | null } = { connectUrl: null, liveViewUrl: null },
  viewers = 0,
): SessionDto {
  return {
    id: s.id,
    status: s.status,
    end_reason: s.endReason ? (s.endReason.toLowerCase() as SessionDto["end_reason"]) : null,
    region: s.region,
    created_at: s.createdAt.toISOString(),
    started_at: iso(s.startedAt),
    expires_at: s.expiresAt.toISOString(),
    ended_at: iso(s.endedAt),
    timeout_seconds: s.timeoutSeconds,
    idle_timeout_seconds: s.idleTimeoutSeconds,
    profile_id: s.profileId,
    live_view: { interactive: s.liveViewInteractive, instructions: s.liveViewInstructions, viewers },
    metadata: (s.metadata ?? {}) as Record<string, string>,
    browser: (s.browser ?? null) as BrowserSettingsInput | null,
    extension_ids: s.extensionIds ?? [],
    logs: s.logs,
    recording: s.recording,
    ...storedOptions(s.options),
    queue_position: s.status === "QUEUED" ? (urls.queuePosition ?? null) : null,
    connect_url: urls.connectUrl,
    live_view_url: urls.liveViewUrl,
  };
}
