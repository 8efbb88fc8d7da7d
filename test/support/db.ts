import { createHash, randomBytes } from "node:crypto";
import { readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { beforeAll, describe } from "vitest";
import { openDatabase } from "../../src/db/client.ts";
import type { Database } from "../../src/db/client.ts";
import { applyMigrations, fromPgClient, readMigrations } from "../../src/db/migrate.ts";
import type { MigrationConnection } from "../../src/db/migrate.ts";

export type Backend = "pglite" | "postgres";
export const backends: readonly Backend[] = ["pglite", "postgres"];

export interface TestDatabase {
  backend: Backend;
  db: Database;
  /** PostgreSQL only: the URL of this test's own database. */
  url?: string;
  dispose(): Promise<void>;
}

export const adminUrl = process.env.VESSEL_TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const servicesRequired = process.env.VESSEL_REQUIRE_SERVICES === "1";

let probe: Promise<string | undefined> | undefined;

/** Why PostgreSQL cannot be used, or undefined when it can. */
function postgresProblem(): Promise<string | undefined> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message || err.name : String(err);
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return probe;
}

export async function postgresAvailable(): Promise<boolean> {
  return (await postgresProblem()) === undefined;
}

// Known before tests are collected, so a missing PostgreSQL can skip whole suites.
const postgresUnavailableBecause = await postgresProblem();

/** Declares the suite once per backend. PostgreSQL runs skip when it is down, or fail under VESSEL_REQUIRE_SERVICES=1. */
export function describeEachBackend(name: string, fn: (backend: Backend) => void): void {
  for (const backend of backends) describeOn(backend, name, () => fn(backend));
}

/** A suite that needs PostgreSQL itself (same skip and failure rules as describeEachBackend). */
export function describePostgres(name: string, fn: () => void): void {
  describeOn("postgres", name, fn);
}

function describeOn(backend: Backend, name: string, fn: () => void): void {
  const problem = backend === "postgres" ? postgresUnavailableBecause : undefined;
  if (problem !== undefined && !servicesRequired) {
    describe.skip(`${name} [${backend}: PostgreSQL at ${redact(adminUrl)} is unreachable]`, fn);
    return;
  }
  describe(`${name} [${backend}]`, () => {
    if (problem !== undefined) {
      beforeAll(() => {
        throw new Error(
          `VESSEL_REQUIRE_SERVICES=1 but PostgreSQL at ${redact(adminUrl)} is unreachable: ${problem} ` +
            "(set VESSEL_TEST_DATABASE_URL to a server where this user may CREATE DATABASE)",
        );
      });
    }
    fn();
  });
}

/** A new, migrated, empty database of its own. */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  return backend === "postgres" ? createPostgresDatabase() : createPgliteDatabase();
}

async function createPostgresDatabase(): Promise<TestDatabase> {
  const { url, drop } = await createPostgresCluster();
  try {
    const db = await openDatabase({ url, dataDir: "memory://", migrate: "apply" });
    const dispose = async () => {
      await db.close();
      await drop();
    };
    return { backend: "postgres", db, url, dispose };
  } catch (err) {
    await drop();
    throw err;
  }
}

async function createPostgresCluster(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vessel_t_${randomBytes(6).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  const drop = () => withAdmin(async (admin) => void (await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
  return { url: databaseUrl(name), drop };
}

export interface EmptyDatabase {
  backend: Backend;
  /** One session: a `pg` client or the PGlite instance. */
  conn: MigrationConnection;
  /** PostgreSQL only. */
  url?: string;
  dispose(): Promise<void>;
}

/** A new database without any migrations, for tests of migrating itself. */
export async function createEmptyDatabase(backend: Backend): Promise<EmptyDatabase> {
  if (backend === "pglite") {
    const db = await PGlite.create({ loadDataDir: await pgliteDump("empty") });
    return { backend, conn: db, dispose: () => db.close() };
  }
  const { url, drop } = await createPostgresCluster();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const dispose = async () => {
    await client.end();
    await drop();
  };
  return { backend, conn: fromPgClient(client), url, dispose };
}

/** The URL of database `name` on the admin URL's server. */
export function databaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

async function createPgliteDatabase(): Promise<TestDatabase> {
  const db = await openDatabase({ dataDir: "memory://", loadDataDir: await pgliteDump("migrated") });
  return { backend: "pglite", db, dispose: () => db.close() };
}

const dumps = new Map<string, Promise<Blob>>();

/**
 * A tarball of a PGlite cluster, empty or migrated. initdb plus migrations costs seconds, loading
 * a tarball about one, so each is built once and kept in the temp folder for every worker.
 */
export function pgliteDump(contents: "empty" | "migrated"): Promise<Blob> {
  let dump = dumps.get(contents);
  if (!dump) {
    dump = buildDump(contents);
    dumps.set(contents, dump);
  }
  return dump;
}

async function buildDump(contents: "empty" | "migrated"): Promise<Blob> {
  const file = path.join(os.tmpdir(), `vessel-pglite-${await dumpKey(contents)}.tar`);
  const cached = await readFile(file).catch(() => undefined);
  if (cached) return new Blob([cached]);
  const db = await PGlite.create("memory://");
  try {
    if (contents === "migrated") await applyMigrations(db);
    const blob = await db.dumpDataDir("none");
    await removeStaleDumps(contents, file);
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, new Uint8Array(await blob.arrayBuffer()));
    await rename(partial, file); // atomic, so a concurrent worker never reads half a file
    return blob;
  } finally {
    await db.close();
  }
}

async function dumpKey(contents: "empty" | "migrated"): Promise<string> {
  const require = createRequire(import.meta.url);
  const pkg = path.join(path.dirname(require.resolve("@electric-sql/pglite")), "..", "package.json");
  const { version } = JSON.parse(await readFile(pkg, "utf8")) as { version: string };
  const hash = createHash("sha256").update(`pglite ${version}\n`);
  if (contents === "migrated") for (const m of await readMigrations()) hash.update(`${m.name} ${m.checksum}\n`);
  return `${contents}-${hash.digest("hex").slice(0, 16)}`;
}

/** Dumps of older migrations or PGlite versions are 40 MB each: keep only the current one. */
async function removeStaleDumps(contents: string, keep: string): Promise<void> {
  for (const name of await readdir(os.tmpdir())) {
    const file = path.join(os.tmpdir(), name);
    const stale = new RegExp(`^vessel-pglite-${contents}-[0-9a-f]{16}\\.tar$`).test(name) && file !== keep;
    if (stale) await rm(file, { force: true });
  }
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
