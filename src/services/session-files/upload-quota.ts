import fs from "node:fs";
import type { BrowserLease } from "../../browser/pool/types.ts";
import { AppError } from "../../errors.ts";

/**
 * What a session's uploads may take, reserved before their bytes are written (never checked, then
 * written: parallel uploads all saw the same room and together stored several times the limit).
 *
 * Where the count lives: a session's files are written into its browser's folder on the node that
 * runs it, and only there (REST uploads that reach another node are relayed to it, src/app.ts;
 * GraphQL's are refused elsewhere). So that node's memory is the one place every upload of the
 * session passes, and the ledger can be taken and given back synchronously, in one turn of the
 * event loop, with no database round trip and nothing to clean up: it is keyed by the session's
 * browser lease, born empty with its folder and gone with it (docs/decisions/0121-upload-quota-on-the-owning-node.md).
 */
interface Ledger {
  /** Bytes stored plus bytes reserved by uploads in progress. */
  bytes: number;
  /** Files stored plus uploads in progress. */
  files: number;
}

const ledgers = new WeakMap<BrowserLease, Ledger>();

export interface UploadLimits {
  maxBytes: number;
  maxFiles: number;
}

/** One upload's share of its session's ledger: a file slot from the start, bytes as they are reserved. */
export class UploadReservation {
  #bytes = 0;
  #open = true;

  private constructor(
    private readonly ledger: Ledger,
    private readonly limits: UploadLimits,
  ) {}

  /** Takes a file slot of the session's, or refuses (413 too-many-files) when all are taken. */
  static open(lease: BrowserLease, limits: UploadLimits): UploadReservation {
    let ledger = ledgers.get(lease);
    if (!ledger) ledgers.set(lease, (ledger = { bytes: 0, files: 0 }));
    if (ledger.files >= limits.maxFiles) {
      throw new AppError(
        "too-many-files",
        `A session holds at most ${limits.maxFiles} uploaded files (VESSEL_UPLOAD_MAX_FILES), counting uploads in progress.`,
      );
    }
    ledger.files += 1;
    return new UploadReservation(ledger, limits);
  }

  /** What the session may still reserve: its limit less every stored and reserved byte. */
  get room(): number {
    return Math.max(0, this.limits.maxBytes - this.ledger.bytes);
  }

  get reserved(): number {
    return this.#bytes;
  }

  /** Reserves `n` more bytes, all or none; false when the session's limit would be passed. */
  take(n: number): boolean {
    if (!this.#open || n > this.limits.maxBytes - this.ledger.bytes) return false;
    this.ledger.bytes += n;
    this.#bytes += n;
    return true;
  }

  /** The upload is stored with `size` bytes: what was reserved beyond them goes back. */
  settle(size: number): void {
    if (!this.#open) return;
    this.#open = false;
    this.ledger.bytes -= this.#bytes - size;
    this.#bytes = size;
  }

  /** The upload failed: its file slot and bytes go back. Idempotent; nothing after settle(). */
  release(): void {
    if (!this.#open) return;
    this.#open = false;
    this.ledger.bytes -= this.#bytes;
    this.ledger.files -= 1;
    this.#bytes = 0;
  }
}

/**
 * Bytes uploads in progress may still write, per volume (st_dev): free space read with statfs does
 * not show them yet. Per process, not per app: two nodes in one process (tests) share the disk.
 */
const pendingByVolume = new Map<number, number>();

/**
 * Reserves `bytes` of the volume holding `dir` for an upload, refusing (507 insufficient-storage)
 * when what is free, less every upload in progress on it and this one, would fall below `minFree`.
 * The statfs is the only await; the comparison and the reservation happen together after it, so
 * parallel uploads each see the others' reservations. Returns the function that gives it back.
 */
export async function reserveVolume(dir: string, bytes: number, minFree: number): Promise<() => void> {
  if (minFree === 0) return () => {};
  const [{ dev }, stats] = await Promise.all([fs.promises.lstat(dir), fs.promises.statfs(dir)]);
  const free = stats.bavail * stats.bsize;
  const pending = pendingByVolume.get(dev) ?? 0;
  if (free - pending - bytes < minFree) {
    throw new AppError(
      "insufficient-storage",
      `The node's volume for uploads would keep less than ${minFree} bytes free (VESSEL_UPLOAD_MIN_FREE_BYTES): nothing was stored. Retry later.`,
    );
  }
  pendingByVolume.set(dev, pending + bytes);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    const left = (pendingByVolume.get(dev) ?? bytes) - bytes;
    if (left > 0) pendingByVolume.set(dev, left);
    else pendingByVolume.delete(dev);
  };
}
