import type { z } from "zod";
import { ulid } from "../../ids.ts";
import type { WebhookEndpoint } from "../../generated/prisma/client.ts";
import { actingWorkspace, requirePrincipal, requireWorkspaceRole } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError, validationError } from "../../errors.ts";
import { isPlausibleId, paginate, type Page } from "../../kernel/pagination.ts";
import { parseInput, prismaOf, queryStatement } from "../../kernel/support.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import { CreateWebhookInput, UpdateWebhookInput, type WebhookListQuery } from "./webhook-input.ts";
import { newSecret } from "./webhook-secrets.ts";
import { checkWebhookAddress, webhookPolicy } from "./webhook-address.ts";

/**
 * A workspace's webhook endpoints (POST /v1/webhooks): a URL, the events it wants, and a signing
 * secret shown only when made (create, rotate). Managed by the workspace's API keys and by its
 * owners and admins on the dashboard.
 */

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  /** When and why deliveries stopped: it failed for 3 days in a row, or a PATCH turned it off. */
  disabledAt: Date | null;
  disabledReason: string | null;
  /** After a rotation: until when the previous secret still signs alongside. */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint with its secret in the clear: the one answer that shows it. */
export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  secret: string;
}

/** The most endpoints one workspace may have: each event costs a delivery per endpoint. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;
/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export function endpointView(e: WebhookEndpoint, now: Date): WebhookEndpointView {
  const overlapping = e.previousSecret && e.previousExpiresAt && e.previousExpiresAt > now;
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    enabled: e.enabled,
    disabledAt: e.disabledAt,
    disabledReason: e.disabledReason,
    previousSecretExpiresAt: overlapping ? e.previousExpiresAt : null,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

/** The workspace whose webhooks the caller manages: an API key's own, or one the user owns or administers. */
export async function webhookWorkspace(ctx: ServiceContext): Promise<string> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "apiKey") return actingWorkspace(ctx, "manage its webhooks");
  if (ctx.workspace === undefined) throw validationError([{ field: "workspace", message: "name the workspace (its slug) to manage its webhooks" }]);
  return (await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "manage webhooks")).id;
}

export async function findEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  const workspaceId = await webhookWorkspace(ctx);
  if (ctx.audit) ctx.audit.target = id;
  const row = isPlausibleId(id) ? await prismaOf(ctx).webhookEndpoint.findFirst({ where: { id, workspaceId } }) : null;
  if (!row) throw new AppError("not-found", "No webhook with this id in this workspace.");
  return row;
}

/** `raw` is checked here, whichever transport it came from. */
export async function createWebhook(ctx: ServiceContext, raw: z.input<typeof CreateWebhookInput>): Promise<WebhookEndpointWithSecret> {
  const workspaceId = await webhookWorkspace(ctx);
  const input = parseInput(CreateWebhookInput, raw);
  await checkWebhookAddress(webhookPolicy(ctx.deps.config), input.url);
  const id = `whk_${ulid()}`;
  const secret = newSecret(ctx.deps.masterKey, id);
  const now = ctx.deps.now();
  // One statement decides and inserts (vessel_webhook_room holds the workspace's lock until it
  // commits): parallel creates on any nodes cannot pass the cap, as a count-then-insert could.
  const [inserted] = await queryStatement<{ id: string }>(
    ctx.deps.db,
    Prisma.sql`INSERT INTO "webhook_endpoints" ("id", "workspace_id", "url", "events", "description", "secret", "master_key_id", "created_at", "updated_at")
      SELECT ${id}, ${workspaceId}, ${input.url}, ${input.events}::text[], ${input.description || null}::text, ${Buffer.from(secret.sealed)}, ${secret.masterKeyId}, ${now}::timestamptz, ${now}::timestamptz
      WHERE "vessel_webhook_room"(${workspaceId}::text, ${MAX_ENDPOINTS_PER_WORKSPACE}::int)
      RETURNING "id"`,
  );
  if (!inserted) throw new AppError("conflict", `A workspace may have at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhooks; delete one first.`);
  const row = await prismaOf(ctx).webhookEndpoint.findUniqueOrThrow({ where: { id } });
  if (ctx.audit) ctx.audit.target = id;
  ctx.deps.webhooks?.endpointsChanged();
  return { ...endpointView(row, ctx.deps.now()), secret: secret.shown };
}

export async function listWebhooks(ctx: ServiceContext, q: WebhookListQuery): Promise<Page<WebhookEndpointView>> {
  const workspaceId = await webhookWorkspace(ctx);
  const page = await paginate(q, "asc", (w) =>
    prismaOf(ctx).webhookEndpoint.findMany({ where: { workspaceId, ...(w.idAfter ? { id: w.idAfter } : {}) }, orderBy: w.orderBy, take: w.take }),
  );
  const now = ctx.deps.now();
  return { ...page, items: page.items.map((e) => endpointView(e, now)) };
}

export async function getWebhook(ctx: ServiceContext, id: string): Promise<WebhookEndpointView> {
  return endpointView(await findEndpoint(ctx, id), ctx.deps.now());
}

export async function updateWebhook(ctx: ServiceContext, id: string, raw: z.input<typeof UpdateWebhookInput>): Promise<WebhookEndpointView> {
  const input = parseInput(UpdateWebhookInput, raw);
  const row = await findEndpoint(ctx, id);
  if (input.url !== undefined) await checkWebhookAddress(webhookPolicy(ctx.deps.config), input.url);
  const now = ctx.deps.now();
  const turnedOn = input.enabled === true && !row.enabled;
  const turnedOff = input.enabled === false && row.enabled;
  const updated = await prismaOf(ctx).webhookEndpoint.update({
    where: { id: row.id },
    data: {
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: input.events } : {}),
      ...(input.description !== undefined ? { description: input.description || null } : {}),
      ...(turnedOn ? { enabled: true, disabledAt: null, disabledReason: null, failingSince: null } : {}),
      ...(turnedOff ? { enabled: false, disabledAt: now, disabledReason: "turned off" } : {}),
      updatedAt: now,
    },
  });
  ctx.deps.webhooks?.endpointsChanged();
  return endpointView(updated, now);
}

/** Deletes the endpoint with its secret and its deliveries (an attempt in flight still finishes). */
export async function deleteWebhook(ctx: ServiceContext, id: string): Promise<void> {
  const row = await findEndpoint(ctx, id);
  await prismaOf(ctx).webhookEndpoint.deleteMany({ where: { id: row.id } });
  ctx.deps.webhooks?.endpointsChanged();
}

/**
 * A new secret, shown once; the current one becomes the previous and keeps signing beside it for
 * 24 hours, so receivers can switch without losing a delivery. A second rotation within those hours
 * replaces the previous (only the two newest ever sign).
 */
export async function rotateWebhookSecret(ctx: ServiceContext, id: string): Promise<WebhookEndpointWithSecret> {
  const row = await findEndpoint(ctx, id);
  const now = ctx.deps.now();
  const secret = newSecret(ctx.deps.masterKey, row.id);
  const updated = await prismaOf(ctx).webhookEndpoint.update({
    where: { id: row.id },
    data: {
      secret: secret.sealed,
      masterKeyId: secret.masterKeyId,
      previousSecret: row.secret,
      previousMasterKeyId: row.masterKeyId,
      previousExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      updatedAt: now,
    },
  });
  return { ...endpointView(updated, now), secret: secret.shown };
}
