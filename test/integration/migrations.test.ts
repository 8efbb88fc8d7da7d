import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { diagnoseHistory, diffMigrationsToSchema, isEmptyDiff } from "../../scripts/lib/schema-engine.ts";
import { applyMigrations, fromPgClient, pendingMigrations } from "../../src/db/migrate.ts";
import { pgliteDump } from "../../scripts/lib/pglite-dumps.ts";
import { createEmptyDatabase, describeEachBackend, describePostgres } from "../support/db.ts";
import type { EmptyDatabase } from "../support/db.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const migrationsDir = path.join(root, "prisma", "migrations");
const schemaPath = path.join(root, "prisma", "schema.prisma");

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
}

async function migrationFolders(dir: string): Promise<{ name: string; sha256: string }[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(path.join(dir, name, "migration.sql"));
      return { name, sha256: createHash("sha256").update(bytes).digest("hex") };
    }),
  );
}

async function history(database: EmptyDatabase): Promise<HistoryRow[]> {
  const result = await database.conn.query<HistoryRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count
     FROM "_prisma_migrations" ORDER BY migration_name`,
  );
  return result.rows;
}

async function tableExists(database: EmptyDatabase, table: string): Promise<boolean> {
  const result = await database.conn.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [table]);
  return result.rows[0]?.present === true;
}

/** A copy of the real migrations plus one more, in a temp folder. */
async function migrationsWith(name: string, sql: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "vessel-migrations-"));
  await cp(migrationsDir, dir, { recursive: true });
  await mkdir(path.join(dir, name));
  await writeFile(path.join(dir, name, "migration.sql"), sql);
  return dir;
}

describe("schema drift", () => {
  test("prisma/migrations produce exactly the schema in schema.prisma", async () => {
    const script = await diffMigrationsToSchema(migrationsDir, schemaPath);
    expect(isEmptyDiff(script), `schema.prisma has changes without a migration; run \`npm run db:migrate:create -- NAME\`:\n${script}`).toBe(true);
  });

  test("the check catches a schema.prisma edited without a migration", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "vessel-schema-"));
    try {
      const edited = (await readFile(schemaPath, "utf8")).replace(/model Workspace \{\n/, 'model Workspace {\n  driftProbe String? @map("drift_probe")\n');
      expect(edited).toContain("drift_probe");
      await writeFile(path.join(dir, "schema.prisma"), edited);
      const script = await diffMigrationsToSchema(migrationsDir, path.join(dir, "schema.prisma"));
      expect(isEmptyDiff(script)).toBe(false);
      expect(script).toMatch(/ALTER TABLE "workspaces" ADD COLUMN\s+"drift_probe" TEXT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describeEachBackend("applyMigrations", (backend) => {
  let database: EmptyDatabase;
  const tempDirs: string[] = [];
  beforeAll(async () => {
    database = await createEmptyDatabase(backend);
  });
  afterAll(async () => {
    await database?.dispose();
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  test("records every migration with Prisma's checksum, then has nothing left to apply", async () => {
    const folders = await migrationFolders(migrationsDir);
    expect(folders.length).toBeGreaterThan(0);
    expect(await pendingMigrations(database.conn)).toEqual(folders.map((f) => f.name));

    expect(await applyMigrations(database.conn)).toEqual(folders.map((f) => f.name));
    const rows = await history(database);
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(folders.map((f) => [f.name, f.sha256]));
    for (const row of rows) {
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    expect(await tableExists(database, "workspaces")).toBe(true);

    expect(await applyMigrations(database.conn)).toEqual([]);
    expect(await pendingMigrations(database.conn)).toEqual([]);
    expect(await history(database)).toHaveLength(rows.length);
  });

  test("a failing migration is rolled back whole and named in the error", async () => {
    const dir = await migrationsWith("99990101000000_broken", 'CREATE TABLE "broken_probe" (id int);\nSELECT * FROM no_such_table;\n');
    tempDirs.push(dir);
    await expect(applyMigrations(database.conn, dir)).rejects.toThrow(/99990101000000_broken.*no_such_table/s);
    expect(await tableExists(database, "broken_probe")).toBe(false);
    const names = (await history(database)).map((r) => r.migration_name);
    expect(names).not.toContain("99990101000000_broken");
    expect(await pendingMigrations(database.conn, dir)).toEqual(["99990101000000_broken"]);
    // The session is usable again: nothing was left open.
    await expect(database.conn.query("SELECT 1")).resolves.toBeDefined();
  });

  test("a migration whose history row cannot be written leaves nothing behind", async () => {
    // The script itself succeeds; the trigger it creates then rejects the runner's bookkeeping insert.
    const dir = await migrationsWith(
      "99990101100000_unrecorded",
      `CREATE TABLE "unrecorded_probe" (id int);
CREATE FUNCTION refuse_history() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'history refused'; END $$;
CREATE TRIGGER refuse_history BEFORE INSERT ON "_prisma_migrations" FOR EACH ROW EXECUTE FUNCTION refuse_history();
`,
    );
    tempDirs.push(dir);
    await expect(applyMigrations(database.conn, dir)).rejects.toThrow(/99990101100000_unrecorded.*history refused/s);
    expect(await tableExists(database, "unrecorded_probe")).toBe(false);
    const triggers = await database.conn.query("SELECT tgname FROM pg_trigger WHERE tgname = 'refuse_history'");
    expect(triggers.rows).toEqual([]);
  });

  test("warns about a migration edited after it was applied, but not about its line endings", async () => {
    const dir = await migrationsWith("99990101200000_edited", 'CREATE TABLE "edited_probe" (id int);\n');
    tempDirs.push(dir);
    expect(await applyMigrations(database.conn, dir)).toEqual(["99990101200000_edited"]);
    const file = path.join(dir, "99990101200000_edited", "migration.sql");
    const messages: string[] = [];
    await writeFile(file, 'CREATE TABLE "edited_probe" (id int);\r\n');
    await applyMigrations(database.conn, dir, (msg) => messages.push(msg));
    expect(messages).toEqual([]);
    await writeFile(file, 'CREATE TABLE "edited_probe" (id bigint);\n');
    await applyMigrations(database.conn, dir, (msg) => messages.push(msg));
    expect(messages).toEqual(["warning: migration 99990101200000_edited was modified after it was applied"]);
  });

  test("refuses to run while the history holds a failed migration", async () => {
    const dir = await migrationsWith("99990102000000_next", 'CREATE TABLE "next_probe" (id int);\n');
    tempDirs.push(dir);
    await database.conn.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ('00000000-0000-4000-8000-000000000001', 'x', '99990101500000_half_done', now(), 0)`,
    );
    try {
      await expect(applyMigrations(database.conn, dir)).rejects.toThrow(/failed migrations.*99990101500000_half_done/);
      expect(await tableExists(database, "next_probe")).toBe(false);
    } finally {
      await database.conn.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = '99990101500000_half_done'`);
    }
    expect(await applyMigrations(database.conn, dir)).toEqual(["99990102000000_next"]);
  });
});

describe("Prisma's engine reads the runner's history", () => {
  let db: PGlite;
  afterEach(async () => db?.close());

  test("no failed, edited or unapplied migrations after the runner", async () => {
    db = await PGlite.create({ loadDataDir: await pgliteDump("empty") });
    await applyMigrations(db);
    const status = await diagnoseHistory(db, migrationsDir);
    expect(status).toMatchObject({ hasMigrationsTable: true, failedMigrationNames: [], editedMigrationNames: [], history: null });
  });

  test("and sees a migration edited after it was applied", async () => {
    const dir = await migrationsWith("99990103000000_extra", 'CREATE TABLE "extra_probe" (id int);\n');
    try {
      db = await PGlite.create({ loadDataDir: await pgliteDump("empty") });
      await applyMigrations(db, dir);
      await writeFile(path.join(dir, "99990103000000_extra", "migration.sql"), 'CREATE TABLE "extra_probe" (id bigint);\n');
      const status = await diagnoseHistory(db, dir);
      expect(status.editedMigrationNames).toEqual(["99990103000000_extra"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describePostgres("concurrent appliers", () => {
  let database: EmptyDatabase;
  let dir: string;
  beforeAll(async () => {
    database = await createEmptyDatabase("postgres");
    // A slow last migration keeps the first applier busy while the second one starts.
    dir = await migrationsWith("99990104000000_slow", 'SELECT pg_sleep(0.5);\nCREATE TABLE "slow_probe" (id int);\n');
  });
  afterAll(async () => {
    await database?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("apply each migration exactly once", async () => {
    const clients = [new pg.Client({ connectionString: database.url }), new pg.Client({ connectionString: database.url })];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const results = await Promise.all(clients.map((c) => applyMigrations(fromPgClient(c), dir)));
      const expected = (await migrationFolders(dir)).map((f) => f.name);
      expect(results.flat().sort()).toEqual(expected);
      expect(results.map((r) => r.length).sort()).toEqual([0, expected.length]);
      const rows = await history(database);
      expect(rows.map((r) => r.migration_name)).toEqual(expected);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});
