import type { AppDeps } from "../../kernel/context.ts";

/** Deliveries that are done (delivered, failed, refused) are kept this long for the log, then deleted. */
export const DELIVERY_RETENTION_DAYS = 30;

/** The retention job: done deliveries created more than 30 days ago (by the app's clock). Answers how many went. */
export async function purgeOldDeliveries(deps: Pick<AppDeps, "db" | "now" | "log">): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - DELIVERY_RETENTION_DAYS * 24 * 3600_000);
  const { count } = await deps.db.prisma.webhookDelivery.deleteMany({ where: { createdAt: { lt: cutoff }, status: { not: "pending" } } });
  if (count > 0) deps.log.info({ count, createdBefore: cutoff.toISOString() }, "webhook deliveries deleted after their retention");
  return count;
}
