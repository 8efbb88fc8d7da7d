import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { SessionLogWriter } from "../../src/services/session-logs/log-writer.ts";
import { ulid } from "../../src/ids.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { setAsideCount } from "../support/metrics.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

/**
 * The sessions' log store without a browser, on both databases: the writer's one statement per
 * batch (key row upserted with the entries, bytea, several statements past 1000 rows), reading
 * through the API page by page, a long poll woken by a write, the byte bound, master-key rotation,
 * retention, and the cascade when the session goes.
 */

type Entry = { seq: number; type: string; at: string } & Record<string, unknown>;
const key = (b64: string) => ({ key: Buffer.from(b64, "base64"), id: masterKeyId(Buffer.from(b64, "base64")) });

describeEachBackend("session logs without a browser", (backend) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ws: Seeded;
  const oldKey = randomBytes(32).toString("base64");
  const newKey = randomBytes(32).toString("base64");

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: oldKey } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    await tdb?.dispose();
  });

  async function sessionRow(status: "RUNNING" | "RELEASED" = "RUNNING"): Promise<string> {
    const id = `ses_${ulid()}`;
    const now = new Date();
    await tdb.db.prisma.session.create({
      data: { id, workspaceId: ws.workspace.id, status, region: "us-east1", timeoutSeconds: 600, startedAt: now, expiresAt: new Date(now.getTime() + 600_000) },
    });
    return id;
  }

  const writer = (id: string, logs: Partial<TestApp["app"]["deps"]["config"]["logs"]> = {}) =>
    new SessionLogWriter({ ...t.app.deps, config: { logs: { ...t.app.deps.config.logs, ...logs } } }, id, ws.workspace.id, new Date());

  const read = async (id: string, query = "") => {
    const res = await fetch(`${t.url}/v1/sessions/${id}/logs${query}`, { headers: bearer(ws.key) });
    expect(res.status).toBe(200);
    return (await res.json()) as { items: Entry[]; next_cursor: string | null; has_more: boolean };
  };

  it("writes a batch of 2500 in one flush and reads it back in order, page by page with the cursor", async () => {
    const id = await sessionRow();
    const w = writer(id);
    for (let i = 1; i <= 2500; i++) w.record(i % 2 ? "console" : "network", new Date(), { n: i, text: `line ${i} ünïcödé` });
    await w.flush();
    expect(await tdb.db.prisma.sessionLogKey.findUniqueOrThrow({ where: { sessionId: id } })).toMatchObject({
      entries: 2500,
      truncated: false,
      workspaceId: ws.workspace.id,
    });
    const seen: Entry[] = [];
    let cursor = "";
    for (let page = 0; page < 5; page++) {
      const body = await read(id, `?limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...body.items);
      cursor = body.next_cursor!;
      if (!body.has_more) break;
    }
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    expect(seen[2]).toMatchObject({ type: "console", n: 3, text: "line 3 ünïcödé" });
    expect((await read(id, "?type=network&limit=2")).items.map((e) => e.n)).toEqual([2, 4]);
    await w.finish();
  });

  it("one entry the database refuses does not cost the others: it is set aside and counted, at once", async () => {
    const id = await sessionRow();
    const metrics = t.app.deps.metrics!;
    const before = await setAsideCount(metrics, "logs");
    const w = new SessionLogWriter({ ...t.app.deps, setAside: metrics.setAside }, id, ws.workspace.id, new Date());
    // A NUL in a line is sealed with the entry (stored as is); a NUL in its type is refused (SQLSTATE 22021).
    w.record("console", new Date(), { text: "before \u0000" });
    w.record("console\u0000", new Date(), { text: "refused" });
    w.record("console", new Date(), { text: "after" });
    await w.flush();
    expect((await read(id)).items.map((e) => [e.seq, e.type, e.text])).toEqual([
      [1, "console", "before \u0000"],
      [3, "console", "after"],
    ]);
    expect(await setAsideCount(metrics, "logs")).toBe(before + 1);
    await w.finish();
  });

  it("wakes a long poll when an entry is written, and keeps the byte bound", async () => {
    const id = await sessionRow();
    const w = writer(id, { maxBytes: 65_536 });
    w.record("console", new Date(), { text: "first" });
    await w.flush();
    const first = await read(id);
    const waiting = read(id, `?cursor=${first.next_cursor}&wait=20`);
    await new Promise((r) => setTimeout(r, 300));
    const asked = Date.now();
    w.record("console", new Date(), { text: "second" });
    await w.flush();
    expect((await waiting).items.map((e) => e.text)).toEqual(["second"]);
    expect(Date.now() - asked).toBeLessThan(5_000);

    for (let i = 0; i < 20; i++) w.record("console", new Date(), { text: "x".repeat(10_000) });
    await w.finish();
    const all = (await read(id, "?limit=1000")).items;
    expect(all.at(-1)).toMatchObject({ type: "logs.truncated", reason: "max_bytes", max_bytes: 65_536 });
    expect(all.length).toBeLessThan(10);
    expect(await tdb.db.prisma.sessionLogKey.findUniqueOrThrow({ where: { sessionId: id } })).toMatchObject({ truncated: true, entries: all.length });
  });

  it("survives a master-key rotation, is deleted by the retention job, and goes with its session", async () => {
    const id = await sessionRow("RELEASED");
    const w = writer(id);
    w.record("navigation", new Date(), { url: "https://example.com/" });
    await w.finish();
    const before = await tdb.db.prisma.sessionLogKey.findUniqueOrThrow({ where: { sessionId: id } });
    const report = await rotateMasterKey(tdb.db.prisma, key(oldKey), key(newKey));
    expect(report.sessionLogKeys.failed).toEqual([]);
    expect(report.sessionLogKeys.rewrapped).toBeGreaterThanOrEqual(1);
    const after = await tdb.db.prisma.sessionLogKey.findUniqueOrThrow({ where: { sessionId: id } });
    expect(after.masterKeyId).toBe(key(newKey).id);
    expect(Buffer.from(after.wrappedKey).equals(Buffer.from(before.wrappedKey))).toBe(false);
    expect((await rotateMasterKey(tdb.db.prisma, key(oldKey), key(newKey))).sessionLogKeys).toMatchObject({ rewrapped: 0 });

    await t.stop();
    t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: newKey } });
    expect((await read(id)).items.map((e) => e.url)).toEqual(["https://example.com/"]);

    const kept = await sessionRow("RELEASED");
    const w2 = writer(kept);
    w2.record("console", new Date(), { text: "kept" });
    await w2.finish();
    await tdb.db.prisma.sessionLogKey.update({ where: { sessionId: id }, data: { expiresAt: new Date(Date.now() - 1) } });
    await t.app.jobs.runNow("purge-expired-session-logs");
    expect(await tdb.db.prisma.sessionLogEntry.count({ where: { sessionId: id } })).toBe(0);
    expect(await tdb.db.prisma.sessionLogKey.count({ where: { sessionId: id } })).toBe(0);
    expect(await tdb.db.prisma.sessionLogEntry.count({ where: { sessionId: kept } })).toBe(1);

    await tdb.db.prisma.session.delete({ where: { id: kept } });
    expect(await tdb.db.prisma.sessionLogEntry.count({ where: { sessionId: kept } })).toBe(0);
    expect(await tdb.db.prisma.sessionLogKey.count({ where: { sessionId: kept } })).toBe(0);
  });
});
