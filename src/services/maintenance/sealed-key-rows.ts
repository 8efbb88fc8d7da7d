import type { MasterKey } from "../../crypto/master-key.ts";

/** What rotating one table's rows under a master key did. */
export interface SealedRowsRotation {
  rewrapped: number;
  alreadyNew: number;
  otherKey: number;
  /** Row ids the old master key could not open (left as they are). */
  failed: string[];
}

/**
 * One table whose rows each hold a value sealed under a master key and name that key, seen the
 * way master-key rotation needs it. Each domain describes its own table; the walk is here once.
 */
export interface SealedKeyRows {
  /** Up to `take` rows still under `masterKeyId` with ids after `after`, in id order. */
  page(masterKeyId: string, after: string, take: number): Promise<{ id: string; sealed: Uint8Array }[]>;
  /** The row's value sealed under `next`; throws when `current` does not open it. */
  reseal(current: MasterKey, next: MasterKey, id: string, sealed: Uint8Array): Uint8Array<ArrayBuffer>;
  /** Writes the new value only if the row still names `fromKeyId` (a compare-and-set); how many rows changed. */
  swap(id: string, sealed: Uint8Array<ArrayBuffer>, fromKeyId: string, toKeyId: string): Promise<number>;
  countUnder(masterKeyId: string): Promise<number>;
  countOutside(masterKeyIds: string[]): Promise<number>;
}

const BATCH = 200;

/**
 * Re-seals every row of `rows` under `oldKey` with `newKey`, in id order. Each row is swapped only if
 * it still names the old key, so a run can be interrupted and repeated; rows under a third key are
 * counted and never touched.
 */
export async function rotateSealedRows(rows: SealedKeyRows, oldKey: MasterKey, newKey: MasterKey): Promise<SealedRowsRotation> {
  const report: SealedRowsRotation = { rewrapped: 0, alreadyNew: 0, otherKey: 0, failed: [] };
  for (let after = ""; ; ) {
    const page = await rows.page(oldKey.id, after, BATCH);
    if (page.length === 0) break;
    after = page.at(-1)!.id;
    for (const row of page) {
      let sealed: Uint8Array<ArrayBuffer>;
      try {
        sealed = rows.reseal(oldKey, newKey, row.id, row.sealed);
      } catch {
        report.failed.push(row.id);
        continue;
      }
      report.rewrapped += await rows.swap(row.id, sealed, oldKey.id, newKey.id);
    }
  }
  report.alreadyNew = (await rows.countUnder(newKey.id)) - report.rewrapped;
  report.otherKey = await rows.countOutside([oldKey.id, newKey.id]);
  return report;
}
