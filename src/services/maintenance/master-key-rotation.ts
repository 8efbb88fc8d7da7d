import { open, seal } from "../../crypto/envelope.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import { rewrapDataKey } from "../../crypto/profile-crypto.ts";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import type { Logger } from "../../logger.ts";
import { rewrapRecordingKeys, type RecordingKeyRotation } from "../recordings/recording-retention.ts";
import { rewrapExtensionKeys, type ExtensionKeyRotation } from "../extensions/extension-keys.ts";
import { rewrapSessionLogKeys, type LogKeyRotation } from "../session-logs/log-retention.ts";

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
 * Each row is rewritten only if it still names the old key (a compare-and-set on master_key_id), in
 * batches of one transaction each, so the run can be interrupted and repeated: rows already under
 * the new key are left alone. Rows under any third key are counted, never touched.
 */

export interface RotationReport {
  profiles: { rewrapped: number; alreadyNew: number; otherKey: number; failed: string[] };
  signingKeys: { rewrapped: number; alreadyNew: number; otherKey: number; failed: string[] };
  idempotencyRecords: { rewrapped: number; skipped: number };
  recordings: RecordingKeyRotation;
  sessionLogKeys: LogKeyRotation;
  extensions: ExtensionKeyRotation;
}

const BATCH = 200;

const signingKeyAad = (kid: string) => `signing_keys:${kid}`;
const idempotencyAad = (workspaceId: string, key: string) => `idempotency:${workspaceId}:${key}`;
const u8 = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

export async function rotateMasterKey(prisma: PrismaClient, oldKey: MasterKey, newKey: MasterKey, log?: Logger): Promise<RotationReport> {
  if (oldKey.id === newKey.id) throw new Error("the old and new master keys are the same key");
  const report: RotationReport = {
    profiles: { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] },
    signingKeys: { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] },
    idempotencyRecords: { rewrapped: 0, skipped: 0 },
    recordings: { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] },
    sessionLogKeys: { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] },
    extensions: { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] },
  };

  // Profiles, in id order, a batch per transaction.
  for (let after = ""; ; ) {
    const rows = await prisma.profile.findMany({
      where: { id: { gt: after }, masterKeyId: oldKey.id },
      select: { id: true, wrappedKey: true },
      orderBy: { id: "asc" },
      take: BATCH,
    });
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    await prisma.$transaction(async (tx) => {
      for (const row of rows) {
        let wrappedKey: Uint8Array<ArrayBuffer>;
        try {
          wrappedKey = rewrapDataKey(oldKey, newKey, row.id, row.wrappedKey);
        } catch {
          report.profiles.failed.push(row.id);
          continue;
        }
        const { count } = await tx.profile.updateMany({ where: { id: row.id, masterKeyId: oldKey.id }, data: { wrappedKey, masterKeyId: newKey.id } });
        report.profiles.rewrapped += count;
      }
    });
  }
  report.profiles.alreadyNew = await prisma.profile.count({ where: { masterKeyId: newKey.id } }) - report.profiles.rewrapped;
  report.profiles.otherKey = await prisma.profile.count({ where: { masterKeyId: { notIn: [oldKey.id, newKey.id] } } });

  const signing = await prisma.signingKey.findMany({ where: { masterKeyId: oldKey.id }, select: { id: true, privateKeyEncrypted: true } });
  await prisma.$transaction(async (tx) => {
    for (const row of signing) {
      let sealed: Buffer;
      try {
        const plain = open(oldKey.key, row.privateKeyEncrypted, signingKeyAad(row.id));
        sealed = seal(newKey.key, plain, signingKeyAad(row.id));
        plain.fill(0);
      } catch {
        report.signingKeys.failed.push(row.id);
        continue;
      }
      const { count } = await tx.signingKey.updateMany({
        where: { id: row.id, masterKeyId: oldKey.id },
        data: { privateKeyEncrypted: u8(sealed), masterKeyId: newKey.id },
      });
      report.signingKeys.rewrapped += count;
    }
  });
  report.signingKeys.alreadyNew = await prisma.signingKey.count({ where: { masterKeyId: newKey.id } }) - report.signingKeys.rewrapped;
  report.signingKeys.otherKey = await prisma.signingKey.count({ where: { masterKeyId: { notIn: [oldKey.id, newKey.id] } } });

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

  report.sessionLogKeys = await rewrapSessionLogKeys(prisma, oldKey, newKey);
  report.extensions = await rewrapExtensionKeys(prisma, oldKey, newKey);

  report.recordings = await rewrapRecordingKeys(prisma, oldKey, newKey);

  log?.info({ ...report }, "master key rotated");
  return report;
}
