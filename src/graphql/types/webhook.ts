import type { Page } from "../../kernel/pagination.ts";
import { parseInput } from "../../kernel/support.ts";
import type { WebhookDeliveryView } from "../../services/webhooks/webhook-deliveries.ts";
import type { WebhookEndpointView, WebhookEndpointWithSecret } from "../../services/webhooks/webhook-endpoints.ts";
import { DeliveryListQuery, WebhookListQuery } from "../../services/webhooks/webhook-input.ts";
import { operations } from "../../services/operations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";

const WORKSPACE = "The workspace (slug) to act in: required for dashboard users (owners and admins); an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

const WebhookRef = builder.objectRef<WebhookEndpointView>("Webhook").implement({
  description: "Where the workspace's session events are POSTed, signed (Standard Webhooks). Its secret is only shown when made.",
  fields: (t) => ({
    id: t.exposeString("id", { description: "`whk_<ULID>`" }),
    url: t.exposeString("url"),
    events: t.exposeStringList("events"),
    description: t.exposeString("description", { nullable: true }),
    enabled: t.exposeBoolean("enabled", { description: "false: nothing is sent (turned off, or disabled after failing for 3 days: see disabledReason)." }),
    disabledAt: t.field({ type: "DateTime", nullable: true, resolve: (w) => w.disabledAt }),
    disabledReason: t.exposeString("disabledReason", { nullable: true }),
    previousSecretExpiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "After a rotation: until then the previous secret signs too.",
      resolve: (w) => w.previousSecretExpiresAt,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (w) => w.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (w) => w.updatedAt }),
  }),
});

const WebhookWithSecretRef = builder.objectRef<WebhookEndpointWithSecret>("WebhookWithSecret").implement({
  description: "A webhook just created or rotated, with its signing secret: shown only in this answer.",
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, resolve: (w) => w }),
    secret: t.exposeString("secret", { description: "`whsec_<base64 of 32 bytes>`" }),
  }),
});

const DeliveryRef = builder.objectRef<WebhookDeliveryView>("WebhookDelivery").implement({
  description: "One event for one webhook: sent until a 2xx answers, retried with backoff for 24 hours.",
  fields: (t) => ({
    id: t.exposeString("id", { description: "`msg_<ULID>`: the `webhook-id` header, the same on every attempt." }),
    webhookId: t.exposeString("webhookId"),
    event: t.exposeString("eventType"),
    eventId: t.exposeString("eventId", { nullable: true }),
    status: t.exposeString("status", { description: "pending, delivered, failed or refused (by the egress policy: see lastError)." }),
    attempts: t.exposeInt("attempts"),
    nextAttemptAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.nextAttemptAt }),
    lastAttemptAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.lastAttemptAt }),
    lastResponseCode: t.exposeInt("lastStatusCode", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
  }),
});

const WebhookPage = builder.objectRef<Page<WebhookEndpointView>>("WebhookPage").implement({
  fields: (t) => ({
    items: t.field({ type: [WebhookRef], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

const DeliveryPage = builder.objectRef<Page<WebhookDeliveryView>>("WebhookDeliveryPage").implement({
  fields: (t) => ({
    items: t.field({ type: [DeliveryRef], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

builder.queryField(operations.webhooks.id, (t) =>
  t.field({
    extensions: { operation: operations.webhooks },
    type: WebhookPage,
    args: { workspace: t.arg.string({ description: WORKSPACE }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.webhooks,
        (svc, run) => run(svc, parseInput(WebhookListQuery, { limit: opt(args.limit), cursor: opt(args.cursor) })),
        opt(args.workspace),
      ),
  }),
);

builder.queryField(operations.webhook.id, (t) =>
  t.field({
    extensions: { operation: operations.webhook },
    type: WebhookRef,
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.webhook, (svc, run) => run(svc, args.id), opt(args.workspace)),
  }),
);

builder.queryField(operations.webhookDeliveries.id, (t) =>
  t.field({
    extensions: { operation: operations.webhookDeliveries },
    type: DeliveryPage,
    description: "A webhook's deliveries, newest first.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.webhookDeliveries,
        (svc, run) => run(svc, args.id, parseInput(DeliveryListQuery, { limit: opt(args.limit), cursor: opt(args.cursor) })),
        opt(args.workspace),
      ),
  }),
);

builder.mutationField(operations.createWebhook.id, (t) =>
  t.field({
    extensions: { operation: operations.createWebhook },
    type: WebhookWithSecretRef,
    args: {
      url: t.arg.string({ required: true }),
      events: t.arg.stringList({
        required: true,
        description:
          "session.queued, session.started, session.running, session.released, session.timed_out, session.failed, live_view.done, download.completed, recording.ready",
      }),
      description: t.arg.string(),
      workspace: t.arg.string({ description: WORKSPACE }),
    },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.createWebhook,
        (svc, run) => run(svc, { url: args.url, events: args.events, description: opt(args.description) } as never),
        opt(args.workspace),
      ),
  }),
);

builder.mutationField(operations.updateWebhook.id, (t) =>
  t.field({
    extensions: { operation: operations.updateWebhook },
    type: WebhookRef,
    args: {
      id: t.arg.string({ required: true }),
      url: t.arg.string(),
      events: t.arg.stringList(),
      description: t.arg.string({ description: "An empty string removes it." }),
      enabled: t.arg.boolean({ description: "false stops deliveries; true turns a disabled webhook back on." }),
      workspace: t.arg.string({ description: WORKSPACE }),
    },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.updateWebhook,
        (svc, run) =>
          run(svc, args.id, { url: opt(args.url), events: opt(args.events), description: opt(args.description), enabled: opt(args.enabled) } as never),
        opt(args.workspace),
      ),
  }),
);

builder.mutationField(operations.deleteWebhook.id, (t) =>
  t.field({
    extensions: { operation: operations.deleteWebhook },
    type: "Boolean",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.deleteWebhook, async (svc, run) => (await run(svc, args.id), true), opt(args.workspace)),
  }),
);

builder.mutationField(operations.rotateWebhookSecret.id, (t) =>
  t.field({
    extensions: { operation: operations.rotateWebhookSecret },
    type: WebhookWithSecretRef,
    description: "A new secret, shown this once; the previous one signs too for 24 hours.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.rotateWebhookSecret, (svc, run) => run(svc, args.id), opt(args.workspace)),
  }),
);

builder.mutationField(operations.testWebhook.id, (t) =>
  t.field({
    extensions: { operation: operations.testWebhook },
    type: DeliveryRef,
    description: "Queues a webhook.test event for this webhook, sent at once.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.testWebhook, (svc, run) => run(svc, args.id), opt(args.workspace)),
  }),
);

builder.mutationField(operations.retryWebhookDelivery.id, (t) =>
  t.field({
    extensions: { operation: operations.retryWebhookDelivery },
    type: DeliveryRef,
    description: "Sends a delivery again now, with the same webhook-id and body.",
    args: { id: t.arg.string({ required: true }), deliveryId: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.retryWebhookDelivery, (svc, run) => run(svc, args.id, args.deliveryId), opt(args.workspace)),
  }),
);
