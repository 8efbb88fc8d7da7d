import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** What the runner needs from a database connection: a `pg` client (see fromPgClient) or a PGlite instance. */
export interface MigrationConnection {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs a multi-statement script (simple-query protocol). */
  exec(script: string): Promise<unknown>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export const defaultMigrationsDir = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

// The key Prisma's schema engine locks, so this runner and `prisma migrate deploy` exclude each other.
const advisoryLockKey = 72707369;

// Prisma's own definition of its history table (PostgreSQL connector).
const historyTableDdl = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export function fromPgClient(client: { query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }> }): MigrationConnection {
  return {
    query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)) as { rows: R[] },
    // Without parameters node-postgres uses the simple-query protocol, which accepts several statements.
    exec: (script) => client.query(script),
  };
}

export function checksumOf(content: Buffer | string): string {
  return createHash("sha256").update(content).digest("hex");
}

export async function readMigrations(dir = defaultMigrationsDir): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [];
    throw err;
  });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort(byCodeUnit);
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name, "migration.sql");
      const bytes = await readFile(file).catch((err: Error) => {
        throw new Error(`migration ${name} has no readable migration.sql (${file}): ${err.message}`);
      });
      // Prisma's checksum is the sha256 of the file's bytes.
      return { name, sql: bytes.toString("utf8"), checksum: checksumOf(bytes) };
    }),
  );
}

/** Names of the migrations in `dir` that the database has not applied yet. */
export async function pendingMigrations(conn: MigrationConnection, dir = defaultMigrationsDir): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const history = await readHistory(conn);
  const applied = appliedChecksums(history);
  return migrations.filter((m) => !applied.has(m.name)).map((m) => m.name);
}

/**
 * Applies pending migrations in name order, each in one transaction with its `_prisma_migrations` row.
 * Returns the names applied.
 */
export async function applyMigrations(conn: MigrationConnection, dir = defaultMigrationsDir, log: (msg: string) => void = () => {}): Promise<string[]> {
  const migrations = await readMigrations(dir);
  // `::text` because some drivers cannot decode the void result of pg_advisory_lock.
  await conn.query(`SELECT pg_advisory_lock(${advisoryLockKey})::text`);
  try {
    await conn.exec(historyTableDdl);
    const history = await readHistory(conn);
    const failed = history.filter((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed.length > 0) {
      const names = failed.map((r) => r.migration_name).join(", ");
      throw new Error(
        `refusing to migrate: the database has failed migrations (${names}); ` +
          "fix the database by hand, then mark them rolled back (`prisma migrate resolve --rolled-back`)",
      );
    }
    const applied = appliedChecksums(history);
    warnAboutDrift(migrations, applied, log);
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      await applyOne(conn, m);
      log(`applied migration ${m.name}`);
      done.push(m.name);
    }
    return done;
  } finally {
    await conn.query(`SELECT pg_advisory_unlock(${advisoryLockKey})::text`);
  }
}

async function applyOne(conn: MigrationConnection, m: Migration): Promise<void> {
  await conn.query("BEGIN");
  try {
    await conn.exec(m.sql);
    await conn.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
      [randomUUID(), m.checksum, m.name],
    );
    await conn.query("COMMIT");
  } catch (err) {
    await conn.query("ROLLBACK").catch(() => {});
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`migration ${m.name} failed and was rolled back: ${message}`, { cause: err });
  }
}

async function readHistory(conn: MigrationConnection): Promise<HistoryRow[]> {
  const exists = await conn.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  if (!exists.rows[0]?.present) return [];
  const result = await conn.query<HistoryRow>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`);
  return result.rows;
}

function appliedChecksums(history: HistoryRow[]): Map<string, string> {
  return new Map(history.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => [r.migration_name, r.checksum]));
}

function warnAboutDrift(migrations: Migration[], applied: Map<string, string>, log: (msg: string) => void): void {
  const byName = new Map(migrations.map((m) => [m.name, m]));
  for (const [name, checksum] of applied) {
    const local = byName.get(name);
    if (!local) log(`warning: migration ${name} is applied but missing from the migrations folder`);
    else if (!checksumsOf(local).includes(checksum)) log(`warning: migration ${name} was modified after it was applied`);
  }
}

// Prisma also accepts the file with its line endings converted, so a checkout on Windows is not drift.
function checksumsOf(m: Migration): string[] {
  const lf = m.sql.replaceAll("\r\n", "\n");
  return [m.checksum, checksumOf(lf), checksumOf(lf.replaceAll("\n", "\r\n"))];
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
