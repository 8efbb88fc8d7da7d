import { ulid } from "../../ids.ts";
import type { WebhookDelivery } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { isPlausibleId, paginate, type Page } from "../../kernel/pagination.ts";
import { prismaOf } from "../../kernel/support.ts";
import { findEndpoint } from "./webhook-endpoints.ts";
import { TEST_EVENT, type DeliveryListQuery } from "./webhook-input.ts";
import { deliveryBody } from "./webhook-payload.ts";

/** A delivery as the log shows it (never its body: the receiver has it). */
export interface WebhookDeliveryView {
  id: string;
  webhookId: string;
  eventType: string;
  eventId: string | null;
  /** pending, delivered, failed (gave up after 24 hours, or the endpoint was disabled), refused (egress policy). */
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
}

export const deliveryView = (d: WebhookDelivery): WebhookDeliveryView => ({
  id: d.id,
  webhookId: d.endpointId,
  eventType: d.eventType,
  eventId: d.eventId,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.status === "pending" ? d.nextAttemptAt : null,
  lastAttemptAt: d.lastAttemptAt,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: d.createdAt,
});

/** The endpoint's deliveries, newest first. */
export async function listWebhookDeliveries(ctx: ServiceContext, id: string, q: DeliveryListQuery): Promise<Page<WebhookDeliveryView>> {
  const endpoint = await findEndpoint(ctx, id);
  const page = await paginate(q, "desc", (w) =>
    prismaOf(ctx).webhookDelivery.findMany({ where: { endpointId: endpoint.id, ...(w.idAfter ? { id: w.idAfter } : {}) }, orderBy: w.orderBy, take: w.take }),
  );
  return { ...page, items: page.items.map(deliveryView) };
}

/**
 * Sends a delivery again now, whatever became of it: the same `webhook-id` and body. Past its 24
 * hours, that is one more attempt; within them, the retries go on as before.
 */
export async function retryWebhookDelivery(ctx: ServiceContext, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
  const endpoint = await findEndpoint(ctx, id);
  if (ctx.audit) ctx.audit.target = deliveryId;
  const found = isPlausibleId(deliveryId) && (await prismaOf(ctx).webhookDelivery.count({ where: { id: deliveryId, endpointId: endpoint.id } })) > 0;
  if (!found) throw new AppError("not-found", "No delivery with this id for this webhook.");
  if (!endpoint.enabled) throw new AppError("conflict", "This webhook is disabled: turn it on (PATCH enabled: true) before retrying.");
  const row = await prismaOf(ctx).webhookDelivery.update({
    where: { id: deliveryId },
    data: { status: "pending", nextAttemptAt: ctx.deps.now(), lockedUntil: null, lockedBy: null },
  });
  ctx.deps.webhooks?.wake();
  return deliveryView(row);
}

/** Queues a `webhook.test` event for the endpoint (whatever events it subscribed to), sent at once. */
export async function sendTestWebhook(ctx: ServiceContext, id: string): Promise<WebhookDeliveryView> {
  const endpoint = await findEndpoint(ctx, id);
  if (!endpoint.enabled) throw new AppError("conflict", "This webhook is disabled: turn it on (PATCH enabled: true) to send it a test event.");
  const now = ctx.deps.now();
  const row = await prismaOf(ctx).webhookDelivery.create({
    data: {
      id: `msg_${ulid()}`,
      endpointId: endpoint.id,
      eventType: TEST_EVENT,
      eventId: null,
      nextAttemptAt: now,
      createdAt: now,
      payload: deliveryBody(TEST_EVENT, now, { webhook_id: endpoint.id, message: "A test event sent from Vessel." }),
    },
  });
  ctx.deps.webhooks?.wake();
  return deliveryView(row);
}
