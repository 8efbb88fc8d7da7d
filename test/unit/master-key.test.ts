import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile, readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadMasterKey, masterKeyId } from "../../src/crypto/master-key.ts";
import { createLogger } from "../../src/logger.ts";
import type { Logger } from "../../src/logger.ts";

function capturingLogger(): { log: Logger; lines: () => string[] } {
  const out: string[] = [];
  const log = createLogger("debug", { write: (s: string) => void out.push(s) });
  return { log, lines: () => out.map((l) => (JSON.parse(l) as { msg: string }).msg) };
}

describe("master key", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "vessel-mk-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const embedded = (dataDir: string) => ({ database: { dataDir }, masterKey: undefined });

  test("generated once into <dataDir>/master.key with mode 0600, with a warning, then reused", async () => {
    const dataDir = path.join(dir, "data"); // does not exist yet
    const first = capturingLogger();
    const a = await loadMasterKey(embedded(dataDir), first.log);
    expect(a.key.length).toBe(32);
    expect(a.id).toMatch(/^[0-9a-f]{16}$/);
    expect(a.id).toBe(masterKeyId(a.key));
    const file = path.join(dataDir, "master.key");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(file, "utf8")).trim(), "base64").equals(a.key)).toBe(true);
    expect(first.lines().some((m) => m.includes("VESSEL_MASTER_KEY") && /production/i.test(m))).toBe(true);
    expect((await readdir(dataDir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    const second = capturingLogger();
    const b = await loadMasterKey(embedded(dataDir), second.log);
    expect(b.key.equals(a.key)).toBe(true);
    expect(b.id).toBe(a.id);
    expect(second.lines().some((m) => m.includes("VESSEL_MASTER_KEY"))).toBe(true);
  });

  test("processes racing to generate end up with the same key", async () => {
    const dataDir = path.join(dir, "race");
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadMasterKey(embedded(dataDir), createLogger("silent"))));
    for (const k of keys) expect(k.key.equals(keys[0]!.key)).toBe(true);
    expect(Buffer.from((await readFile(path.join(dataDir, "master.key"), "utf8")).trim(), "base64").equals(keys[0]!.key)).toBe(true);
    expect((await readdir(dataDir)).sort()).toEqual(["master.key"]);
  });

  test("a configured key wins over the file and writes nothing", async () => {
    const configured = randomBytes(32);
    const dataDir = path.join(dir, "cfg");
    const k = await loadMasterKey({ database: { dataDir }, masterKey: configured.toString("base64") }, createLogger("silent"));
    expect(k.key.equals(configured)).toBe(true);
    expect(k.id).toBe(masterKeyId(configured));
    await expect(stat(path.join(dataDir, "master.key"))).rejects.toThrow(/ENOENT/);

    // And with a file present, the configured key is still the one used.
    const fileKey = await loadMasterKey(embedded(dataDir), createLogger("silent"));
    expect(fileKey.key.equals(configured)).toBe(false);
    const again = await loadMasterKey({ database: { dataDir }, masterKey: configured.toString("base64") }, createLogger("silent"));
    expect(again.key.equals(configured)).toBe(true);
  });

  test("fingerprints differ between keys", () => {
    expect(masterKeyId(randomBytes(32))).not.toBe(masterKeyId(randomBytes(32)));
  });

  for (const [name, content] of [
    ["not base64", "this is not a key\n"],
    ["16 bytes", `${randomBytes(16).toString("base64")}\n`],
    ["33 bytes", `${randomBytes(33).toString("base64")}\n`],
    ["empty", ""],
  ] as const) {
    test(`a malformed file (${name}) is refused and left alone`, async () => {
      const file = path.join(dir, "master.key");
      await writeFile(file, content, { mode: 0o600 });
      await expect(loadMasterKey(embedded(dir), createLogger("silent"))).rejects.toThrow(/not a master key/);
      expect(await readFile(file, "utf8")).toBe(content);
    });
  }

  test("a file with surrounding whitespace is accepted", async () => {
    const key = randomBytes(32);
    await writeFile(path.join(dir, "master.key"), `  ${key.toString("base64")}\r\n\n`, { mode: 0o600 });
    expect((await loadMasterKey(embedded(dir), createLogger("silent"))).key.equals(key)).toBe(true);
  });

  test("a shared database without a configured key is refused", async () => {
    await expect(
      loadMasterKey({ database: { dataDir: dir, url: "postgresql://x@localhost/db" }, masterKey: undefined }, createLogger("silent")),
    ).rejects.toThrow(/VESSEL_MASTER_KEY/);
  });

  test("an in-memory data folder gets a throw-away key and no file", async () => {
    const a = await loadMasterKey(embedded("memory://"), createLogger("silent"));
    const b = await loadMasterKey(embedded("memory://"), createLogger("silent"));
    expect(a.key.length).toBe(32);
    expect(a.key.equals(b.key)).toBe(false);
  });
});
