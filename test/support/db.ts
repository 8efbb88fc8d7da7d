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
import { applyMigrations, readMigrations } from "../../src/db/migrate.ts";

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
  for (const backend of backends) {
    const problem = backend === "postgres" ? postgresUnavailableBecause : undefined;
    if (problem !== undefined && !servicesRequired) {
      describe.skip(`${name} [${backend}: PostgreSQL at ${redact(adminUrl)} unreachable]`, () => fn(backend));
      continue;
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
      fn(backend);
    });
  }
}

/** A new, migrated, empty database of its own. */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  return backend === "postgres" ? createPostgresDatabase() : createPgliteDatabase();
}

async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `vessel_t_${randomBytes(6).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = databaseUrl(name);
  try {
    const db = await openDatabase({ url, dataDir: "memory://", migrate: "apply" });
    const dispose = async () => {
      await db.close();
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    };
    return { backend: "postgres", db, url, dispose };
  } catch (err) {
    await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    throw err;
  }
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
  const db = await openDatabase({ dataDir: "memory://", loadDataDir: await migratedPgliteDump() });
  return { backend: "pglite", db, dispose: () => db.close() };
}

let dump: Promise<Blob> | undefined;

/**
 * A tarball of a migrated PGlite cluster. initdb plus migrations costs seconds, loading the tarball
 * under one, so it is built once per set of migrations and kept in the temp folder for every worker.
 */
export function migratedPgliteDump(): Promise<Blob> {
  dump ??= (async () => {
    const file = path.join(os.tmpdir(), `vessel-pglite-${await templateKey()}.tar`);
    const cached = await readFile(file).catch(() => undefined);
    if (cached) return new Blob([cached]);
    const db = await PGlite.create("memory://");
    try {
      await applyMigrations(db);
      const blob = await db.dumpDataDir("none");
      await removeStaleDumps(file);
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, new Uint8Array(await blob.arrayBuffer()));
      await rename(partial, file); // atomic, so a concurrent worker never reads half a file
      return blob;
    } finally {
      await db.close();
    }
  })();
  return dump;
}

async function templateKey(): Promise<string> {
  const require = createRequire(import.meta.url);
  const pkg = path.join(path.dirname(require.resolve("@electric-sql/pglite")), "..", "package.json");
  const { version } = JSON.parse(await readFile(pkg, "utf8")) as { version: string };
  const hash = createHash("sha256").update(`pglite ${version}\n`);
  for (const m of await readMigrations()) hash.update(`${m.name} ${m.checksum}\n`);
  return hash.digest("hex").slice(0, 16);
}

async function removeStaleDumps(keep: string): Promise<void> {
  const dir = path.dirname(keep);
  for (const name of await readdir(dir)) {
    if (/^vessel-pglite-[0-9a-f]{16}\.tar$/.test(name) && path.join(dir, name) !== keep) {
      await rm(path.join(dir, name), { force: true });
    }
  }
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
