import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { PrismaClient } from "../../src/generated/prisma/client.ts";
import { createLogger } from "../../src/logger.ts";
import { AuditJournal, openNodeJournal } from "../../src/services/audit/audit-journal.ts";
import { toRow, type AuditRecord } from "../../src/services/audit/audit-row.ts";
import { AuditWriter } from "../../src/services/audit/audit-writer.ts";
import { createWorkspace } from "../../src/services/workspaces/workspaces.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";
import { Metrics } from "../../src/metrics.ts";
import { setAsideCount } from "../support/metrics.ts";

/**
 * The audit journal (src/services/audit/audit-journal.ts) with a real database: entries the database has
 * not taken stay on disk and the next writer on the same folder stores them, once; stored segments
 * are deleted; nothing but the key's prefix is ever written. A real kill -9 is in e2e/audit-durability.
 */

const silent = createLogger("silent");
const segments = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
const journalText = (dir: string) =>
  segments(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
    .join("");

describeEachBackend("audit journal", (backend) => {
  let t: TestDatabase;
  let prisma: PrismaClient;
  const dirs: string[] = [];
  const newDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-journal-"));
    dirs.push(dir);
    return dir;
  };
  let counter = 0;
  const record = (workspaceId: string, overrides: Partial<AuditRecord> = {}): AuditRecord => ({
    workspaceId,
    keyPrefix: null,
    actorUserId: null,
    action: "session.get",
    target: null,
    httpStatus: 200,
    requestId: `req-${++counter}`,
    clientRequestId: null,
    ip: "203.0.113.9",
    ...overrides,
  });
  const newWorkspace = () => createWorkspace(t.db, { slug: `journal-${process.pid}-${++counter}`, name: "Journal" });
  const entriesOf = (workspaceId: string) => prisma.auditEntry.findMany({ where: { workspaceId }, orderBy: { id: "asc" } });

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    prisma = t.db.prisma;
  });
  afterAll(async () => {
    await prisma?.$executeRawUnsafe("ALTER TABLE IF EXISTS audit_entries_hidden RENAME TO audit_entries").catch(() => {});
    await t?.dispose();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test("entries are on disk from enqueue() on, and their segment is deleted once they are stored", async () => {
    const w = await newWorkspace();
    const dir = newDir();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, log: silent, journal: await AuditJournal.open(dir, silent) });
    for (let i = 0; i < 3; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
    // Synchronously written: no flush has run, yet every entry is in the journal.
    expect(
      journalText(dir)
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { target: string }).target),
    ).toEqual(["t0", "t1", "t2"]);
    await writer.flush();
    expect(segments(dir)).toEqual([]);
    writer.enqueue(record(w.id, { target: "t3" }));
    expect(segments(dir)).toHaveLength(1); // a new segment for what comes after the flush
    await writer.close();
    expect(segments(dir)).toEqual([]);
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["t0", "t1", "t2", "t3"]);
  });

  test("what the database did not take survives the writer, without any secret, and the next writer stores it once", async () => {
    const w = await newWorkspace();
    const dir = newDir();
    const secret = "S3cr3tS3cr3tS3cr3tS3cr3tS3cr3tXY";
    const prefix = `vs_${ulid()}`;
    await prisma.$executeRawUnsafe("ALTER TABLE audit_entries RENAME TO audit_entries_hidden");
    const first = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [10], log: silent, journal: await AuditJournal.open(dir, silent) });
    try {
      for (let i = 0; i < 5; i++) first.enqueue(record(w.id, { target: `t${i}`, keyPrefix: `${prefix}.${secret}`, clientRequestId: `c${i}` }));
      await first.close(); // the database refuses: the entries are logged and stay in the journal
    } finally {
      await prisma.$executeRawUnsafe("ALTER TABLE audit_entries_hidden RENAME TO audit_entries");
    }
    expect(await entriesOf(w.id)).toEqual([]);
    const text = journalText(dir);
    expect(text.trim().split("\n")).toHaveLength(5);
    expect(text).toContain(prefix);
    expect(text).not.toContain(secret);
    const ids = text
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { id: string }).id);

    const second = new AuditWriter(prisma, { log: silent, journal: await AuditJournal.open(dir, silent) });
    await second.close();
    const rows = await entriesOf(w.id);
    expect(rows.map((r) => [r.id, r.target, r.keyPrefix, r.clientRequestId])).toEqual(ids.map((id, i) => [id, `t${i}`, prefix, `c${i}`]));
    expect(segments(dir)).toEqual([]);
  });

  test("a segment holding stored entries and a line cut short is recovered without duplicates", async () => {
    const w = await newWorkspace();
    const dir = newDir();
    const stored = toRow(record(w.id, { target: "already stored" }));
    await prisma.auditEntry.create({ data: stored });
    const fresh = toRow(record(w.id, { target: "only in the journal" }));
    fs.writeFileSync(path.join(dir, "0000000007.jsonl"), `${JSON.stringify(stored)}\n${JSON.stringify(fresh)}\n{"id":"01J`);
    const records: Array<Record<string, unknown>> = [];
    const log = createLogger("debug", { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) });
    const writer = new AuditWriter(prisma, { log, journal: await AuditJournal.open(dir, log) });
    writer.enqueue(record(w.id, { target: "new" }));
    await writer.close();
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["already stored", "only in the journal", "new"]);
    expect(records.find((r) => String(r.msg).startsWith("audit journal: writing"))).toMatchObject({ entries: 2, unreadable: 1 });
    expect(segments(dir)).toEqual([]);
  });

  test("a replayed entry the database cannot store is set aside once (stored escaped), a corrupt line counted; the next start replays nothing", async () => {
    const w = await newWorkspace();
    const dir = newDir();
    // What a run before the fix left: an entry with a NUL in its target, one the database refuses
    // whatever its text (a status beyond the int column), a line that is not an entry, and good ones.
    const nul = toRow(record(w.id, { target: "x\u0000", requestId: "req-nul" }));
    const range = toRow(record(w.id, { target: "range", httpStatus: 2 ** 40, requestId: "req-range" }));
    const good = [toRow(record(w.id, { target: "good-1" })), toRow(record(w.id, { target: "good-2" }))];
    const lines = [good[0], nul, range].map((r) => JSON.stringify(r)).concat(["[1,2,3]", JSON.stringify(good[1])]);
    fs.writeFileSync(path.join(dir, "0000000003.jsonl"), `${lines.join("\n")}\n`);
    const records: Array<Record<string, unknown>> = [];
    const log = createLogger("debug", { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) });
    const metrics = new Metrics();
    const writer = new AuditWriter(prisma, { log, journal: await AuditJournal.open(dir, log), setAside: metrics.setAside, retryDelaysMs: [3_600_000] });
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(segments(dir)).toEqual([]);
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["x\\u0000", "good-1", "good-2"]); // by id: the order they were recorded in
    // The NUL entry, the refused one and the corrupt line.
    expect(await setAsideCount(metrics, "audit")).toBe(3);
    expect(records.filter((r) => r.setAside === "audit").map((r) => r.requestId)).toEqual(["req-nul", "req-range"]);
    await writer.close();

    const again: Array<Record<string, unknown>> = [];
    const quiet = createLogger("debug", { write: (line: string) => void again.push(JSON.parse(line) as Record<string, unknown>) });
    const next = new AuditWriter(prisma, { log: quiet, journal: await AuditJournal.open(dir, quiet), setAside: new Metrics().setAside });
    expect(next.pending).toBe(0);
    await next.close();
    expect(again).toEqual([]);
    expect(await prisma.auditEntry.count({ where: { workspaceId: w.id } })).toBe(3);
  });

  test("one journal, one process: a second opener is refused while the first holds it", async () => {
    const dataDir = newDir();
    const held = await openNodeJournal(dataDir, "node/a b", silent);
    expect(held!.dir).toBe(path.join(dataDir, "audit-journal", "node_a_b"));
    await expect(openNodeJournal(dataDir, "node/a b", silent)).rejects.toThrow(/in use by another process/);
    await held!.close();
    const again = await openNodeJournal(dataDir, "node/a b", silent);
    await again!.close();
  });
});
