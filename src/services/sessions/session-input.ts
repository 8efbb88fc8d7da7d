import { z } from "zod";
import { SESSION_SECONDS_CEILING } from "../../config.ts";
import { distinctIds } from "../../kernel/id-lists.ts";
import { PageQuery } from "../../kernel/pagination.ts";
import { NetworkPolicyInput } from "../network-policy/network-policy-input.ts";
import { BrowserSettingsInput } from "./browser-settings-input.ts";

// What a session's create and its list take: the inputs both transports validate with.

/**
 * The most any session may ask to live: a day. The deployment's limit (VESSEL_MAX_SESSION_SECONDS,
 * 30 minutes by default) or a workspace's own lies below it, and is checked at create
 * (session-limits.ts), where the message names it.
 */
export const maxSessionSeconds = SESSION_SECONDS_CEILING;
/** Without a CDP client for this long, a session is released (peers' top complaint is zombie sessions). */
export const defaultIdleSeconds = 300;
/** The longest a create may wait in the admission queue (services/sessions/queue). */
export const maxQueueSeconds = 3600;

/** Metadata keys: lower-case letters, digits, `_`, `.` and `-`, as in the list filter `metadata[<key>]=<value>`. */
const MetadataKey = z.string().regex(/^[a-z0-9_.-]{1,64}$/, "keys must be lower case: 1–64 characters of a-z, 0-9, _ . - (team, not Team)");
const MetadataValue = z.string().max(512, "values are at most 512 characters");
export const MAX_METADATA_KEYS = 16;

/** The customer's own labels on a session: stored with it, returned on it, and a list filter. */
export const SessionMetadata = z
  .record(MetadataKey, MetadataValue)
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `at most ${MAX_METADATA_KEYS} keys`)
  .describe(`Your own labels: at most ${MAX_METADATA_KEYS} keys ([a-z0-9_.-]{1,64}) to strings of at most 512 characters.`);

export const CreateSessionInput = z
  .strictObject({
    region: z.string().min(1).max(64).describe("A region this deployment serves (GET /v1/health lists them)."),
    profile_id: z.string().max(64).optional().describe("Start from a saved profile of this workspace."),
    save_profile_on_release: z
      .boolean()
      .optional()
      .describe("When the session is released (PATCH REQUEST_RELEASE), save its state back into `profile_id` (required with it)."),
    live_view: z
      .strictObject({
        interactive: z.boolean().default(false).describe("Let the viewer use mouse and keyboard."),
        instructions: z.string().max(2000).optional().describe("Shown to the person in the live view."),
      })
      .optional(),
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(maxSessionSeconds)
      .optional()
      .describe(
        `Hard end, in seconds. At most the session limit (VESSEL_MAX_SESSION_SECONDS, 1800 unless the deployment or the workspace sets another, never above ${maxSessionSeconds}), which is also the default.`,
      ),
    idle_timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(maxSessionSeconds)
      .optional()
      .describe(`Release the session after this long without a CDP client (default ${defaultIdleSeconds}; at most the session limit).`),
    proxy: z
      .strictObject({
        server: z
          .string()
          .max(300)
          .regex(/^http:\/\/[^/@\s]+:\d{1,5}\/?$/, "must be http://host:port")
          .describe("Your HTTP proxy (`http://host:port`): the session's traffic leaves through it, after the egress policy has judged each destination."),
        username: z.string().max(256).optional(),
        password: z.string().max(256).optional().describe("Never returned, logged or stored."),
      })
      .optional()
      .describe("An upstream proxy for this session's traffic."),
    logs: z
      .boolean()
      .optional()
      .describe(
        "Capture the session's console messages, page errors, navigations, network requests and CDP methods (GET …/logs). Default: the deployment's `VESSEL_LOGS` (on).",
      ),
    metadata: SessionMetadata.optional(),
    browser: BrowserSettingsInput.optional(),
    extension_ids: z
      .array(z.string().min(1).max(64))
      .max(10, "at most 10 extensions")
      .superRefine(distinctIds)
      .optional()
      .describe(
        "Extensions of this workspace (POST /v1/extensions) to load into this session only; needs full Chromium (else 422 extensions-unsupported). Each id once.",
      ),
    recording: z
      .boolean()
      .optional()
      .describe("Record the session's screen into a video (GET …/recording once it ends). Default: the deployment's `VESSEL_RECORDING` (off)."),
    start_url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) address, like https://example.com/" })
      .max(2000, "must be at most 2000 characters")
      .optional()
      .describe("Open this address in the session's first tab as it starts (not waited for; the egress policy judges it like any navigation)."),
    network_policy: NetworkPolicyInput.optional().describe(
      "This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`.",
    ),
    queue_timeout_seconds: z
      .number()
      .int()
      .min(0)
      .max(maxQueueSeconds)
      .optional()
      .describe(
        `With no free browser (or the workspace at its session cap), wait in the admission queue up to this long (at most ${maxQueueSeconds}): ` +
          "the answer is then 202 QUEUED with `queue_position`. 0 (the default): refused at once (503/429).",
      ),
    priority: z
      .number()
      .int()
      .min(-10)
      .max(10)
      .optional()
      .describe("Within its workspace, a queued session with a higher priority (−10…10, default 0) starts first; then the oldest."),
  })
  .superRefine((v, ctx) => {
    if (v.save_profile_on_release && !v.profile_id)
      ctx.addIssue({ code: "custom", path: ["save_profile_on_release"], message: "needs profile_id: the profile to save into" });
  });
export type CreateSessionInput = z.output<typeof CreateSessionInput>;

export const SessionListQuery = PageQuery.extend({
  status: z.enum(["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"]).optional(),
  metadata: SessionMetadata.optional().describe(
    "Only sessions whose metadata has every one of these keys with exactly this value (`metadata[team]=qa&metadata[run]=42`).",
  ),
});
