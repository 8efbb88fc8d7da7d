import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { cacheStatements } from "./statement-cache.ts";
import { PrismaClient, type Prisma } from "../generated/prisma/client.ts";
import { applyMigrations, fromPgClient, pendingMigrations } from "./migrate.ts";
import { BudgetPool, poolConfig } from "./pg-timeouts.ts";
import type { MigrationConnection } from "./migrate.ts";

export interface DatabaseOptions {
  /** PostgreSQL connection URL. Without it the embedded PGlite database in `dataDir` is used. */
  url?: string;
  /** PGlite data folder, or "memory://" for a throw-away in-memory database. */
  dataDir: string;
  /** Default: "apply" for PGlite, "verify" for PostgreSQL. */
  migrate?: "apply" | "verify";
  /** PGlite only: start from this `dumpDataDir()` tarball (the folder must not hold a database yet). */
  loadDataDir?: Blob;
}

export interface Database {
  prisma: PrismaClient;
  kind: "postgres" | "pglite";
  /**
   * PGlite only: one statement run on the database itself, without Prisma's layer, which costs this
   * process ~0.7 ms per statement there (the statement itself 1.5 ms). For the few statements on
   * every session's path (kernel/support.ts: executeStatement); PGlite queues it behind any open
   * transaction, as it does Prisma's own queries.
   */
  direct?: (sql: Prisma.Sql) => Promise<{ rows: unknown[]; affectedRows: number }>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

type Log = (msg: string) => void;
type MigrateMode = NonNullable<DatabaseOptions["migrate"]>;

export async function openDatabase(opts: DatabaseOptions, log: Log = () => {}): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.migrate ?? "verify", log);
  return openPglite(opts.dataDir, opts.migrate ?? "apply", opts.loadDataDir, log);
}

async function openPostgres(url: string, mode: MigrateMode, log: Log): Promise<Database> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migrateOrVerify(fromPgClient(client), mode, log);
  } finally {
    await client.end();
  }
  // Bounded waits while PostgreSQL is unreachable or stops answering (pg-timeouts.ts): calls answer
  // 503 instead of hanging, and the pool reconnects by itself afterwards. The pool is ours so that
  // a checkout honours the budget of the call that waits for it (budget.ts); Prisma ends it on disconnect.
  const prisma = new PrismaClient({ adapter: new PrismaPg(new BudgetPool(poolConfig(url)), { disposeExternalPool: true }) });
  return database(prisma, "postgres", () => prisma.$disconnect());
}

