import { ulid } from "ulid";
import { afterAll, beforeAll, expect, test } from "vitest";
import { AppError } from "../../src/errors.ts";
import type { AuditEntry, PrismaClient } from "../../src/generated/prisma/client.ts";
import { createLogger } from "../../src/logger.ts";
import { AuditWriter, parseAuditQuery, queryAuditEntries, writeAuditInTx, type AuditRecord } from "../../src/services/audit/audit.ts";
import { AuditEntryDto, auditDto } from "../../src/rest/presenters/audit-entry.ts";
import { decodeCursor, encodeCursor, paginate } from "../../src/kernel/pagination.ts";
import { createWorkspace } from "../../src/services/workspaces/workspaces.ts";
import { createTestDatabase, describeEachBackend } from "../support/db.ts";
import type { TestDatabase } from "../support/db.ts";
import { appError, thrownAppError } from "../support/errors.ts";
import { Metrics } from "../../src/metrics.ts";
import { setAsideCount } from "../support/metrics.ts";

interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const WARN = 40;
const ERROR = 50;

/** A real pino logger whose records land in an array. */
function capturingLogger() {
  const records: LogRecord[] = [];
  const log = createLogger("debug", { write: (line: string) => void records.push(JSON.parse(line) as LogRecord) });
  return { log, records };
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const fieldsOf = (err: AppError) => (err.extensions.errors as { field: string }[]).map((e) => e.field);

let counter = 0;
const unique = (base: string) => `${base}-${process.pid}-${++counter}`;

function record(workspaceId: string | null, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    workspaceId,
    keyPrefix: null,
    actorUserId: null,
    action: "session.get",
    target: null,
    httpStatus: 200,
    requestId: `req-${++counter}`,
    ip: "203.0.113.7",
    ...overrides,
  };
}

