import { z } from "zod";
import type { WebhookDeliveryView } from "../../services/webhooks/webhook-deliveries.ts";
import type { WebhookEndpointView, WebhookEndpointWithSecret } from "../../services/webhooks/webhook-endpoints.ts";
import { CreateWebhookInput, DeliveryListQuery, UpdateWebhookInput, webhookEventTypes, WebhookListQuery } from "../../services/webhooks/webhook-input.ts";
import { operations } from "../../services/operations.ts";
import { defineRoute, listEnvelope, Reply } from "../define-route.ts";
import { toPageDto } from "../presenters/page.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const WebhookDto = z
  .object({
    id: z.string().describe("`whk_<ULID>`"),
    url: z.string(),
    events: z.array(z.string()).describe(`Of ${webhookEventTypes.join(", ")}.`),
    description: z.string().nullable(),
    enabled: z.boolean().describe("false: nothing is sent (turned off, or disabled after failing for 3 days: see disabled_reason)."),
    disabled_at: z.string().nullable(),
    disabled_reason: z.string().nullable(),
    previous_secret_expires_at: z.string().nullable().describe("After a rotation: until then the previous secret signs too."),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Webhook" });

const WebhookWithSecretDto = WebhookDto.extend({
  secret: z.string().describe("`whsec_<base64 of 32 bytes>`: shown only in this answer. Verify each delivery's `webhook-signature` with it."),
}).meta({ id: "WebhookWithSecret" });

const DeliveryDto = z
  .object({
    id: z.string().describe("`msg_<ULID>`: the `webhook-id` header, the same on every attempt."),
    webhook_id: z.string(),
    event: z.string().describe("The event type, for example `session.released` (or `webhook.test`)."),
    event_id: z.string().nullable().describe("The session event it announces."),
    status: z.enum(["pending", "delivered", "failed", "refused"]).describe("`refused`: the egress policy refused the URL's address (see last_error)."),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    last_attempt_at: z.string().nullable(),
    last_response_code: z.number().int().nullable().describe("The HTTP status of the last attempt, or null when it got no answer."),
    last_error: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "WebhookDelivery" });

const toDto = (w: WebhookEndpointView): z.output<typeof WebhookDto> => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  enabled: w.enabled,
  disabled_at: iso(w.disabledAt),
  disabled_reason: w.disabledReason,
  previous_secret_expires_at: iso(w.previousSecretExpiresAt),
  created_at: w.createdAt.toISOString(),
  updated_at: w.updatedAt.toISOString(),
});
const withSecret = (w: WebhookEndpointWithSecret) => ({ ...toDto(w), secret: w.secret });
const toDeliveryDto = (d: WebhookDeliveryView): z.output<typeof DeliveryDto> => ({
  id: d.id,
  webhook_id: d.webhookId,
  event: d.eventType,
  event_id: d.eventId,
  status: d.status as z.output<typeof DeliveryDto>["status"],
  attempts: d.attempts,
  next_attempt_at: iso(d.nextAttemptAt),
  last_attempt_at: iso(d.lastAttemptAt),
  last_response_code: d.lastStatusCode,
  last_error: d.lastError,
  created_at: d.createdAt.toISOString(),
});

const Id = z.object({ id: z.string().min(1).max(64) });
/** Dashboard owners and admins (bearer token or the sign-in cookie) name the workspace; API keys act in their own. */
const Ws = z.object({ workspace: z.string().min(1).max(64).optional().describe("Dashboard users name the workspace (slug); API keys act in their own.") });
const noStore = { "Cache-Control": "no-store" };
const tags = ["Webhooks"];

