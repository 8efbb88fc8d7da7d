import type { Job } from "../../jobs.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { purgeExpiredRecordings } from "../recordings/recording-retention.ts";
import { purgeExpiredSessionLogs } from "../session-logs/log-retention.ts";
import { purgeOldDeliveries } from "../webhooks/delivery-retention.ts";
import { MissedDeliveries, MISSED_DELIVERIES_EVERY_MS } from "../webhooks/missed-deliveries.ts";

/** A revoked API key stays listed, greyed out, for 90 days, then is deleted (spec §3). */
export const REVOKED_KEY_RETENTION_DAYS = 90;
/** Sign-in links are kept an hour past their expiry (enough to recognise a late replay), then deleted. */
const LOGIN_TOKEN_RETENTION_MS = 3600 * 1000;

const DAY_MS = 24 * 3600 * 1000;

/** Deletes API keys revoked more than 90 days ago (by the app's clock). Answers how many. */
export async function purgeRevokedApiKeys(deps: AppDeps): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - REVOKED_KEY_RETENTION_DAYS * DAY_MS);
  const { count } = await deps.db.prisma.apiKey.deleteMany({ where: { revokedAt: { lt: cutoff } } });
  if (count > 0) deps.log.info({ count, revokedBefore: cutoff.toISOString() }, "revoked API keys deleted after their retention");
  return count;
}

/** Deletes expired sign-in links and refresh tokens (revoked ones too, once expired). */
export async function purgeExpiredSignIns(deps: AppDeps): Promise<{ loginTokens: number; refreshTokens: number }> {
  const now = deps.now().getTime();
  const links = await deps.db.prisma.loginToken.deleteMany({ where: { expiresAt: { lt: new Date(now - LOGIN_TOKEN_RETENTION_MS) } } });
  const refresh = await deps.db.prisma.refreshToken.deleteMany({ where: { expiresAt: { lt: new Date(now) } } });
  return { loginTokens: links.count, refreshTokens: refresh.count };
}

/** The app's periodic jobs. */
export function maintenanceJobs(deps: AppDeps, everyMs: number): Job[] {
  // The first runs come soon after start, so nodes that restart often still purge.
  const firstAfterMs = Math.min(everyMs, 60_000);
  const missedDeliveries = new MissedDeliveries({ ...deps, setAside: deps.metrics?.setAside });
  return [
    { name: "purge-revoked-api-keys", everyMs, firstAfterMs, run: () => purgeRevokedApiKeys(deps) },
    { name: "purge-expired-sign-ins", everyMs, firstAfterMs, run: () => purgeExpiredSignIns(deps) },
    { name: "purge-expired-recordings", everyMs, firstAfterMs, run: () => purgeExpiredRecordings(deps) },
    { name: "purge-expired-session-logs", everyMs, firstAfterMs, run: () => purgeExpiredSessionLogs(deps) },
    { name: "purge-old-webhook-deliveries", everyMs, firstAfterMs, run: () => purgeOldDeliveries(deps) },
    // Not the maintenance interval: a lost delivery is late by at most about a minute.
    { name: "make-missed-webhook-deliveries", everyMs: MISSED_DELIVERIES_EVERY_MS, run: () => missedDeliveries.run() },
  ];
}
