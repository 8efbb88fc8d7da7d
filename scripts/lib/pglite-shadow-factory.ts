import { messages, PGlite } from "@electric-sql/pglite";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { pgliteDump } from "./pglite-dumps.ts";

/**
 * A driver adapter factory for the wasm schema engine whose shadow databases are throw-away
 * in-memory PGlite instances, so diffing needs no PostgreSQL and can never touch a real database.
 * The main database is `main` when given (left open), else another throw-away instance.
 */
export class PgliteShadowFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "postgres";
  readonly adapterName = "pglite-prisma-adapter";
  private readonly instances = new Set<PGlite>();

  constructor(private readonly main?: PGlite) {}

  async connect(): Promise<SqlDriverAdapter> {
    if (!this.main) return this.open();
    const main = this.main;
    const adapter = await new PrismaPGlite(main).connect();
    return Object.assign(adapter, { executeScript: (script: string) => execScript(main, script) });
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.open();
  }

  async close(): Promise<void> {
    await Promise.all([...this.instances].map((db) => db.close().catch(() => {})));
    this.instances.clear();
  }

  private async open(): Promise<SqlDriverAdapter> {
    const db = await PGlite.create({ loadDataDir: await pgliteDump("empty") });
    this.instances.add(db);
    const adapter = await new PrismaPGlite(db).connect();
    return Object.assign(adapter, {
      // pglite-prisma-adapter 0.7.2 does not await exec(): a failing script would count as applied
      // and crash the process with an unhandled rejection.
      executeScript: (script: string) => execScript(db, script),
      // Upstream dispose() leaves the instance running.
      dispose: async () => {
        this.instances.delete(db);
        await db.close();
      },
    });
  }
}

async function execScript(db: PGlite, script: string): Promise<void> {
  try {
    await db.exec(script);
  } catch (err) {
    throw toDriverAdapterError(err);
  }
}

function toDriverAdapterError(err: unknown): unknown {
  if (!(err instanceof messages.DatabaseError)) return err;
  return new DriverAdapterError({
    kind: "postgres",
    code: err.code ?? "",
    severity: err.severity ?? "ERROR",
    message: err.message,
    detail: err.detail,
    column: err.column,
    hint: err.hint,
  });
}
