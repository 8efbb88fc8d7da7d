import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { openDatabase } from "../../src/db/client.ts";
import type { Database } from "../../src/db/client.ts";
import { readMigrations } from "../../src/db/migrate.ts";
import { Prisma } from "../../src/generated/prisma/client.ts";
import { createEmptyDatabase, createTestDatabase, describeEachBackend, describePostgres, withAdmin } from "../support/db.ts";
import type { EmptyDatabase, TestDatabase } from "../support/db.ts";

describe("embedded PGlite in a data folder", () => {
  let dataDir: string;
  const open: Database[] = [];
  const lockFile = () => path.join(dataDir, "vessel.lock");
  const openHere = async () => {
    const db = await openDatabase({ dataDir });
    open.push(db);
    return db;
  };

  beforeAll(async () => {
    dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), "vessel-pglite-")), "data");
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });
  afterAll(async () => {
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  test("creates the folder, applies migrations and keeps rows across a restart", async () => {
    const first = await openHere();
    expect(first.kind).toBe("pglite");
    await first.prisma.workspace.create({ data: { id: "01JTESTWORKSPACE", slug: "kept", name: "Kept" } });
    await first.close();

    const second = await openHere();
    const row = await second.prisma.workspace.findUnique({ where: { id: "01JTESTWORKSPACE" } });
    expect(row).toMatchObject({ slug: "kept", name: "Kept" });
  });

  // The embedded database runs statements on this thread and answers them as microtasks: without a
  // turn of the event loop between them, a chain of statements held every socket waiting.
  test("a chain of statements lets the event loop turn between them", async () => {
    const db = await openHere();
    let done = 0;
    const chain = (async () => {
      for (let i = 0; i < 20; i++) {
        await db.direct!(Prisma.sql`SELECT ${i}::int AS n`);
        done++;
      }
    })();
    const doneWhenTheLoopTurned = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
    await chain;
    expect(done).toBe(20);
    expect(doneWhenTheLoopTurned).toBeLessThanOrEqual(1);
  });

  // PGlite's own close() ran under a statement in flight and left the process spinning for ever.
  test("a close waits for the statements already begun, then refuses new ones", async () => {
    const db = await openHere();
    await db.prisma.$queryRaw`SELECT 1`;
    const transaction = db.prisma.$transaction(async (tx) => {
      await tx.workspace.create({ data: { id: "01JCLOSEWAITS0000000000000", slug: "during-close", name: "During close" } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return tx.workspace.count();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await db.close();
    expect(await transaction).toBeGreaterThanOrEqual(1);
    await expect(db.prisma.$queryRaw`SELECT 3`).rejects.toThrow(/the database is closed/);
    await expect(db.direct!(Prisma.sql`SELECT 4`)).rejects.toThrow(/the database is closed/);

    const reopened = await openHere();
    expect(await reopened.prisma.workspace.findUnique({ where: { slug: "during-close" } })).toMatchObject({ name: "During close" });
  }, 30_000);

  test("a second open of the same folder is refused while the first is open, and allowed after close", async () => {
    const first = await openHere();
    expect((await readFile(lockFile(), "utf8")).trim()).toBe(String(process.pid));
    const refusal = openDatabase({ dataDir });
    await expect(refusal).rejects.toThrow(path.resolve(dataDir));
    await expect(refusal).rejects.toThrow(`process ${process.pid}`);

    await first.close();
    await expect(stat(lockFile())).rejects.toThrow(/ENOENT/);
    const again = await openHere();
    await again.ping();
  });

  test("a lock held by another live process is respected", async () => {
    const holder = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await writeFile(lockFile(), `${holder.pid}\n`);
      await expect(openDatabase({ dataDir })).rejects.toThrow(`process ${holder.pid}`);
      expect((await readFile(lockFile(), "utf8")).trim()).toBe(String(holder.pid));
    } finally {
      holder.kill();
      await rm(lockFile(), { force: true });
    }
  });

  test("a stale lock left by a dead process is taken over", async () => {
    const dead = spawnSync("true");
    expect(dead.pid).toBeGreaterThan(0);
    await writeFile(lockFile(), `${dead.pid}\n`);
    const db = await openHere();
    expect((await readFile(lockFile(), "utf8")).trim()).toBe(String(process.pid));
    await db.ping();
  });
});

describeEachBackend("Database.ping", (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => database?.dispose());

  test("answers while open and fails once closed", async () => {
    expect(database.db.kind).toBe(backend);
    await expect(database.db.ping()).resolves.toBeUndefined();
    await database.db.close();
    await expect(database.db.ping()).rejects.toThrow();
  });
});

describePostgres("Database.ping on a server that lost the database", () => {
  test("fails", async () => {
    const database = await createTestDatabase("postgres");
    try {
      await database.db.ping();
      const name = new URL(database.url ?? "").pathname.slice(1);
      await withAdmin((admin) => admin.query(`DROP DATABASE ${name} WITH (FORCE)`));
      await expect(database.db.ping()).rejects.toThrow();
    } finally {
      await database.dispose();
    }
  });
});

describePostgres("PostgreSQL migration check at start", () => {
  let blank: EmptyDatabase;
  let migrated: TestDatabase;
  beforeAll(async () => {
    [blank, migrated] = await Promise.all([createEmptyDatabase("postgres"), createTestDatabase("postgres")]);
  });
  afterAll(async () => {
    await Promise.all([blank?.dispose(), migrated?.dispose()]);
  });

  test("refuses to start by default when migrations are pending, naming them", async () => {
    const names = (await readMigrations()).map((m) => m.name);
    const attempt = openDatabase({ url: blank.url, dataDir: "unused" });
    await expect(attempt).rejects.toThrow(names[0]);
    await expect(attempt).rejects.toThrow("npm run db:migrate:deploy");
    const tables = await blank.conn.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
    expect(tables.rows).toEqual([{ t: null }]);
  });

  test("starts when every migration is applied", async () => {
    const db = await openDatabase({ url: migrated.url, dataDir: "unused", migrate: "verify" });
    try {
      expect(db.kind).toBe("postgres");
      expect(await db.prisma.workspace.count()).toBe(0);
    } finally {
      await db.close();
    }
  });
});
