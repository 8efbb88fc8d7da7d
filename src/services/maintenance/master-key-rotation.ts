import { open, seal } from "../../crypto/envelope.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import type { Logger } from "../../logger.ts";
import { rotateSealedRows, type SealedRowsRotation } from "./sealed-key-rows.ts";
import {
  credentialKeys,
  extensionKeys,
  profileKeys,
  queuedInputs,
  recordingKeys,
  sessionLogKeys,
  signingKeys,
  webhookPreviousSecrets,
  webhookSecrets,
} from "./sealed-tables.ts";

/**
 * Master-key rotation: everything sealed by the master key is re-sealed under the new one, and no
 * profile payload is decrypted or rewritten:
 *
 * - profiles: the wrapped data key is unwrapped with the old key and wrapped with the new one;
 * - signing keys (`signing_keys.private_key_encrypted`): re-sealed, same AAD;
 * - stored idempotent answers (`idempotency_records`, sealed, 24 hours): re-sealed, so replays keep working;
 * - sessions' log keys (`session_log_keys`): re-wrapped like profiles' data keys; no entry is touched.
 * - recordings' data keys (`recordings`): re-wrapped like profiles' data keys; no chunk is touched.
 *
 * - extensions' data keys (`extensions`): re-wrapped likewise; no zip is touched.
 * - webhook endpoints' signing secrets (`webhook_endpoints.secret`, and `previous_secret` during a
 *   secret rotation): re-sealed, same AAD.
 * - credentials' data keys (`credentials`): re-wrapped likewise; no sealed secret is touched.
 * - queued sessions' inputs (`session_queue.input`, sealed, AAD `session-queue:<id>`): re-sealed, so a
 *   session waiting through the rotation still starts.
 *
 * Each row is rewritten only if it still names the old key (a compare-and-set on master_key_id,
 * sealed-key-rows.ts), so the run can be interrupted and repeated: rows already under the new key
 * are left alone. Rows under any third key are counted, never touched.
 */

export interface RotationReport {
  profiles: SealedRowsRotation;
  signingKeys: SealedRowsRotation;
  idempotencyRecords: { rewrapped: number; skipped: number };
  recordings: SealedRowsRotation;
  sessionLogKeys: SealedRowsRotation;
  extensions: SealedRowsRotation;
  webhookSecrets: SealedRowsRotation;
  webhookPreviousSecrets: SealedRowsRotation;
  credentials: SealedRowsRotation;
  queuedSessions: SealedRowsRotation;
}

const idempotencyAad = (workspaceId: string, key: string) => `idempotency:${workspaceId}:${key}`;

export async function rotateMasterKey(prisma: PrismaClient, oldKey: MasterKey, newKey: MasterKey, log?: Logger): Promise<RotationReport> {
  if (oldKey.id === newKey.id) throw new Error("the old and new master keys are the same key");
  const report: RotationReport = {
    profiles: await rotateSealedRows(profileKeys(prisma), oldKey, newKey),
    signingKeys: await rotateSealedRows(signingKeys(prisma), oldKey, newKey),
    idempotencyRecords: { rewrapped: 0, skipped: 0 },
    sessionLogKeys: await rotateSealedRows(sessionLogKeys(prisma), oldKey, newKey),
    extensions: await rotateSealedRows(extensionKeys(prisma), oldKey, newKey),
    recordings: await rotateSealedRows(recordingKeys(prisma), oldKey, newKey),
    webhookSecrets: await rotateSealedRows(webhookSecrets(prisma), oldKey, newKey),
    webhookPreviousSecrets: await rotateSealedRows(webhookPreviousSecrets(prisma), oldKey, newKey),
    credentials: await rotateSealedRows(credentialKeys(prisma), oldKey, newKey),
    queuedSessions: await rotateSealedRows(queuedInputs(prisma), oldKey, newKey),
  };

  // Stored answers name no key: a record that opens under the old key is re-sealed, anything else is left.
  const records = await prisma.idempotencyRecord.findMany({
    where: { state: "COMPLETED" },
    select: { workspaceId: true, key: true, responseBody: true },
  });
  for (const r of records) {
    const sealedText = (r.responseBody as { sealed?: unknown } | null)?.sealed;
    if (typeof sealedText !== "string") {
      report.idempotencyRecords.skipped++;
      continue;
    }
    const aad = idempotencyAad(r.workspaceId, r.key);
    try {
      const plain = open(oldKey.key, Buffer.from(sealedText, "base64"), aad);
      const resealed = seal(newKey.key, plain, aad).toString("base64");
      // Only if it was not changed meanwhile (the same sealed text is still there).
      await prisma.idempotencyRecord.updateMany({
        where: { workspaceId: r.workspaceId, key: r.key, responseBody: { equals: { sealed: sealedText } as Prisma.InputJsonValue } },
        data: { responseBody: { sealed: resealed } },
      });
      report.idempotencyRecords.rewrapped++;
    } catch {
      report.idempotencyRecords.skipped++;
    }
  }

  log?.info({ ...report }, "master key rotated");
  return report;
}
