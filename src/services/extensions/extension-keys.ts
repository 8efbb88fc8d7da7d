import { rewrapDataKey } from "../../crypto/data-keys.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { extensionKeyAad } from "./extensions.ts";

export interface ExtensionKeyRotation {
  rewrapped: number;
  alreadyNew: number;
  otherKey: number;
  /** Extensions whose key the old master key could not open (left as they are). */
  failed: string[];
}

/** Master-key rotation's part for extensions: each data key re-wrapped, no zip touched. */
export async function rewrapExtensionKeys(prisma: PrismaClient, oldKey: MasterKey, newKey: MasterKey): Promise<ExtensionKeyRotation> {
  const report: ExtensionKeyRotation = { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] };
  for (let after = ""; ; ) {
    const rows = await prisma.extension.findMany({ where: { id: { gt: after }, masterKeyId: oldKey.id }, select: { id: true, wrappedKey: true }, orderBy: { id: "asc" }, take: 200 });
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    for (const row of rows) {
      let wrappedKey: Uint8Array<ArrayBuffer>;
      try {
        wrappedKey = rewrapDataKey(oldKey, newKey, extensionKeyAad(row.id), row.wrappedKey);
      } catch {
        report.failed.push(row.id);
        continue;
      }
      const { count } = await prisma.extension.updateMany({ where: { id: row.id, masterKeyId: oldKey.id }, data: { wrappedKey, masterKeyId: newKey.id } });
      report.rewrapped += count;
    }
  }
  report.alreadyNew = (await prisma.extension.count({ where: { masterKeyId: newKey.id } })) - report.rewrapped;
  report.otherKey = await prisma.extension.count({ where: { masterKeyId: { notIn: [oldKey.id, newKey.id] } } });
  return report;
}
