/**
 * The audit writer's journal: every batched entry is appended to a file in the node's data folder
 * before the call's answer goes out, and the file is deleted once its entries are in the database.
 * A process that dies before a batch is written (kill -9, OOM kill, crash) leaves the file behind,
 * and the same node's next start writes those entries (insertBatchSql ignores ids already stored).
 *
 * Why a file and not a write per call: one append is a write(2) into the page cache (microseconds),
 * where an INSERT per call would cost a database round trip on every read (bench/auth). There is no
 * fsync: the page cache survives the death of the process, not of the machine (power, kernel); the
 * docs/api.md says what that leaves.
 *
 * Layout: `<data folder>/audit-journal/<node>/<seq>.jsonl`, one JSON row per line, guarded by the
 * same lock file as a PGlite folder (two processes on one journal would delete each other's
 * entries). The writer rotates the segment at the start of each flush, so a segment is deleted as
 * soon as the flush that took its entries has stored them.
 */
import fs from "node:fs";
import path from "node:path";
import { lockDataDir } from "../../db/client.ts";
import type { Logger } from "../../logger.ts";
import type { AuditRow } from "./audit-row.ts";

interface Segment {
  file: string;
  /** Entries appended and not yet settled (stored, or given up on and logged). */
  outstanding: number;
  /** No longer appended to: deleted once nothing in it is outstanding. */
  closed: boolean;
}

/** The journal folder of one node in a data folder (node ids may hold any character). */
export function journalDir(dataDir: string, nodeId: string): string {
  return path.join(dataDir, "audit-journal", nodeId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "_");
}

const segmentName = /^(\d{10})\.jsonl$/;

export class AuditJournal {
  readonly #dir: string;
  readonly #log: Logger;
  readonly #unlock: () => Promise<void>;
  readonly #segmentOf = new WeakMap<AuditRow, Segment>();
  #current: { segment: Segment; fd: number } | undefined;
  #nextSeq: number;
  #found: string[];
  #failing = false;
  #unreadable = 0;

  private constructor(dir: string, log: Logger, unlock: () => Promise<void>, found: string[], nextSeq: number) {
    this.#dir = dir;
    this.#log = log;
    this.#unlock = unlock;
    this.#found = found;
    this.#nextSeq = nextSeq;
  }

  /**
   * Opens (creating) a node's journal folder and takes its lock. Throws if another live process
   * holds it, or if the folder cannot be made: the caller decides whether to run without one.
   */
  static async open(dir: string, log: Logger): Promise<AuditJournal> {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unlock = await lockDataDir(dir);
    const found = fs
      .readdirSync(dir)
      .filter((f) => segmentName.test(f))
      .sort();
    const last = found.length > 0 ? Number(segmentName.exec(found.at(-1)!)![1]) : 0;
    return new AuditJournal(dir, log, unlock, found, last + 1);
  }

  get dir(): string {
    return this.#dir;
  }

  /** Lines recover() skipped because they could not be read (the writer counts them as set aside). */
  get unreadable(): number {
    return this.#unreadable;
  }

