import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { newRecordingKey, unwrapRecordingKey } from "../../src/crypto/recording-crypto.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { RecordingNode } from "../../src/services/recordings/recording-node.ts";
import { purgeExpiredRecordings } from "../../src/services/recordings/recording-retention.ts";
import { readRange, recordingFile, removeStored, storeSealed } from "../../src/services/recordings/recording-store.ts";
import { createLogger } from "../../src/logger.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

/**
 * Where recordings' sealed chunks live, on both backends and both storages: a file of fixed-size
 * sealed chunks in the data folder, or rows in recording_chunks. Small chunks here, so a range
 * spans several; what is stored is ciphertext; the retention job and master-key rotation.
 */

const CHUNK = 1000;

describeEachBackend("recording storage", (backend) => {
  let tdb: TestDatabase;
  let dataDir: string;
  const master = (() => {
    const key = randomBytes(32);
    return { key, id: masterKeyId(key) };
  })();
  const config = () => ({ database: { dataDir } });
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-recstore-"));
    await tdb.db.prisma.workspace.create({ data: { id: "ws_rec", slug: `rec-${randomBytes(4).toString("hex")}`, name: "Rec" } });
  });
  afterAll(async () => {
    await tdb?.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A session and its RECORDING row, as recorder.ts writes them. */
  async function recording(storage: "file" | "database") {
    const id = `ses_${randomBytes(8).toString("hex")}`;
    const now = new Date();
    await tdb.db.prisma.session.create({
      data: {
        id,
        workspaceId: "ws_rec",
        status: "RELEASED",
        region: "us-east1",
        timeoutSeconds: 60,
        recording: true,
        startedAt: now,
        expiresAt: new Date(now.getTime() + 60_000),
        endedAt: now,
      },
    });
    return tdb.db.prisma.recording.create({
      data: {
        sessionId: id,
        workspaceId: "ws_rec",
        status: "READY",
        storage,
        chunkBytes: CHUNK,
        ...newRecordingKey(master, id),
        startedAt: now,
        expiresAt: new Date(now.getTime() + 86_400_000),
      },
    });
  }

  for (const storage of ["file", "database"] as const) {
    it(`${storage}: stores sealed chunks and serves any range from them, decrypting only what it covers`, async () => {
      const rec = await recording(storage);
      const plain = Buffer.from(Array.from({ length: 3500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(""));
      const source = path.join(dataDir, `${rec.sessionId}.mp4`);
      fs.writeFileSync(source, plain);
      const store = { prisma: tdb.db.prisma, config: config() };
      const size = await storeSealed(store, rec, unwrapRecordingKey(master, rec), source);
      expect(size).toBe(plain.length);
      // What is stored is not the plaintext.
      const stored =
        storage === "file"
          ? fs.readFileSync(recordingFile(config(), rec.sessionId))
          : Buffer.concat(
              (await tdb.db.prisma.recordingChunk.findMany({ where: { sessionId: rec.sessionId }, orderBy: { idx: "asc" } })).map((c) => Buffer.from(c.data)),
            );
      expect(stored.length).toBe(plain.length + 4 * 28);
      expect(stored.includes(plain.subarray(0, 40))).toBe(false);
      if (storage === "database") expect(await tdb.db.prisma.recordingChunk.count({ where: { sessionId: rec.sessionId } })).toBe(4);

      const read = (start: number, end: number) => text(readRange(store, { ...rec, sizeBytes: size }, unwrapRecordingKey(master, rec), start, end));
      for (const [start, end] of [
        [0, plain.length - 1],
        [0, 0],
        [999, 1000],
        [1500, 3499],
        [2999, 3000],
        [3400, 3499],
      ] as const) {
        expect(await read(start, end), `${start}-${end}`).toBe(plain.subarray(start, end + 1).toString());
      }
      // A chunk changed at rest does not open: the reader fails rather than serving altered bytes.
      if (storage === "database") {
        const chunk = await tdb.db.prisma.recordingChunk.findUniqueOrThrow({ where: { sessionId_idx: { sessionId: rec.sessionId, idx: 1 } } });
        const altered = Buffer.from(chunk.data);
        altered[20]! ^= 1;
        await tdb.db.prisma.recordingChunk.update({ where: { sessionId_idx: { sessionId: rec.sessionId, idx: 1 } }, data: { data: new Uint8Array(altered) } });
        await expect(read(0, 1500)).rejects.toThrow();
        expect(await read(0, 999)).toBe(plain.subarray(0, 1000).toString());
      }
      await removeStored(store, rec);
      if (storage === "file") expect(fs.existsSync(recordingFile(config(), rec.sessionId))).toBe(false);
      else expect(await tdb.db.prisma.recordingChunk.count({ where: { sessionId: rec.sessionId } })).toBe(0);
    });
  }

  it("the retention job deletes expired recordings with their bytes, and fails ones whose node died unfinished", async () => {
    const expired = await recording("database");
    await tdb.db.prisma.recordingChunk.create({ data: { sessionId: expired.sessionId, idx: 0, data: new Uint8Array([1, 2, 3]) } });
    await tdb.db.prisma.recording.update({ where: { sessionId: expired.sessionId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const kept = await recording("database");
    const stranded = await recording("database");
    await tdb.db.prisma.recording.update({ where: { sessionId: stranded.sessionId }, data: { status: "PROCESSING" } });
    await tdb.db.prisma.session.update({ where: { id: stranded.sessionId }, data: { endedAt: new Date(Date.now() - 3600_000) } });
    const deps = { db: tdb.db, now: () => new Date(), log: createLogger("silent"), config: config() } as Parameters<typeof purgeExpiredRecordings>[0];
    expect(await purgeExpiredRecordings(deps)).toEqual({ deleted: 1, failed: 1 });
    expect(await tdb.db.prisma.recording.findUnique({ where: { sessionId: expired.sessionId } })).toBeNull();
    expect(await tdb.db.prisma.recordingChunk.count({ where: { sessionId: expired.sessionId } })).toBe(0);
    expect(await tdb.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: kept.sessionId } })).toMatchObject({ status: "READY" });
    expect(await tdb.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: stranded.sessionId } })).toMatchObject({ status: "FAILED" });
  });

  it("a node that starts again fails the recordings it left unfinished (their frames died with it), and only its own", async () => {
    const mine = await recording("database");
    const theirs = await recording("database");
    await tdb.db.prisma.node.createMany({
      data: [
        { id: "node-a", internalUrl: "http://127.0.0.1:9", region: "us-east1", capacity: 1, freeSlots: 1 },
        { id: "node-b", internalUrl: "http://127.0.0.1:9", region: "us-east1", capacity: 1, freeSlots: 1 },
      ],
      skipDuplicates: true,
    });
    await tdb.db.prisma.recording.update({ where: { sessionId: mine.sessionId }, data: { status: "RECORDING", nodeId: "node-a" } });
    await tdb.db.prisma.recording.update({ where: { sessionId: theirs.sessionId }, data: { status: "PROCESSING", nodeId: "node-b" } });
    await tdb.db.prisma.recordingChunk.create({ data: { sessionId: mine.sessionId, idx: 0, data: new Uint8Array([1]) } });
    const node = new RecordingNode(path.join(dataDir, "work"));
    await node.start({ db: tdb.db, nodeId: "node-a", log: createLogger("silent"), config: config() } as Parameters<RecordingNode["start"]>[0]);
    expect(await tdb.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: mine.sessionId } })).toMatchObject({ status: "FAILED" });
    expect(await tdb.db.prisma.recordingChunk.count({ where: { sessionId: mine.sessionId } })).toBe(0);
    expect(await tdb.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: theirs.sessionId } })).toMatchObject({ status: "PROCESSING" });
    // 0711: the jailed encoder (a host user of its own) passes through to its own 0700 folder, never lists the root.
    expect(fs.statSync(node.workRoot).mode & 0o777).toBe(0o711);
    node.close();
  });

  it("master-key rotation re-wraps recordings' keys", async () => {
    const rec = await recording("database");
    const nextKey = randomBytes(32);
    const next = { key: nextKey, id: masterKeyId(nextKey) };
    const report = await rotateMasterKey(tdb.db.prisma, master, next);
    expect(report.recordings.rewrapped).toBeGreaterThanOrEqual(1);
    expect(report.recordings.failed).toEqual([]);
    const row = await tdb.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: rec.sessionId } });
    expect(row.masterKeyId).toBe(next.id);
    expect(unwrapRecordingKey(next, row)).toEqual(unwrapRecordingKey(master, rec));
    // Back, so the other tests' rows stay readable under `master`.
    await rotateMasterKey(tdb.db.prisma, next, master);
  });
});
