import { z } from "zod";
import { PageQuery } from "../../kernel/pagination.ts";

/** The events an endpoint may subscribe to (a subset of the session events, plus nothing else). */
export const webhookEventTypes = [
  "session.queued",
  "session.started",
  "session.running",
  "session.released",
  "session.timed_out",
  "session.failed",
  "live_view.done",
  "download.completed",
  "recording.ready",
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** The event a "send test event" delivers: never subscribed to, sent only on request. */
export const TEST_EVENT = "webhook.test";

const MAX_URL_LENGTH = 2048;

/** An absolute http(s) URL without credentials in it (they would be stored and shown in the clear). */
export const WebhookUrl = z
  .string({ error: "must be a string" })
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute http:// or https:// URL" });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") ctx.addIssue({ code: "custom", message: "must use http:// or https://" });
    else if (!url.hostname) ctx.addIssue({ code: "custom", message: "must name a host" });
    else if (url.username || url.password)
      ctx.addIssue({ code: "custom", message: "must not carry a user name or password (put a token in the path instead)" });
  })
  .describe(
    "Where events are POSTed: an absolute http(s) URL. Checked against the webhook address policy (`VESSEL_WEBHOOK_ALLOW`) when set and at each delivery.",
  );

const Events = z
  .array(z.enum(webhookEventTypes, { error: `must be one of ${webhookEventTypes.join(", ")}` }))
  .min(1, "name at least one event")
  .max(webhookEventTypes.length)
  .transform((events) => [...new Set(events)])
  .describe(`The events sent to it: ${webhookEventTypes.join(", ")}.`);

const Description = z.string().trim().max(500, "must be at most 500 characters");

export const CreateWebhookInput = z.strictObject({
  url: WebhookUrl,
  events: Events,
  description: Description.optional().describe("Your own note."),
});
export type CreateWebhookInput = z.output<typeof CreateWebhookInput>;

export const UpdateWebhookInput = z.strictObject({
  url: WebhookUrl.optional(),
  events: Events.optional(),
  description: Description.nullable().optional().describe("Your own note; null removes it."),
  enabled: z.boolean().optional().describe("false stops deliveries; true turns a disabled endpoint back on."),
});
export type UpdateWebhookInput = z.output<typeof UpdateWebhookInput>;

export const WebhookListQuery = PageQuery;
export type WebhookListQuery = z.output<typeof WebhookListQuery>;

export const DeliveryListQuery = PageQuery;
export type DeliveryListQuery = z.output<typeof DeliveryListQuery>;
