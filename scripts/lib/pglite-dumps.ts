import { createHash } from "node:crypto";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { applyMigrations, readMigrations } from "../../src/db/migrate.ts";

export type DumpContents = "empty" | "migrated";

const dumps = new Map<DumpContents, Promise<Blob>>();

/**
 * A `dumpDataDir()` tarball of a fresh PGlite cluster, empty or with prisma/migrations applied.
 * initdb (plus migrations) takes seconds and loading a tarball about one, so each is built once
 * and kept in the temp folder, keyed by the PGlite version and the migrations' checksums.
 */
export function pgliteDump(contents: DumpContents): Promise<Blob> {
  let dump = dumps.get(contents);
  if (!dump) {
    dump = loadOrBuild(contents);
    dumps.set(contents, dump);
  }
  return dump;
}

async function loadOrBuild(contents: DumpContents): Promise<Blob> {
  const prefix = `vessel-pglite-${contents}-`;
  const file = path.join(os.tmpdir(), `${prefix}${await dumpKey(contents)}.tar`);
  const cached = await readFile(file).catch(() => undefined);
  if (cached) return new Blob([cached]);
  const db = await PGlite.create("memory://");
  try {
    if (contents === "migrated") await applyMigrations(db);
    const blob = await db.dumpDataDir("none");
    await removeOlderDumps(prefix, file);
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, new Uint8Array(await blob.arrayBuffer()));
    await rename(partial, file); // atomic: a concurrent process never reads half a file
    return blob;
  } finally {
    await db.close();
  }
}

async function dumpKey(contents: DumpContents): Promise<string> {
  const require = createRequire(import.meta.url);
  const pkg = path.join(path.dirname(require.resolve("@electric-sql/pglite")), "..", "package.json");
  const { version } = JSON.parse(await readFile(pkg, "utf8")) as { version: string };
  const hash = createHash("sha256").update(`pglite ${version}\n`);
  if (contents === "migrated") for (const m of await readMigrations()) hash.update(`${m.name} ${m.checksum}\n`);
  return hash.digest("hex").slice(0, 16);
}

// Each dump is 40 MB; those of older migrations or PGlite versions are of no further use.
async function removeOlderDumps(prefix: string, keep: string): Promise<void> {
  const dumpName = new RegExp(`^${prefix}[0-9a-f]{16}\\.tar$`);
  for (const name of await readdir(os.tmpdir())) {
    const file = path.join(os.tmpdir(), name);
    if (dumpName.test(name) && file !== keep) await rm(file, { force: true });
  }
}