describeEachBackend("audit trail", (backend) => {
  let t: TestDatabase;
  let prisma: PrismaClient;

  const newWorkspace = () => createWorkspace(t.db, { slug: unique("audit"), name: "Audit" });
  const newUser = () => prisma.user.create({ data: { id: ulid(), email: `${unique("u")}@example.com` } });
  const entriesOf = (workspaceId: string) => prisma.auditEntry.findMany({ where: { workspaceId }, orderBy: { id: "asc" } });
  const countOf = (workspaceId: string) => prisma.auditEntry.count({ where: { workspaceId } });
  /** Makes every insert into audit_entries fail (the table is not there) until the returned function runs. */
  const hideAuditTable = async () => {
    await prisma.$executeRawUnsafe("ALTER TABLE audit_entries RENAME TO audit_entries_hidden");
    return restoreAuditTable;
  };
  const restoreAuditTable = async () => {
    await prisma.$executeRawUnsafe("ALTER TABLE IF EXISTS audit_entries_hidden RENAME TO audit_entries");
  };

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    prisma = t.db.prisma;
  });
  afterAll(async () => {
    await t?.dispose();
  });

  // ── writeAuditInTx ────────────────────────────────────────────────────────────────────────────

  test("writeAuditInTx commits with the transaction's change, every field as given", async () => {
    const w = await newWorkspace();
    const user = await newUser();
    const at = new Date(Date.now() - 5000);
    const slug = unique("renamed");
    await prisma.$transaction(async (tx) => {
      await tx.workspace.update({ where: { id: w.id }, data: { slug } });
      await writeAuditInTx(tx, {
        workspaceId: w.id,
        keyPrefix: null,
        actorUserId: user.id,
        action: "workspace.update",
        target: w.id,
        httpStatus: 200,
        requestId: "req-tx-1",
        ip: "198.51.100.1",
        at,
      });
    });
    expect((await prisma.workspace.findUniqueOrThrow({ where: { id: w.id } })).slug).toBe(slug);
    const [entry, ...rest] = await entriesOf(w.id);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      workspaceId: w.id,
      keyPrefix: null,
      actorUserId: user.id,
      action: "workspace.update",
      target: w.id,
      httpStatus: 200,
      requestId: "req-tx-1",
      ip: "198.51.100.1",
      createdAt: at,
    });
    expect(entry!.id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  });

  test("writeAuditInTx disappears with a rollback, together with the change", async () => {
    const w = await newWorkspace();
    const slug = unique("never");
    const err = await prisma
      .$transaction(async (tx) => {
        await tx.workspace.update({ where: { id: w.id }, data: { slug } });
        await writeAuditInTx(tx, record(w.id, { action: "workspace.update", target: w.id }));
        expect(await tx.auditEntry.count({ where: { workspaceId: w.id } })).toBe(1); // really written inside
        throw new Error("boom");
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("boom");
    expect(await countOf(w.id)).toBe(0);
    expect((await prisma.workspace.findUniqueOrThrow({ where: { id: w.id } })).slug).not.toBe(slug);
  });

  test("a failing audit write rolls the change back (no change without its entry)", async () => {
    const w = await newWorkspace();
    const slug = unique("orphan");
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.workspace.update({ where: { id: w.id }, data: { slug } });
        await writeAuditInTx(tx, record(ulid(), { action: "workspace.update" })); // no such workspace
      }),
    ).rejects.toThrow();
    expect((await prisma.workspace.findUniqueOrThrow({ where: { id: w.id } })).slug).not.toBe(slug);
  });

  test("a whole API key given as keyPrefix is stored without its secret", async () => {
    const w = await newWorkspace();
    const prefix = `vs_${ulid()}`;
    const secret = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    await writeAuditInTx(prisma, record(w.id, { keyPrefix: `${prefix}.${secret}` }));
    const writer = new AuditWriter(prisma, { log: capturingLogger().log });
    writer.enqueue(record(w.id, { keyPrefix: `${prefix}.${secret}` }));
    await writer.close();
    const rows = await entriesOf(w.id);
    expect(rows.map((r) => r.keyPrefix)).toEqual([prefix, prefix]);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  // ── AuditWriter ───────────────────────────────────────────────────────────────────────────────

  test("AuditWriter: 1 000 enqueued entries are all stored after close(), in call order by id", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { log });
    const started = performance.now();
    for (let i = 0; i < 1000; i++) writer.enqueue(record(w.id, { action: "session.get", target: `t${i}` }));
    const enqueued = performance.now();
    expect(writer.pending).toBe(1000);
    await writer.close();
    const closed = performance.now();
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(0);
    const rows = await entriesOf(w.id);
    expect(rows).toHaveLength(1000);
    expect(rows.map((r) => r.target)).toEqual(Array.from({ length: 1000 }, (_, i) => `t${i}`));
    expect(new Set(rows.map((r) => r.id)).size).toBe(1000);
    expect(records.filter((r) => r.level >= WARN)).toEqual([]);
    console.info(
      `[${backend}] 1 000 audit entries: enqueue ${(enqueued - started).toFixed(1)} ms, close (2 batches of 500) ${(closed - enqueued).toFixed(0)} ms`,
    );
  });

  test("AuditWriter flushes on its own: after flushIntervalMs, and at once when maxBatch entries wait", async () => {
    const w = await newWorkspace();
    const timed = new AuditWriter(prisma, { flushIntervalMs: 50, log: capturingLogger().log });
    for (let i = 0; i < 3; i++) timed.enqueue(record(w.id));
    await waitFor(async () => (await countOf(w.id)) === 3, "the interval flush");
    expect(timed.pending).toBe(0);
    await timed.close();

    const w2 = await newWorkspace();
    const batched = new AuditWriter(prisma, { flushIntervalMs: 600_000, maxBatch: 10, log: capturingLogger().log });
    for (let i = 0; i < 10; i++) batched.enqueue(record(w2.id));
    // Its flush done (an entry queued while it runs would go with it): stored, nothing in flight.
    await waitFor(async () => batched.pending === 0 && (await countOf(w2.id)) === 10, "the max-batch flush");
    batched.enqueue(record(w2.id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await countOf(w2.id)).toBe(10); // one entry is below maxBatch and the interval is long
    expect(batched.pending).toBe(1);
    await batched.close();
    expect(await countOf(w2.id)).toBe(11);
  });

  test("AuditWriter: a flush that fails while the table is unavailable is retried, and the entries land", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [500, 500, 500], log });
    const restore = await hideAuditTable();
    try {
      for (let i = 0; i < 5; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
      const flushing = writer.flush();
      await waitFor(() => records.some((r) => r.msg === "audit flush failed; retrying"), "the first failure");
      await restore();
      await flushing;
    } finally {
      await restore();
    }
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(writer.pending).toBe(0);
    const failure = records.find((r) => r.msg === "audit flush failed; retrying")!;
    expect(failure).toMatchObject({ level: WARN, attempt: 1, entries: 5 });
    expect(records.some((r) => r.msg === "audit flush succeeded after retrying")).toBe(true);
    await writer.close();
  });

  test("AuditWriter: a batch refused for a workspace that does not exist yet lands once it does", async () => {
    const workspaceId = ulid();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [500, 500], log });
    writer.enqueue(record(workspaceId, { target: "early" }));
    const flushing = writer.flush();
    await waitFor(() => records.some((r) => r.msg === "audit flush failed; retrying"), "the first failure");
    // The log names the cause: the workspace foreign key (SQLSTATE 23503), whichever way Prisma words it.
    expect((records.find((r) => r.msg === "audit flush failed; retrying")!.err as { message?: string }).message).toMatch(/foreign key|23503/);
    await prisma.workspace.create({ data: { id: workspaceId, slug: unique("late"), name: "Late" } });
    await flushing;
    expect((await entriesOf(workspaceId)).map((r) => r.target)).toEqual(["early"]);
    expect(writer.dropped).toBe(0);
    await writer.close();
  });

  test("AuditWriter: when retries are spent the entries stay queued (flush does not throw) and are stored later", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [10, 10], log });
    const restore = await hideAuditTable();
    try {
      for (let i = 0; i < 7; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
      await writer.flush(); // resolves: a database outage is never thrown at request handling
      expect(writer.pending).toBe(7);
      expect(records.filter((r) => r.msg === "audit flush failed; retrying")).toHaveLength(2);
      expect(records.find((r) => r.msg.startsWith("audit entries could not be stored"))).toMatchObject({ level: ERROR, pending: 7 });
      writer.enqueue(record(w.id, { target: "t7" }));
    } finally {
      await restore();
    }
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(0);
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]);
    await writer.close();
  });

  test("AuditWriter: during an outage, full batches wait for the back-off instead of retrying on every call", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 60_000, maxBatch: 2, retryDelaysMs: [10], log });
    const restore = await hideAuditTable();
    try {
      writer.enqueue(record(w.id, { target: "t0" }));
      writer.enqueue(record(w.id, { target: "t1" })); // a full batch: flushes at once, and fails
      await waitFor(() => records.some((r) => r.msg.startsWith("audit entries could not be stored")), "the spent retries");
      for (let i = 2; i < 40; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(records.filter((r) => r.msg === "audit flush failed; retrying")).toHaveLength(1);
      expect(writer.pending).toBe(40);
    } finally {
      await restore();
    }
    await writer.close();
    expect(await countOf(w.id)).toBe(40);
    expect(writer.dropped).toBe(0);
  });

  test("AuditWriter: one bad entry does not hold back its batch; a deleted actor is kept as null", async () => {
    const w = await newWorkspace();
    const gone = await newUser();
    await prisma.user.delete({ where: { id: gone.id } });
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [10], log });
    const orphanWorkspace = ulid();
    writer.enqueue(record(w.id, { target: "before" }));
    writer.enqueue(record(orphanWorkspace, { target: "orphan" }));
    writer.enqueue(record(w.id, { target: "actor-gone", actorUserId: gone.id }));
    writer.enqueue(record(w.id, { target: "after" }));
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(1);
    const rows = await entriesOf(w.id);
    expect(rows.map((r) => [r.target, r.actorUserId])).toEqual([
      ["before", null],
      ["actor-gone", null],
      ["after", null],
    ]);
    expect(await countOf(orphanWorkspace)).toBe(0);
    const rejected = records.find((r) => r.msg.startsWith("audit entry rejected by the database"))!;
    expect(rejected.level).toBe(ERROR);
    expect(rejected.auditEntry).toMatchObject({ workspaceId: orphanWorkspace, target: "orphan" }); // logged in full, not silently lost
    await writer.close();
  });

  test("AuditWriter: an entry holding NUL or lone surrogates is set aside (counted, logged once) and stored escaped; the others are not held back", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const metrics = new Metrics();
    // A retry an hour away: were the bad entry retried, this flush would not end.
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [3_600_000], log, setAside: metrics.setAside });
    writer.enqueue(record(w.id, { target: "before" }));
    writer.enqueue(record(w.id, { target: "x\u0000", requestId: "req-nul" }));
    writer.enqueue(record(w.id, { target: "lone \uD800 high, \uDC00 low, pair \uD83D\uDE00", requestId: "req-surrogates" }));
    writer.enqueue(record(w.id, { target: "after" }));
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(0);
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["before", "x\\u0000", "lone \\uD800 high, \\uDC00 low, pair \uD83D\uDE00", "after"]);
    expect(await setAsideCount(metrics, "audit")).toBe(2);
    const lines = records.filter((r) => r.setAside === "audit");
    expect(lines.map((r) => [r.level, r.requestId, r.escaped])).toEqual([
      [WARN, "req-nul", ["target"]],
      [WARN, "req-surrogates", ["target"]],
    ]);
    expect(records.filter((r) => r.msg === "audit flush failed; retrying")).toEqual([]);
    // No raw NUL reaches the log either.
    expect(JSON.stringify(records)).not.toMatch(/(?<!\\)\\u0000/);
    await writer.close();
  });

  test("AuditWriter: an entry the database refuses as a data exception goes entry by entry at once: set aside, counted, the rest stored", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const metrics = new Metrics();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, retryDelaysMs: [3_600_000], log, setAside: metrics.setAside });
    writer.enqueue(record(w.id, { target: "before" }));
    // Beyond the int column: SQLSTATE 22003 for the batch, refused alone too (no text to escape).
    writer.enqueue(record(w.id, { target: "out of range", httpStatus: 2 ** 40, requestId: "req-range" }));
    writer.enqueue(record(w.id, { target: "after" }));
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(1);
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(["before", "after"]);
    expect(await setAsideCount(metrics, "audit")).toBe(1);
    expect(records.filter((r) => r.msg === "audit flush failed; retrying")).toEqual([]);
    const line = records.filter((r) => r.setAside === "audit");
    expect(line).toHaveLength(1);
    expect(line[0]).toMatchObject({ level: ERROR, requestId: "req-range", auditEntry: { target: "out of range" } });
    await writer.close();
  });

  test("AuditWriter: close() with the database refusing logs every unstored entry; later enqueues are logged, not stored", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, maxBatch: 3, retryDelaysMs: [10], log });
    const restore = await hideAuditTable();
    try {
      for (let i = 0; i < 2; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
      await writer.close();
    } finally {
      await restore();
    }
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(2);
    const dumped = records.filter((r) => r.msg === "unstored audit entries").flatMap((r) => r.auditEntries as { target: string }[]);
    expect(dumped.map((e) => e.target)).toEqual(["t0", "t1"]);
    writer.enqueue(record(w.id, { target: "late" }));
    expect(records.at(-1)).toMatchObject({ level: ERROR, auditEntry: { target: "late" } });
    expect(writer.pending).toBe(0);
    expect(await countOf(w.id)).toBe(0);
  });

  test("AuditWriter: past maxQueued new entries are refused with a loud log; the queued ones still land", async () => {
    const w = await newWorkspace();
    const { log, records } = capturingLogger();
    const writer = new AuditWriter(prisma, { flushIntervalMs: 600_000, maxBatch: 100, maxQueued: 10, log });
    for (let i = 0; i < 15; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
    expect(writer.pending).toBe(10);
    expect(writer.dropped).toBe(5);
    const loud = records.filter((r) => r.msg.startsWith("AUDIT ENTRIES DROPPED"));
    expect(loud).toHaveLength(1); // rate-limited: not one line per refused entry
    expect(loud[0]).toMatchObject({ level: ERROR, maxQueued: 10 });
    await writer.close();
    expect((await entriesOf(w.id)).map((r) => r.target)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`));
  });

  // ── Query ─────────────────────────────────────────────────────────────────────────────────────

  test("pages of 20 over 45 entries: 20/20/5, newest first, no repeats or gaps even with inserts between pages", async () => {
    const w = await newWorkspace();
    const writer = new AuditWriter(prisma, { log: capturingLogger().log });
    for (let i = 0; i < 45; i++) writer.enqueue(record(w.id, { target: `t${i}` }));
    await writer.close();
    const expected = (await entriesOf(w.id)).map((r) => r.id).reverse();
    expect(expected).toHaveLength(45);

    const pages: { ids: string[]; hasMore: boolean }[] = [];
    let cursor: string | undefined;
    do {
      const page = await queryAuditEntries(prisma, w.id, parseAuditQuery({ limit: "20", cursor }));
      pages.push({ ids: page.items.map((e) => e.id), hasMore: page.hasMore });
      expect(page.nextCursor === null).toBe(!page.hasMore);
      cursor = page.nextCursor ?? undefined;
      // New calls arrive between page fetches.
      for (let i = 0; i < 2; i++) await writeAuditInTx(prisma, record(w.id, { target: "newcomer" }));
    } while (cursor);

    expect(pages.map((p) => p.ids.length)).toEqual([20, 20, 5]);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.ids)).toEqual(expected);
    const fresh = await queryAuditEntries(prisma, w.id, parseAuditQuery({ limit: 100 }));
    expect(fresh.items).toHaveLength(51);
    expect(fresh.items.slice(0, 6).map((e) => e.target)).toEqual(Array(6).fill("newcomer"));
  });

  test("the same pagination oldest first (as sessions will use it): new rows appear on the last page", async () => {
    const w = await newWorkspace();
    for (let i = 0; i < 25; i++) await writeAuditInTx(prisma, record(w.id, { target: `t${i}` }));
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    let inserted = false;
    do {
      const page = await paginate({ limit: 10, cursor }, "asc", (win) =>
        prisma.auditEntry.findMany({ where: { workspaceId: w.id, id: win.idAfter }, orderBy: win.orderBy, take: win.take }),
      );
      seen.push(...page.items.map((e) => e.target!));
      sizes.push(page.items.length);
      cursor = page.nextCursor ?? undefined;
      if (!inserted) {
        await writeAuditInTx(prisma, record(w.id, { target: "late" }));
        inserted = true;
      }
    } while (cursor);
    expect(sizes).toEqual([10, 10, 6]);
    expect(seen).toEqual([...Array.from({ length: 25 }, (_, i) => `t${i}`), "late"]);
  });

  test("filters narrow to exactly the matching entries and intersect when combined", async () => {
    const w = await newWorkspace();
    const other = await newWorkspace();
    const [u1, u2] = [await newUser(), await newUser()];
    const [kA, kB] = [`vs_${ulid()}`, `vs_${ulid()}`];
    const base = Date.now() - 2 * 3600_000;
    const written: (AuditRecord & { at: Date })[] = [];
    for (let i = 0; i < 24; i++) {
      const keyPrefix = i % 3 === 0 ? kA : i % 3 === 1 ? kB : null;
      const r = {
        ...record(w.id),
        keyPrefix,
        actorUserId: keyPrefix ? null : i % 2 ? u1.id : u2.id,
        action: i % 4 < 2 ? "session.create" : "session.release",
        target: `t${i}`,
        at: new Date(base + i * 60_000),
      };
      written.push(r);
      await writeAuditInTx(prisma, r);
    }
    // Look-alikes elsewhere: another workspace and organization-level entries must never show.
    for (const r of written.slice(0, 6)) {
      await writeAuditInTx(prisma, { ...r, workspaceId: other.id, target: "elsewhere" });
      await writeAuditInTx(prisma, { ...r, workspaceId: null, target: "org-level" });
    }

    const targets = async (q: Record<string, unknown>) =>
      (await queryAuditEntries(prisma, w.id, parseAuditQuery({ limit: 100, ...q }))).items.map((e) => e.target);
    const expectTargets = (pred: (r: (typeof written)[number]) => boolean) =>
      written
        .filter(pred)
        .map((r) => r.target)
        .reverse(); // newest first
    const iso = (i: number) => new Date(base + i * 60_000).toISOString();

    expect(await targets({})).toEqual(expectTargets(() => true));
    expect(await targets({ key_prefix: kA })).toEqual(expectTargets((r) => r.keyPrefix === kA));
    expect(await targets({ key_prefix: kA })).toHaveLength(8);
    expect(await targets({ action: "session.release" })).toEqual(expectTargets((r) => r.action === "session.release"));
    expect(await targets({ actor_user_id: u1.id })).toEqual(expectTargets((r) => r.actorUserId === u1.id));
    expect(await targets({ actor_user_id: u1.id })).not.toHaveLength(0);
    // since is inclusive, until exclusive: entries 5 … 9.
    expect(await targets({ since: iso(5), until: iso(10) })).toEqual(["t9", "t8", "t7", "t6", "t5"]);
    expect(await targets({ since: iso(20) })).toEqual(["t23", "t22", "t21", "t20"]);
    expect(await targets({ until: iso(2) })).toEqual(["t1", "t0"]);
    // A time zone offset means the same instant.
    const plusTwo = new Date(base + 20 * 60_000 + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    expect(await targets({ since: plusTwo })).toEqual(["t23", "t22", "t21", "t20"]);

    const combined = (r: (typeof written)[number]) => r.keyPrefix === kB && r.action === "session.create" && r.at >= new Date(base + 4 * 60_000);
    expect(await targets({ key_prefix: kB, action: "session.create", since: iso(4) })).toEqual(expectTargets(combined));
    expect(await targets({ key_prefix: kB, action: "session.create", since: iso(4) })).toEqual(["t16", "t13", "t4"]);
    expect(await targets({ actor_user_id: u2.id, action: "session.release", until: iso(12) })).toEqual(
      expectTargets((r) => r.actorUserId === u2.id && r.action === "session.release" && r.at < new Date(base + 12 * 60_000)),
    );
    expect(await targets({ key_prefix: kA, actor_user_id: u1.id })).toEqual([]); // key calls have no actor
    expect(await targets({ key_prefix: `vs_${ulid()}` })).toEqual([]);

    // Filters and cursors together: pages of 2 over the filtered set.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await queryAuditEntries(prisma, w.id, parseAuditQuery({ limit: 2, cursor, key_prefix: kA, since: iso(3) }));
      seen.push(...page.items.map((e) => e.target!));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expectTargets((r) => r.keyPrefix === kA && r.at >= new Date(base + 3 * 60_000)));

    // The other workspace sees only its own.
    const otherTargets = (await queryAuditEntries(prisma, other.id, parseAuditQuery({ limit: 100 }))).items.map((e) => e.target);
    expect(otherTargets).toEqual(Array(6).fill("elsewhere"));
  });

  test("entries of another workspace never appear, even through a cursor taken from it", async () => {
    const mine = await newWorkspace();
    const theirs = await newWorkspace();
    for (let i = 0; i < 3; i++) await writeAuditInTx(prisma, record(theirs.id, { target: "theirs" }));
    for (let i = 0; i < 3; i++) await writeAuditInTx(prisma, record(mine.id, { target: "mine" }));
    for (let i = 0; i < 3; i++) await writeAuditInTx(prisma, record(theirs.id, { target: "theirs" }));
    const theirPage = await queryAuditEntries(prisma, theirs.id, parseAuditQuery({ limit: 1 }));
    const all = await queryAuditEntries(prisma, mine.id, parseAuditQuery({ limit: 100 }));
    expect(all.items.map((e) => e.target)).toEqual(["mine", "mine", "mine"]);
    const viaTheirCursor = await queryAuditEntries(prisma, mine.id, parseAuditQuery({ limit: 100, cursor: theirPage.nextCursor }));
    expect(viaTheirCursor.items.map((e) => e.target)).toEqual(["mine", "mine", "mine"]);
    expect((await queryAuditEntries(prisma, ulid(), parseAuditQuery({}))).items).toEqual([]);
  });

  test.each([
    [{ limit: "0" }, "query.limit"],
    [{ limit: "101" }, "query.limit"],
    [{ limit: "x" }, "query.limit"],
    [{ cursor: "not-a-cursor!" }, "query.cursor"],
    [{ cursor: Buffer.from('{"v":1,"after":"x"}').toString("base64url") }, "query.cursor"],
    [{ key_prefix: "vs_123" }, "query.key_prefix"],
    [{ key_prefix: `vs_${"0".repeat(26)}.AbCdEfGhIjKlMnOpQrStUvWxYz012345` }, "query.key_prefix"],
    [{ actor_user_id: "robert'); DROP TABLE users;--" }, "query.actor_user_id"],
    [{ action: "" }, "query.action"],
    [{ since: "yesterday" }, "query.since"],
    [{ until: "2026-13-01T00:00:00Z" }, "query.until"],
  ])("bad query %j → validation-failed naming %s", async (query, field) => {
    const parseErr = thrownAppError(() => parseAuditQuery(query));
    expect(parseErr.slug).toBe("validation-failed");
    expect(fieldsOf(parseErr)).toEqual([field]);
    // The service re-validates what it is handed, so a hand-built query cannot bypass the checks.
    const serviceErr = await appError(queryAuditEntries(prisma, ulid(), { limit: 20, ...query } as never));
    expect(fieldsOf(serviceErr)).toEqual([field]);
  });

  test("until before since → validation-failed on query.until", async () => {
    const err = await appError(queryAuditEntries(prisma, ulid(), parseAuditQuery({ since: "2026-02-01T00:00:00Z", until: "2026-01-01T00:00:00Z" })));
    expect(err.slug).toBe("validation-failed");
    expect(fieldsOf(err)).toEqual(["query.until"]);
  });

  test("a cursor for an id that no longer exists (or never did) still continues by position", async () => {
    const w = await newWorkspace();
    for (let i = 0; i < 4; i++) await writeAuditInTx(prisma, record(w.id, { target: `t${i}` }));
    const rows = await entriesOf(w.id);
    const page = await queryAuditEntries(prisma, w.id, parseAuditQuery({ limit: 2 }));
    expect(decodeCursor(page.nextCursor!)).toBe(rows[2]!.id);
    await prisma.auditEntry.delete({ where: { id: rows[2]!.id } });
    const next = await queryAuditEntries(prisma, w.id, parseAuditQuery({ limit: 2, cursor: page.nextCursor }));
    expect(next.items.map((e) => e.target)).toEqual(["t1", "t0"]);
    // Ids that never existed: beyond the newest, and before the oldest.
    const fromTheTop = await queryAuditEntries(prisma, w.id, parseAuditQuery({ cursor: encodeCursor("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") }));
    expect(fromTheTop.items.map((e) => e.target)).toEqual(["t3", "t1", "t0"]);
    const pastTheEnd = await queryAuditEntries(prisma, w.id, parseAuditQuery({ cursor: encodeCursor("00000000000000000000000000") }));
    expect(pastTheEnd).toEqual({ items: [], hasMore: false, nextCursor: null });
  });

  test("auditDto: the documented fields, ISO time, nothing else", async () => {
    const w = await newWorkspace();
    const prefix = `vs_${ulid()}`;
    await writeAuditInTx(
      prisma,
      record(w.id, { keyPrefix: prefix, action: "session.release", target: "ses_X", httpStatus: 204, requestId: "r-1", clientRequestId: "client-1" }),
    );
    const [entry] = (await queryAuditEntries(prisma, w.id, parseAuditQuery({}))).items as [AuditEntry];
    const dto = auditDto(entry);
    expect(dto).toEqual({
      id: entry.id,
      key_prefix: prefix,
      actor_user_id: null,
      action: "session.release",
      target: "ses_X",
      http_status: 204,
      request_id: "r-1",
      client_request_id: "client-1",
      ip: "203.0.113.7",
      created_at: entry.createdAt.toISOString(),
    });
    expect(AuditEntryDto.strict().parse(dto)).toEqual(dto);
    expect(Object.keys(dto)).not.toContain("workspace_id");
  });
});
