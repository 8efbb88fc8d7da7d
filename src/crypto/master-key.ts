import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";

/**
 * The master key wraps secrets at rest (signing keys now, profile data keys later). It comes from
 * VESSEL_MASTER_KEY; an embedded deployment without one gets a key generated once into
 * `<dataDir>/master.key` (mode 0600), which is convenient but only as safe as that folder.
 */
export interface MasterKey {
  key: Buffer;
  /** A short fingerprint stored beside each ciphertext, so rotation can find what a key wrapped. */
  id: string;
}

export const MASTER_KEY_BYTES = 32;
export const masterKeyFileName = "master.key";

const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The first 16 hex characters of SHA-256 of the key: identifies it without revealing it. */
export function masterKeyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** Parses base64 text holding exactly 32 bytes, or returns undefined. */
function decode(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!base64.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, "base64");
  return key.length === MASTER_KEY_BYTES ? key : undefined;
}

function masterKey(key: Buffer): MasterKey {
  return { key, id: masterKeyId(key) };
}

export async function loadMasterKey(config: Pick<Config, "masterKey" | "database">, log: Logger): Promise<MasterKey> {
  if (config.masterKey) {
    const key = decode(config.masterKey);
    if (!key) throw new Error("VESSEL_MASTER_KEY: must be 32 bytes in base64 (openssl rand -base64 32)");
    return masterKey(key);
  }
  if (config.database.url) {
    // loadConfig refuses this too; a shared database must never get a per-node key.
    throw new Error("VESSEL_MASTER_KEY: required when DATABASE_URL is set (all nodes must share it)");
  }
  const { dataDir } = config.database;
  if (dataDir.startsWith("memory://")) {
    log.warn(
      "VESSEL_MASTER_KEY is not set and the data folder is in memory: using a throw-away master key. " + "Production deployments must set VESSEL_MASTER_KEY.",
    );
    return masterKey(randomBytes(MASTER_KEY_BYTES));
  }
  const file = path.resolve(dataDir, masterKeyFileName);
  const existing = await readKeyFile(file, log);
  if (existing) return masterKey(existing);

  const created = await createKeyFile(file);
  log.warn(
    { file },
    created.generated
      ? "VESSEL_MASTER_KEY is not set: generated a master key into the data folder. It encrypts signing keys and " +
          "profiles, so back it up with the data. Production deployments must set VESSEL_MASTER_KEY."
      : "VESSEL_MASTER_KEY is not set: using the master key in the data folder. Production deployments must set VESSEL_MASTER_KEY.",
  );
  return masterKey(created.key);
}

/** The key in `file`, or undefined when there is no file. A file that holds anything else is refused. */
async function readKeyFile(file: string, log: Logger): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const key = decode(text);
  if (!key) {
    // Never replace it: whatever it once held may be the only way to read existing data.
    throw new Error(
      `${file}: not a master key (expected 32 bytes in base64 on one line). Restore it from a backup, ` +
        "or set VESSEL_MASTER_KEY; it was not replaced because data encrypted under it would become unreadable.",
    );
  }
  const { mode } = await stat(file);
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    log.warn({ file, mode: (mode & 0o777).toString(8) }, "the master key file is readable by other users; chmod 600 it");
  }
  log.warn({ file }, "VESSEL_MASTER_KEY is not set: using the master key in the data folder. Production deployments must set VESSEL_MASTER_KEY.");
  return key;
}

/**
 * Writes a new key atomically and without clobbering: the key goes to a private temporary file
 * (0600, fsynced) that is then hard-linked to its final name. link() fails when the name exists, so
 * when two processes race, the loser reads the winner's key instead of replacing it.
 */
async function createKeyFile(file: string): Promise<{ key: Buffer; generated: boolean }> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(MASTER_KEY_BYTES);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(tmp, "wx", 0o600);
  try {
    await handle.writeFile(`${key.toString("base64")}\n`);
    await handle.chmod(0o600); // the umask may have narrowed, never widened, but be explicit
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const theirs = decode(await readFile(file, "utf8"));
    if (!theirs) throw new Error(`${file}: not a master key (expected 32 bytes in base64 on one line)`);
    return { key: theirs, generated: false };
  } finally {
    await unlink(tmp).catch(() => {});
  }
  await syncDir(path.dirname(file));
  return { key, generated: true };
}

async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every platform can fsync a directory; the key file itself is already durable.
  }
}
