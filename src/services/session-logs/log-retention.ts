// Sessions' logs are kept for config.logs.retentionDays after the session started, then deleted;
// master-key rotation re-wraps their keys.
import type { MasterKey } from "../../crypto/master-key.ts";
import { rewrapLogKey } from "../../crypto/session-log-crypto.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
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
    const expired = await deps.db.prisma.sessionLogKey.findMany({ where: { expiresAt: { lte: now } }, select: { sessionId: true }, orderBy: { expiresAt: "asc" }, take: BATCH });
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

export interface LogKeyRotation {
  rewrapped: number;
  alreadyNew: number;
  otherKey: number;
  /** Sessions whose key did not open with the old master key. */
  failed: string[];
}

/** Re-wraps every session log key under `oldKey` with `newKey` (a compare-and-set per row, so a run can be repeated). */
export async function rewrapSessionLogKeys(prisma: PrismaClient, oldKey: MasterKey, newKey: MasterKey): Promise<LogKeyRotation> {
  const report: LogKeyRotation = { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] };
  for (let after = ""; ; ) {
    const rows = await prisma.sessionLogKey.findMany({
      where: { sessionId: { gt: after }, masterKeyId: oldKey.id },
      select: { sessionId: true, wrappedKey: true },
      orderBy: { sessionId: "asc" },
      take: 200,
    });
    if (rows.length === 0) break;
    after = rows.at(-1)!.sessionId;
    await prisma.$transaction(async (tx) => {
      for (const row of rows) {
        let wrappedKey: Uint8Array<ArrayBuffer>;
        try {
          wrappedKey = rewrapLogKey(oldKey, newKey, row.sessionId, row.wrappedKey);
        } catch {
          report.failed.push(row.sessionId);
          continue;
        }
        const { count } = await tx.sessionLogKey.updateMany({ where: { sessionId: row.sessionId, masterKeyId: oldKey.id }, data: { wrappedKey, masterKeyId: newKey.id } });
        report.rewrapped += count;
      }
    });
  }
  report.alreadyNew = (await prisma.sessionLogKey.count({ where: { masterKeyId: newKey.id } })) - report.rewrapped;
  report.otherKey = await prisma.sessionLogKey.count({ where: { masterKeyId: { notIn: [oldKey.id, newKey.id] } } });
  return report;
}
