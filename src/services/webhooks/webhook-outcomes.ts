import type { AppDeps } from "../../kernel/context.ts";
import type { AttemptOutcome } from "./webhook-sender.ts";

/**
 * What an attempt's outcome does to its delivery and endpoint. A 2xx delivers it (and ends the
 * endpoint's failing streak); a refusal by the egress policy is final (status `refused`, the reason
 * kept); anything else is retried after base × 2^(attempt − 1), at most 4 hours apart, until 24 hours
 * after the event (then `failed`). An endpoint whose attempts have all failed for 3 days is disabled:
 * its waiting deliveries fail, and the dashboard shows why until someone turns it back on.
 */

export const RETRY_FOR_MS = 24 * 3600_000;
export const MAX_RETRY_DELAY_MS = 4 * 3600_000;
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;

export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(attempts - 1, 30), MAX_RETRY_DELAY_MS);
}

/** A delivery a node claimed for one attempt, with what sending it needs. */
export interface Claimed {
  id: string;
  endpoint_id: string;
  payload: string;
  attempts: number;
  created_at: Date;
  url: string;
  secret: Uint8Array;
  previous_secret: Uint8Array | null;
  previous_expires_at: Date | null;
}

type Deps = Pick<AppDeps, "db" | "log" | "now" | "nodeId">;

/** Answers when the delivery is due again (null: it is done, one way or another). */
export async function recordOutcome(deps: Deps, c: Claimed, outcome: AttemptOutcome, retryBaseMs: number): Promise<Date | null> {
  const prisma = deps.db.prisma;
  const now = deps.now();
  const mine = { id: c.id, lockedBy: deps.nodeId, attempts: c.attempts };
  const delivered = outcome.kind === "answered" && outcome.status >= 200 && outcome.status < 300;
  // locked_by stays: which node sent the last attempt.
  const common = { lastAttemptAt: now, lastStatusCode: outcome.kind === "answered" ? outcome.status : null, lockedUntil: null };
  if (delivered) {
    await prisma.webhookDelivery.updateMany({ where: mine, data: { ...common, status: "delivered", lastError: null } });
    await prisma.webhookEndpoint.updateMany({ where: { id: c.endpoint_id, failingSince: { not: null } }, data: { failingSince: null } });
    return null;
  }
  if (outcome.kind === "refused") {
    deps.log.warn(
      { deliveryId: c.id, endpointId: c.endpoint_id, reason: outcome.reason, addresses: outcome.addresses },
      "webhook delivery refused by the egress policy",
    );
    await prisma.webhookDelivery.updateMany({ where: mine, data: { ...common, status: "refused", lastError: outcome.reason } });
    return null;
  }
  const error = outcome.kind === "answered" ? `answered ${outcome.status}` : outcome.error;
  const giveUp = now.getTime() - new Date(c.created_at).getTime() >= RETRY_FOR_MS;
  const next = new Date(now.getTime() + retryDelayMs(c.attempts, retryBaseMs));
  await prisma.webhookDelivery.updateMany({
    where: mine,
    data: giveUp ? { ...common, status: "failed", lastError: error } : { ...common, lastError: error, nextAttemptAt: next },
  });
  await noteFailure(deps, c.endpoint_id, now);
  return giveUp ? null : next;
}

/** Starts or extends the endpoint's failing streak; one that has lasted 3 days disables it. */
async function noteFailure(deps: Deps, endpointId: string, now: Date): Promise<void> {
  const prisma = deps.db.prisma;
  await prisma.webhookEndpoint.updateMany({ where: { id: endpointId, failingSince: null }, data: { failingSince: now } });
  const cutoff = new Date(now.getTime() - DISABLE_AFTER_MS);
  const { count } = await prisma.webhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true, failingSince: { lte: cutoff } },
    data: { enabled: false, disabledAt: now, disabledReason: "every delivery failed for 3 days", updatedAt: now },
  });
  if (count === 0) return;
  await prisma.webhookDelivery.updateMany({
    where: { endpointId, status: "pending" },
    data: { status: "failed", lastError: "the endpoint was disabled after failing for 3 days" },
  });
  deps.log.warn({ endpointId }, "webhook endpoint disabled: every delivery failed for 3 days");
}
