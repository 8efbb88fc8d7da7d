import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { beforeAll, describe } from "vitest";
import { openDatabase } from "../../src/db/client.ts";
import type { Database } from "../../src/db/client.ts";
import { fromPgClient } from "../../src/db/migrate.ts";
import type { MigrationConnection } from "../../src/db/migrate.ts";
import { pgliteDump } from "../../scripts/lib/pglite-dumps.ts";
import { servicesRequired, testDatabaseUrl } from "./services.ts";

export type Backend = "pglite" | "postgres";
export const backends: readonly Backend[] = ["pglite", "postgres"];

export interface TestDatabase {
  backend: Backend;
  db: Database;
  /** PostgreSQL only: the URL of this test's own database. */
  url?: string;
  dispose(): Promise<void>;
}

/** Where test databases are created (VESSEL_TEST_DATABASE_URL); the user needs CREATEDB. */
const adminUrl = testDatabaseUrl;

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
  const { url, drop } = await createBlankPostgresDatabase();
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

async function createBlankPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
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
  const { url, drop } = await createBlankPostgresDatabase();
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

/** An in-memory PGlite loaded from the migrated cluster's dump: initdb and the migrations take 3–5 s, the dump under 2. */
export async function openMigratedPglite(): Promise<Database> {
  return openDatabase({ dataDir: "memory://", loadDataDir: await pgliteDump("migrated") });
}

async function createPgliteDatabase(): Promise<TestDatabase> {
  const db = await openMigratedPglite();
  return { backend: "pglite", db, dispose: () => db.close() };
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
