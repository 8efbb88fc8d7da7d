import type { RecordingStatus } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { NODE_STOPPED } from "./recording-node.ts";
import { removeStored } from "./recording-store.ts";

/** Recordings deleted per run of the job, at most (the next run takes the rest). */
const BATCH = 500;
/**
 * A recording still unfinished this long after its session ended was being made on a node that
 * died (a node that restarts fails its own at once: recording-node.ts). Finishing takes seconds.
 */
const STALE_AFTER_MS = 30 * 60 * 1000;
const unfinished: RecordingStatus[] = ["RECORDING", "PROCESSING"];

/**
 * The retention job: recordings past `expires_at` (VESSEL_RECORDING_RETENTION_DAYS after their
 * session started) are deleted, row, wrapped key and bytes; recordings whose node died unfinished
 * are failed. Every node runs it; each delete is of what has expired, so running twice is harmless.
 */
export async function purgeExpiredRecordings(deps: Pick<AppDeps, "db" | "now" | "log" | "config">): Promise<{ deleted: number; failed: number }> {
  const { prisma } = deps.db;
  const store = { prisma, config: deps.config };
  const now = deps.now();
  const expired = await prisma.recording.findMany({ where: { expiresAt: { lt: now } }, select: { sessionId: true, storage: true }, take: BATCH });
  let deleted = 0;
  for (const rec of expired) {
    const { count } = await prisma.recording.deleteMany({ where: { sessionId: rec.sessionId, expiresAt: { lt: now } } });
    await removeStored(store, rec);
    deleted += count;
  }
  const stale = await prisma.recording.findMany({
    where: { status: { in: unfinished }, session: { endedAt: { lt: new Date(now.getTime() - STALE_AFTER_MS) } } },
    select: { sessionId: true, storage: true },
    take: BATCH,
  });
  let failed = 0;
  for (const rec of stale) {
    const { count } = await prisma.recording.updateMany({
      where: { sessionId: rec.sessionId, status: { in: unfinished } },
      data: { status: "FAILED", failure: NODE_STOPPED },
    });
    await removeStored(store, rec);
    failed += count;
  }
  if (deleted + failed > 0) deps.log.info({ deleted, failed }, "recordings past their retention deleted; unfinished ones of dead nodes failed");
  return { deleted, failed };
}
