import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { ulid } from "ulid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { journalDir } from "../../src/services/audit/audit-journal.ts";
import { createLogger } from "../../src/logger.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";
import { scraped } from "../support/metrics.ts";
import { spawnNode, type NodeProcess } from "../support/processes.ts";
import { eventually } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, servicesRequired } from "../support/services.ts";

/**
 * What the README promises about batched audit entries and kill -9, with real node processes
 * (`node --import tsx src/main.ts`) on PostgreSQL: every call that got its answer has its entry, once
 * the same node (same data folder, same node id) has started again.
 */

const hasChromium = chromiumPath() !== undefined;
const hasPostgres = await postgresReachable();
if (servicesRequired && (!hasChromium || !hasPostgres)) throw new Error("Chromium and PostgreSQL are required (VESSEL_REQUIRE_SERVICES=1)");

describe.skipIf(!hasChromium || !hasPostgres)("audit entries across kill -9 of a real node", () => {
  let tdb: TestDatabase;
  let ws: Seeded;
  const masterKey = randomBytes(32).toString("base64");
  const nodes: NodeProcess[] = [];
  const dataDirs: string[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const seeder = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: masterKey } });
    ws = await seedWorkspace(seeder);
    await seeder.stop();
  });
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop(5_000);
    await tdb.db.prisma.$executeRawUnsafe("ALTER TABLE IF EXISTS audit_entries_hidden RENAME TO audit_entries");
  });
  afterAll(async () => {
    await tdb?.dispose();
    for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A node on a given data folder and node id (a restart reuses both). */
  async function node(dataDir: string, nodeId: string): Promise<NodeProcess> {
    const n = await spawnNode({
      DATABASE_URL: tdb.url!,
      VESSEL_MASTER_KEY: masterKey,
      VESSEL_DATA_DIR: dataDir,
      VESSEL_NODE_ID: nodeId,
      VESSEL_BROWSER_CAPACITY: "1",
    });
    nodes.push(n);
    return n;
  }

  /** 50 authenticated reads, one after another; answers their server request ids. */
  async function fiftyReads(n: NodeProcess): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${n.url}/v1/health`, { headers: { ...bearer(ws.key), "x-request-id": `durability-${i}` } });
      expect(res.status).toBe(200);
      ids.push(res.headers.get("x-request-id")!);
    }
    return ids;
  }

  async function killHard(n: NodeProcess): Promise<void> {
    n.signal("SIGKILL");
    expect((await n.exited).signal).toBe("SIGKILL");
  }

  const rowsFor = (ids: string[]) => tdb.db.prisma.auditEntry.findMany({ where: { requestId: { in: ids } }, orderBy: { id: "asc" } });

  /** After the restart: exactly one health.get entry per answered read, with its client id, and the journal emptied. */
  async function expectAllFifty(ids: string[], dataDir: string, nodeId: string): Promise<void> {
    const rows = await eventually(
      () => rowsFor(ids),
      (r) => r.length >= ids.length,
      30_000,
    );
    expect(rows.map((r) => [r.requestId, r.action, r.httpStatus, r.keyPrefix, r.clientRequestId])).toEqual(
      ids.map((id, i) => [id, "health.get", 200, ws.prefix, `durability-${i}`]),
    );
    const dir = journalDir(dataDir, nodeId);
    await eventually(
      async () => fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")),
      (left) => left.length === 0,
      10_000,
    );
  }

  it("kill -9 right after 50 authenticated reads: the node's next start writes every entry the database did not have", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-durable-"));
    dataDirs.push(dataDir);
    const nodeId = `durable-${ulid()}`;
    const first = await node(dataDir, nodeId);
    const ids = await fiftyReads(first);
    await killHard(first);
    // Whatever the dead node left on disk names the key by its prefix only (security.md A8).
    const secret = ws.key.split(".")[1]!;
    const dir = journalDir(dataDir, nodeId);
    for (const f of fs.readdirSync(dir)) expect(fs.readFileSync(path.join(dir, f), "utf8")).not.toContain(secret);

    await node(dataDir, nodeId);
    await expectAllFifty(ids, dataDir, nodeId);
  }, 180_000);

  it("the same when the database took none of the 50 before the kill: they wait on disk for the restart", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-durable-"));
    dataDirs.push(dataDir);
    const nodeId = `durable-${ulid()}`;
    const first = await node(dataDir, nodeId);
    // The table is away: every batch the node tries fails, so the entries exist only in its memory and journal.
    await tdb.db.prisma.$executeRawUnsafe("ALTER TABLE audit_entries RENAME TO audit_entries_hidden");
    const ids = await fiftyReads(first);
    await killHard(first);
    await tdb.db.prisma.$executeRawUnsafe("ALTER TABLE audit_entries_hidden RENAME TO audit_entries");
    expect(await rowsFor(ids)).toEqual([]);
    const dir = journalDir(dataDir, nodeId);
    const lines = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()
      .flatMap((f) => fs.readFileSync(path.join(dir, f), "utf8").trim().split("\n"));
    expect(lines.map((l) => (JSON.parse(l) as { requestId: string }).requestId)).toEqual(ids);

    await node(dataDir, nodeId);
    await expectAllFifty(ids, dataDir, nodeId);
  }, 180_000);
});

/**
 * Issue 41: one call whose audit entry the database cannot store (a NUL in its target, from the path)
 * wedged the batched writer for every workspace, and its journal brought the wedge back at every
 * start. Now the entry is set aside (counted, logged once, stored escaped) and the entries behind it
 * land; a restart on the same data folder and database replays nothing.
 */
describeEachBackend("a bad audit entry never blocks the others", (backend) => {
  let tdb: TestDatabase;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-set-aside-"));
  const nodeId = `set-aside-${ulid()}`;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
  });
  afterAll(async () => {
    for (const a of apps.splice(0)) await a.stop();
    await tdb?.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The app on this test's data folder, node id and database, with its journal: a restart is the same node. */
  async function app(lines: Array<Record<string, unknown>> = []): Promise<TestApp> {
    const log = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const a = await startTestApp({ db: tdb.db, startBrowsers: false, auditJournal: true, nodeId, log, env: { VESSEL_DATA_DIR: dataDir } });
    apps.push(a);
    return a;
  }

  it("GET /v1/sessions/x%00/logs, then ordinary calls: their entries appear; the counter shows 1; a restart replays nothing", async () => {
    const first = await app();
    const ws: Seeded = await seedWorkspace(first);
    const bad = await fetch(`${first.url}/v1/sessions/x%00/logs`, { headers: bearer(ws.key) });
    expect(bad.status).toBeLessThan(500);
    const badId = bad.headers.get("x-request-id")!;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${first.url}/v1/health`, { headers: bearer(ws.key) });
      expect(res.status).toBe(200);
      ids.push(res.headers.get("x-request-id")!);
    }
    // The bound: an ordinary call's entry is stored within 2 s, whatever was queued before it.
    const rows = await eventually(
      () => tdb.db.prisma.auditEntry.findMany({ where: { requestId: { in: [badId, ...ids] } }, orderBy: { id: "asc" } }),
      (r) => r.length === 4,
      2_000,
    );
    expect(rows.map((r) => [r.requestId, r.action, r.target])).toEqual([
      [badId, "session.logs.read", "x\\u0000"],
      ...ids.map((id) => [id, "health.get", null]),
    ]);
    expect(await scraped(first.url, 'vessel_batch_entries_set_aside_total{writer="audit"}')).toBe(1);
    expect(await scraped(first.url, "vessel_audit_queue_depth")).toBe(0);
    await first.stop();
    apps.splice(apps.indexOf(first), 1);
    const journal = journalDir(dataDir, nodeId);
    expect(fs.readdirSync(journal).filter((f) => f.endsWith(".jsonl"))).toEqual([]);

    const lines: Array<Record<string, unknown>> = [];
    const second = await app(lines);
    expect(await scraped(second.url, "vessel_audit_queue_depth")).toBe(0);
    expect(await scraped(second.url, 'vessel_batch_entries_set_aside_total{writer="audit"}')).toBe(0);
    await second.stop();
    apps.splice(apps.indexOf(second), 1);
    expect(lines.filter((l) => l.setAside !== undefined || String(l.msg).startsWith("audit journal"))).toEqual([]);
    expect(await tdb.db.prisma.auditEntry.count({ where: { requestId: { in: [badId, ...ids] } } })).toBe(4);
  }, 120_000);
});
