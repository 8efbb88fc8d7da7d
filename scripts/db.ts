// Migrations without Prisma's native engine (it cannot be downloaded here):
//   create NAME  write prisma/migrations/<UTC timestamp>_NAME/migration.sql from the schema diff
//   deploy       apply pending migrations to DATABASE_URL, or to the embedded PGlite folder
//   status       list applied and pending migrations
//   diff         print the SQL that schema.prisma needs beyond the migrations
import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { lockDataDir } from "../src/db/client.ts";
import { applyMigrations, fromPgClient, pendingMigrations } from "../src/db/migrate.ts";
import type { MigrationConnection } from "../src/db/migrate.ts";
import { diffMigrationsToSchema, isEmptyDiff, lockfileContent } from "./lib/schema-engine.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const migrationsDir = path.join(root, "prisma", "migrations");
const schemaPath = path.join(root, "prisma", "schema.prisma");
const embeddedDataDir = path.join(root, ".data", "pglite");

async function create(name: string | undefined): Promise<void> {
  if (!name || !/^[A-Za-z0-9_]+$/.test(name)) throw new Error("usage: db.ts create NAME (letters, digits and _ only)");
  await mkdir(migrationsDir, { recursive: true });
  const lockfile = path.join(migrationsDir, "migration_lock.toml");
  if (!(await stat(lockfile).catch(() => null))) await writeFile(lockfile, lockfileContent);
  const script = await diffMigrationsToSchema(migrationsDir, schemaPath);
  if (isEmptyDiff(script)) {
    console.log("already in sync: schema.prisma matches prisma/migrations, nothing written");
    return;
  }
  const timestamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const dir = path.join(migrationsDir, `${timestamp}_${name}`);
  await mkdir(dir);
  await writeFile(path.join(dir, "migration.sql"), script);
  console.log(`wrote ${path.relative(root, path.join(dir, "migration.sql"))}`);
}

async function withConnection<T>(fn: (conn: MigrationConnection) => Promise<T>): Promise<T> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(fromPgClient(client));
    } finally {
      await client.end();
    }
  }
  console.log(`DATABASE_URL is not set: using the embedded database in ${path.relative(root, embeddedDataDir)}`);
  await mkdir(embeddedDataDir, { recursive: true });
  const unlock = await lockDataDir(embeddedDataDir);
  try {
    const db = await PGlite.create(embeddedDataDir);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  } finally {
    await unlock();
  }
}

async function deploy(): Promise<void> {
  const applied = await withConnection((conn) => applyMigrations(conn, migrationsDir, console.log));
  console.log(applied.length === 0 ? "no pending migrations" : `${applied.length} migration(s) applied`);
}

async function status(): Promise<void> {
  await withConnection(async (conn) => {
    const pending = await pendingMigrations(conn, migrationsDir);
    const present = await conn.query<{ ok: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS ok`);
    const rows = present.rows[0]?.ok
      ? (
          await conn.query<{ migration_name: string; finished_at: Date | null; rolled_back_at: Date | null }>(
            `SELECT migration_name, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
          )
        ).rows
      : [];
    for (const r of rows) {
      const state = r.rolled_back_at ? "rolled back" : r.finished_at ? `applied ${r.finished_at.toISOString()}` : "FAILED";
      console.log(`${state.padEnd(32)} ${r.migration_name}`);
    }
    for (const name of pending) console.log(`${"pending".padEnd(32)} ${name}`);
    if (pending.length > 0) process.exitCode = 1;
  });
}

async function diff(): Promise<void> {
  const script = await diffMigrationsToSchema(migrationsDir, schemaPath);
  process.stdout.write(isEmptyDiff(script) ? "-- in sync: no changes\n" : script);
}

const [command, arg] = process.argv.slice(2);
const commands: Record<string, () => Promise<void>> = { create: () => create(arg), deploy, status, diff };
const run = command ? commands[command] : undefined;
try {
  if (!run) throw new Error("usage: tsx scripts/db.ts create NAME | deploy | status | diff");
  await run();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
// The wasm schema engine leaves a timer running for about 10 s.
process.exit();