export const webhookRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/webhooks",
    operation: operations.createWebhook,
    summary: "Create a webhook",
    description:
      'Events of the workspace\'s sessions are POSTed to `url` as `{"type", "timestamp", "data"}`, signed the Standard Webhooks way ' +
      "(`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing `secret`, shown this once. At most 20 per workspace. " +
      "A URL whose deliveries the server would refuse (loopback, private or metadata addresses unless `VESSEL_WEBHOOK_ALLOW` opens them) " +
      "answers 422 `webhook-address-refused`.",
    tags,
    auth: "apiKeyOrUser",
    input: { query: Ws, body: CreateWebhookInput },
    status: 201,
    response: WebhookWithSecretDto,
    problems: ["forbidden", "conflict", "webhook-address-refused"],
    bodyLimit: "8kb",
    handler: async (ctx, { query, body }, _http, run) => new Reply(201, withSecret(await run(ctx, body)), noStore),
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhooks",
    operation: operations.webhooks,
    summary: "List webhooks",
    tags,
    auth: "apiKeyOrUser",
    input: { query: WebhookListQuery.extend(Ws.shape) },
    status: 200,
    response: listEnvelope(WebhookDto, "WebhookList"),
    problems: ["forbidden"],
    handler: async (ctx, { query }, _http, run) => toPageDto(await run(ctx, query), toDto),
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhooks/{id}",
    operation: operations.webhook,
    summary: "Get a webhook",
    description: "Never its secret.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: Id, query: Ws },
    status: 200,
    response: WebhookDto,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params, query }, _http, run) => toDto(await run(ctx, params.id)),
  }),
  defineRoute({
    method: "patch",
    path: "/v1/webhooks/{id}",
    operation: operations.updateWebhook,
    summary: "Change a webhook",
    description: "Its url, events or description; `enabled: false` stops deliveries, `enabled: true` turns a disabled webhook back on.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: Id, query: Ws, body: UpdateWebhookInput },
    status: 200,
    response: WebhookDto,
    problems: ["not-found", "forbidden", "webhook-address-refused"],
    bodyLimit: "8kb",
    handler: async (ctx, { params, query, body }, _http, run) => toDto(await run(ctx, params.id, body)),
  }),
  defineRoute({
    method: "delete",
    path: "/v1/webhooks/{id}",
    operation: operations.deleteWebhook,
    summary: "Delete a webhook",
    description: "With its secret and its deliveries.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: Id, query: Ws },
    status: 204,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params, query }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}:rotate-secret",
    operation: operations.rotateWebhookSecret,
    summary: "Rotate a webhook's secret",
    description: "A new secret, shown this once. For 24 hours the previous one signs too (two `v1,` signatures), so receivers can switch without a gap.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: Id, query: Ws },
    status: 200,
    response: WebhookWithSecretDto,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params, query }, _http, run) => new Reply(200, withSecret(await run(ctx, params.id)), noStore),
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}:test",
    operation: operations.testWebhook,
    summary: "Send a test event",
    description: "Queues a `webhook.test` event (`data`: `webhook_id`, `message`) for this webhook, sent at once and retried like any other.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: Id, query: Ws },
    status: 202,
    response: DeliveryDto,
    problems: ["not-found", "forbidden", "conflict"],
    handler: async (ctx, { params, query }, _http, run) => new Reply(202, toDeliveryDto(await run(ctx, params.id))),
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhooks/{id}/deliveries",
    operation: operations.webhookDeliveries,
    summary: "List a webhook's deliveries",
    description: "Newest first: each event sent or to be sent, its status, attempts, and the last attempt's answer.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: Id, query: DeliveryListQuery.extend(Ws.shape) },
    status: 200,
    response: listEnvelope(DeliveryDto, "WebhookDeliveryList"),
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params, query }, _http, run) => toPageDto(await run(ctx, params.id, query), toDeliveryDto),
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/deliveries/{delivery_id}:retry",
    operation: operations.retryWebhookDelivery,
    summary: "Retry a delivery",
    description: "Sends it again now, with the same `webhook-id` and body, whatever its status.",
    tags,
    auth: "apiKeyOrUser",
    input: { params: z.object({ id: z.string().min(1).max(64), delivery_id: z.string().min(1).max(64) }), query: Ws },
    status: 202,
    response: DeliveryDto,
    problems: ["not-found", "forbidden", "conflict"],
    handler: async (ctx, { params, query }, _http, run) => new Reply(202, toDeliveryDto(await run(ctx, params.id, params.delivery_id))),
  }),
];
