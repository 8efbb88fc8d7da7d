// Sessions' logs are kept for config.logs.retentionDays after the session started, then deleted;
// master-key rotation re-wraps their keys (maintenance/sealed-tables.ts).
import type { AppDeps } from "../../kernel/context.ts";

const BATCH = 100;

/**
 * Deletes the logs whose time is up (by the app's clock): each key row with its entries, a batch of
 * sessions per transaction. Answers how many sessions' logs and entries went.
 */
export async function purgeExpiredSessionLogs(deps: Pick<AppDeps, "db" | "now" | "log">): Promise<{ sessions: number; entries: number }> {
  const now = deps.now();
  const purged = { sessions: 0, entries: 0 };
  for (;;) {
    const expired = await deps.db.prisma.sessionLogKey.findMany({
      where: { expiresAt: { lte: now } },
      select: { sessionId: true },
      orderBy: { expiresAt: "asc" },
      take: BATCH,
    });
    if (expired.length === 0) break;
    const ids = expired.map((k) => k.sessionId);
    const [entries, keys] = await deps.db.prisma.$transaction([
      deps.db.prisma.sessionLogEntry.deleteMany({ where: { sessionId: { in: ids } } }),
      deps.db.prisma.sessionLogKey.deleteMany({ where: { sessionId: { in: ids }, expiresAt: { lte: now } } }),
    ]);
    purged.sessions += keys.count;
    purged.entries += entries.count;
    if (expired.length < BATCH) break;
  }
  if (purged.sessions > 0) deps.log.info({ ...purged }, "sessions' logs deleted after their retention");
  return purged;
}