  /**
   * The entries a previous run of this node left unstored, oldest first, to be written again. Each
   * file is deleted once all its entries are settled. Lines that cannot be read (a line cut short
   * by the machine dying mid-write, or not an entry at all) are skipped, counted in the log and in
   * {@link unreadable}: never fatal. The writer screens what it gets like any new entry, so an entry the
   * database would refuse is set aside once and its segment deleted, not replayed at every start.
   */
  recover(): AuditRow[] {
    const rows: AuditRow[] = [];
    let unreadable = 0;
    for (const name of this.#found.splice(0)) {
      const file = path.join(this.#dir, name);
      const segment: Segment = { file, outstanding: 0, closed: true };
      let text = "";
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (err) {
        this.#log.error({ err, file }, "audit journal: a segment could not be read; its entries are not recovered");
        continue;
      }
      for (const line of text.split("\n")) {
        if (!line) continue;
        const row = parseRow(line);
        if (!row) {
          unreadable++;
          continue;
        }
        segment.outstanding++;
        this.#segmentOf.set(row, segment);
        rows.push(row);
      }
      if (segment.outstanding === 0) this.#delete(segment);
    }
    this.#unreadable += unreadable;
    if (rows.length > 0 || unreadable > 0) {
      this.#log.warn({ entries: rows.length, unreadable, dir: this.#dir }, "audit journal: writing the entries a previous run left unstored");
    }
    return rows;
  }

  /** Appends one entry; synchronous, so it is in the page cache before the caller goes on. Never throws. */
  append(row: AuditRow): void {
    try {
      const current = this.#open();
      if (!current) return;
      fs.writeSync(current.fd, `${JSON.stringify(row)}\n`);
      current.segment.outstanding++;
      this.#segmentOf.set(row, current.segment);
    } catch (err) {
      // The entry stays in memory only (the writer still stores it); retried with the next segment.
      this.#fail(err);
    }
  }

  /** Starts a new segment for the entries recorded from now on (the writer calls it when a flush starts). */
  rotate(): void {
    const current = this.#current;
    this.#current = undefined;
    this.#failing = false;
    if (!current) return;
    try {
      fs.closeSync(current.fd);
    } catch (err) {
      this.#log.warn({ err }, "audit journal: closing a segment failed");
    }
    current.segment.closed = true;
    if (current.segment.outstanding === 0) this.#delete(current.segment);
  }

  /** These entries are stored (or given up on and logged): segments left with nothing outstanding are deleted. */
  settled(rows: Iterable<AuditRow>): void {
    for (const row of rows) {
      const segment = this.#segmentOf.get(row);
      if (!segment) continue;
      this.#segmentOf.delete(row);
      segment.outstanding--;
      if (segment.closed && segment.outstanding === 0) this.#delete(segment);
    }
  }

  /** Closes the current segment and releases the lock; segments with unstored entries stay for the next start. */
  async close(): Promise<void> {
    this.rotate();
    await this.#unlock();
  }

  #open(): { segment: Segment; fd: number } | undefined {
    if (this.#current) return this.#current;
    if (this.#failing) return undefined;
    const file = path.join(this.#dir, `${String(this.#nextSeq++).padStart(10, "0")}.jsonl`);
    const fd = fs.openSync(file, "a", 0o600);
    this.#current = { segment: { file, outstanding: 0, closed: false }, fd };
    return this.#current;
  }

  #fail(err: unknown): void {
    if (!this.#failing) {
      this.#log.error({ err, dir: this.#dir }, "audit journal: cannot append; batched entries are in memory only until the next flush");
    }
    this.#failing = true;
    const current = this.#current;
    this.#current = undefined;
    if (current) {
      current.segment.closed = true;
      try {
        fs.closeSync(current.fd);
      } catch {
        // already reported
      }
      if (current.segment.outstanding === 0) this.#delete(current.segment);
    }
  }

  #delete(segment: Segment): void {
    try {
      fs.unlinkSync(segment.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.#log.warn({ err, file: segment.file }, "audit journal: a stored segment could not be deleted");
    }
  }
}

/** A journal line back into a row, or null if it is not one (cut short, or not ours). */
function parseRow(line: string): AuditRow | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const r = value as Record<string, unknown>;
  const createdAt = typeof r.createdAt === "string" ? new Date(r.createdAt) : undefined;
  if (typeof r.id !== "string" || typeof r.action !== "string" || typeof r.httpStatus !== "number" || !createdAt || Number.isNaN(createdAt.getTime())) {
    return null;
  }
  const text = (k: string) => (typeof r[k] === "string" ? (r[k] as string) : null);
  return {
    id: r.id,
    workspaceId: text("workspaceId"),
    keyPrefix: text("keyPrefix"),
    actorUserId: text("actorUserId"),
    action: r.action,
    target: text("target"),
    httpStatus: r.httpStatus,
    requestId: text("requestId"),
    clientRequestId: text("clientRequestId"),
    ip: text("ip"),
    createdAt,
  };
}

/**
 * The journal of a server process: `undefined` (entries in memory only, with an error in the log)
 * when the data folder cannot hold one, so a read-only disk does not stop the node. Another live
 * process on the same journal (the same node id and data folder twice) is refused: it throws.
 */
export async function openNodeJournal(dataDir: string, nodeId: string, log: Logger): Promise<AuditJournal | undefined> {
  const dir = journalDir(dataDir, nodeId);
  try {
    return await AuditJournal.open(dir, log);
  } catch (err) {
    if (err instanceof Error && /is in use by process/.test(err.message)) {
      throw new Error(`the audit journal ${dir} is in use by another process: is this node id (${nodeId}) running twice?`, { cause: err });
    }
    log.error({ err, dir }, "no audit journal: batched audit entries are kept in memory only, and a crash loses the unwritten ones");
    return undefined;
  }
}