async function openPglite(dataDir: string, mode: MigrateMode, loadDataDir: Blob | undefined, log: Log): Promise<Database> {
  const inMemory = dataDir.startsWith("memory://");
  let unlock = async () => {};
  if (!inMemory) {
    await mkdir(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  let pglite: PGlite | undefined;
  try {
    const started = performance.now();
    pglite = await PGlite.create({ dataDir, loadDataDir });
    log(`pglite: opened ${inMemory ? dataDir : path.resolve(dataDir)} in ${Math.round(performance.now() - started)} ms`);
    await migrateOrVerify(pglite, mode, log);
  } catch (err) {
    await pglite?.close().catch(() => {});
    await unlock();
    throw err;
  }
  const db = pglite;
  yieldBeforeStatements(db);
  // Its statements skip the Parse that yieldBeforeStatements takes the turn before: it takes it itself.
  cacheStatements(db, { turn: loopTurn });
  const statements = guardClose(db);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  const direct = async (sql: Prisma.Sql) => {
    const result = await db.query(sql.text, sql.values);
    return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
  };
  return {
    ...database(prisma, "pglite", async () => {
      const idle = await statements.closeWhenIdle(closeWaitMs);
      await prisma.$disconnect();
      if (idle) await db.close();
      else log(`pglite: statements still running after ${closeWaitMs} ms; the database is left open, not closed under them`);
      await unlock();
    }),
    direct,
  };
}

/**
 * The embedded database runs each statement synchronously on this thread, and its promises resolve
 * as microtasks: a chain of statements (a request's queries, and those of the requests behind it)
 * ran without the event loop getting a turn, while CDP messages, live-view frames and every other
 * socket waited (under 200 REST and GraphQL requests/s, event-loop delays of 0.35–0.75 s at p99 and
 * at most, and CDP round trips as slow; bench/relay.ts). One turn of the loop before each statement
 * bounds that wait to a single statement.
 */
function yieldBeforeStatements(db: PGlite): void {
  const raw = db.execProtocolRaw.bind(db);
  db.execProtocolRaw = async (...args: Parameters<PGlite["execProtocolRaw"]>) => {
    // A statement is several protocol messages (parse, describe, bind, execute, sync), each its own
    // call: the turn is taken before the one that starts it (Parse, or a simple Query) only.
    if (startsStatement(args[0])) await loopTurn();
    return raw(...args);
  };
}

const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const PARSE = 0x50; // 'P'
const QUERY = 0x51; // 'Q'
const startsStatement = (message: Uint8Array) => message[0] === PARSE || message[0] === QUERY;

/** How long a close waits for the statements already running. */
const closeWaitMs = 15_000;

/**
 * PGlite's close() runs its own end-of-connection protocol at once, not after the statements already
 * queued or running: a statement in flight at that moment left the process spinning at full CPU
 * for ever (a SIGTERM during the first start's writes never exited). So a close waits for every
 * call that has begun, and calls after it are refused, as they would be on a closed database.
 */
function guardClose(db: PGlite): { closeWhenIdle(timeoutMs: number): Promise<boolean> } {
  let running = 0;
  let closing = false;
  let idle: (() => void) | undefined;
  for (const method of ["query", "exec", "transaction"] as const) {
    const call = (db[method] as (...args: unknown[]) => Promise<unknown>).bind(db);
    (db as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      if (closing) throw new Error("the database is closed");
      running++;
      try {
        return await call(...args);
      } finally {
        if (--running === 0) idle?.();
      }
    };
  }
  return {
    async closeWhenIdle(timeoutMs) {
      closing = true;
      if (running === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        new Promise<true>((resolve) => (idle = () => resolve(true))),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]);
      clearTimeout(timer);
      return drained;
    },
  };
}

async function migrateOrVerify(conn: MigrationConnection, mode: MigrateMode, log: Log): Promise<void> {
  if (mode === "apply") {
    const started = performance.now();
    const applied = await applyMigrations(conn, undefined, log);
    log(`migrations: ${applied.length} applied in ${Math.round(performance.now() - started)} ms`);
    return;
  }
  const pending = await pendingMigrations(conn);
  if (pending.length > 0) {
    throw new Error(
      `the database is missing ${pending.length} migration(s): ${pending.join(", ")}; ` + "run `npm run db:migrate:deploy` with the same DATABASE_URL first",
    );
  }
}

function database(prisma: PrismaClient, kind: Database["kind"], shutdown: () => Promise<void>): Database {
  let closing: Promise<void> | undefined;
  return {
    prisma,
    kind,
    async ping() {
      // Prisma would quietly reconnect after $disconnect() and keep a new pool open.
      if (closing) throw new Error("the database is closed");
      await prisma.$queryRaw`SELECT 1`;
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

// PGlite does not guard its folder, and two processes writing to one folder lose rows.
const lockFileName = "vessel.lock";
const locksHeldHere = new Set<string>();

/** Takes the lock file of a PGlite data folder; resolves to the function that releases it. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = path.resolve(dataDir, lockFileName);
  for (let attempt = 1; ; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt === 3) throw err;
    }
    const holder = await readHolder(file);
    if (holder !== undefined && isHeld(holder, file)) {
      throw new Error(
        `the PGlite data folder ${path.resolve(dataDir)} is in use by process ${holder} (lock file ${file}); ` +
          "stop that process, or set DATABASE_URL to use PostgreSQL",
      );
    }
    await rm(file, { force: true }); // stale: its process is gone
  }
  locksHeldHere.add(file);
  return async () => {
    locksHeldHere.delete(file);
    if ((await readHolder(file)) === process.pid) await rm(file, { force: true });
  };
}

async function readHolder(file: string): Promise<number | undefined> {
  // A competing process may have created the file and not written its pid yet.
  for (let i = 0; i < 5; i++) {
    const text = await readFile(file, "utf8").catch(() => "");
    const pid = Number.parseInt(text, 10);
    if (pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

function isHeld(pid: number, file: string): boolean {
  // Our own pid in a lock we do not hold is left from an earlier run (containers reuse pid 1).
  if (pid === process.pid) return locksHeldHere.has(file);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
