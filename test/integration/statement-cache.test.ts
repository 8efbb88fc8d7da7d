import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { openDatabase, type Database } from "../../src/db/client.ts";
import { cacheStatements } from "../../src/db/statement-cache.ts";
import { Prisma } from "../../src/generated/prisma/client.ts";

// The embedded database's named prepared statements (src/db/statement-cache.ts), on a real PGlite.
// What PostgreSQL itself holds is read with a simple Query (db.exec), which the cache never touches.

const prepared = async (db: PGlite) =>
  (await db.exec(`SELECT name, statement FROM pg_prepared_statements ORDER BY name`))[0]!.rows as { name: string; statement: string }[];

describe("named prepared statements on the embedded database", () => {
  // One database for the tests (starting one takes seconds on a busy machine); each test its own table.
  let shared: PGlite;
  const fresh = async (table: string) => {
    await shared.exec(`CREATE TABLE ${table} (id text PRIMARY KEY, at timestamptz, doc jsonb, tags text[], ok boolean)`);
    return shared;
  };
  const held = async (pattern: RegExp) => (await prepared(shared)).map((p) => p.statement).filter((s) => pattern.test(s));
  beforeAll(async () => {
    shared = await PGlite.create();
    cacheStatements(shared, { limit: 10 });
  });
  afterAll(async () => {
    await shared.close();
  });

  test("a statement run again is parsed once, and every run binds its own values of every type", async () => {
    const db = await fresh("t1");
    const insert = `INSERT INTO t1 (id, at, doc, tags, ok) VALUES ($1::text, $2::timestamptz, $3::jsonb, $4::text[], $5::boolean)`;
    const at = new Date("2026-11-26T12:00:00.123Z");
    for (let i = 0; i < 7; i++) {
      await db.query(insert, [`r${i}`, new Date(at.getTime() + i), JSON.stringify({ i, s: "é\u0000".slice(0, 1) }), [`a${i}`, "b"], i % 2 === 0 ? true : null]);
    }
    const read = `SELECT id, at, doc, tags, ok FROM t1 WHERE id = $1`;
    for (let i = 0; i < 7; i++) {
      const { rows } = await db.query<{ id: string; at: Date; doc: { i: number; s: string }; tags: string[]; ok: boolean | null }>(read, [`r${i}`]);
      expect(rows).toEqual([{ id: `r${i}`, at: new Date(at.getTime() + i), doc: { i, s: "é" }, tags: [`a${i}`, "b"], ok: i % 2 === 0 ? true : null }]);
    }
    expect(await held(/\bt1\b/)).toEqual([insert, read]);
  });

  test("past its limit, new texts run unnamed and still answer", async () => {
    const db = await PGlite.create();
    try {
      cacheStatements(db, { limit: 2 });
      for (let n = 1; n <= 4; n++) {
        for (let run = 0; run < 2; run++) expect((await db.query<{ n: number }>(`SELECT $1::int + ${n} AS n`, [run])).rows).toEqual([{ n: run + n }]);
      }
      expect((await prepared(db)).map((p) => p.statement)).toEqual([`SELECT $1::int + 1 AS n`, `SELECT $1::int + 2 AS n`]);
    } finally {
      await db.close();
    }
  });

  test("a statement that fails to parse is not kept, and one that fails as it runs stays usable", async () => {
    const db = await fresh("t3");
    await expect(db.query(`SELEC $1::int`, [1])).rejects.toThrow(/syntax error/);
    await expect(db.query(`SELEC $1::int`, [1])).rejects.toThrow(/syntax error/);
    const insert = `INSERT INTO t3 (id) VALUES ($1::text)`;
    await db.query(insert, ["same"]);
    await expect(db.query(insert, ["same"])).rejects.toThrow(/duplicate key/);
    await db.query(insert, ["other"]);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM t3`)).rows).toEqual([{ n: 2 }]);
    expect(await held(/\bt3\b|SELEC \$/)).toEqual([insert, `SELECT count(*)::int AS n FROM t3`]);
  });

  test("inside transactions, committed and rolled back alike", async () => {
    const db = await fresh("t4");
    const insert = `INSERT INTO t4 (id) VALUES ($1::text)`;
    await db.transaction(async (tx) => {
      await tx.query(insert, ["kept"]);
    });
    await db.transaction(async (tx) => {
      await tx.query(insert, ["undone"]);
      await tx.rollback();
    });
    await db.query(insert, ["after"]);
    expect((await db.query<{ id: string }>(`SELECT id FROM t4 ORDER BY id`)).rows.map((r) => r.id)).toEqual(["after", "kept"]);
  });
});

describe("the node's embedded database", () => {
  let db: Database | undefined;
  afterEach(async () => {
    await db?.close();
  });

  test("keeps the statements Prisma and the direct path run as prepared statements", async () => {
    db = await openDatabase({ dataDir: "memory://" });
    for (let i = 0; i < 3; i++) {
      await db.direct!(Prisma.sql`SELECT ${i}::int AS n`);
      await db.prisma.workspace.count();
    }
    const rows = await db.prisma.$queryRawUnsafe<{ statement: string }[]>(`SELECT statement FROM pg_prepared_statements`);
    expect(rows.map((r) => r.statement)).toEqual(expect.arrayContaining([`SELECT $1::int AS n`, expect.stringMatching(/SELECT COUNT\(\*\)/i)]));
  });
});
