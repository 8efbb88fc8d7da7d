// Re-wraps everything the master key protects under a new key, without decrypting any profile payload.
//   VESSEL_OLD_MASTER_KEY=<base64> VESSEL_NEW_MASTER_KEY=<base64> npx tsx scripts/rotate-master-key.ts
// Uses the configured database (DATABASE_URL, or the embedded one in the data folder: stop the server
// first, it holds the folder). Run it while the nodes are stopped, or run it again after restarting
// them with VESSEL_MASTER_KEY=<new key>: a run only touches rows still under the old key.
// Embedded deployments that use the generated `<data folder>/master.key` get that file replaced with
// the new key once every row has been re-wrapped.
import { randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../src/config.ts";
import { masterKeyFileName, masterKeyId, type MasterKey } from "../src/crypto/master-key.ts";
import { openDatabase } from "../src/db/client.ts";
import { createLogger } from "../src/logger.ts";
import { rotateMasterKey } from "../src/services/maintenance/master-key-rotation.ts";

function keyFrom(name: string): MasterKey {
  const text = process.env[name]?.trim();
  if (!text) throw new Error(`${name} is not set (32 random bytes in base64, as VESSEL_MASTER_KEY)`);
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, "base64") : Buffer.alloc(0);
  if (key.length !== 32) throw new Error(`${name}: must be 32 bytes in base64 (openssl rand -base64 32)`);
  return { key, id: masterKeyId(key) };
}

async function main(): Promise<number> {
  const oldKey = keyFrom("VESSEL_OLD_MASTER_KEY");
  const newKey = keyFrom("VESSEL_NEW_MASTER_KEY");
  // The configuration is read for the database only; a shared database needs VESSEL_MASTER_KEY set,
  // which after this run must be the new key.
  const config = loadConfig({ ...process.env, VESSEL_MASTER_KEY: process.env.VESSEL_NEW_MASTER_KEY });
  const log = createLogger(config.logLevel === "info" ? "warn" : config.logLevel);
  const dataDir = path.join(config.database.dataDir, "pglite");
  const db = await openDatabase({ url: config.database.url, dataDir });
  try {
    const report = await rotateMasterKey(db.prisma, oldKey, newKey, log);
    process.stderr.write(
      `rotate-master-key: ${oldKey.id} -> ${newKey.id} in ${db.kind === "pglite" ? path.resolve(dataDir) : "PostgreSQL"}\n` +
        `  profiles:            ${report.profiles.rewrapped} re-wrapped, ${report.profiles.alreadyNew} already under the new key, ` +
        `${report.profiles.otherKey} under another key, ${report.profiles.failed.length} failed${report.profiles.failed.length ? ` (${report.profiles.failed.join(", ")})` : ""}\n` +
        `  signing keys:        ${report.signingKeys.rewrapped} re-wrapped, ${report.signingKeys.alreadyNew} already under the new key, ` +
        `${report.signingKeys.otherKey} under another key, ${report.signingKeys.failed.length} failed\n` +
        `  recordings:          ${report.recordings.rewrapped} re-wrapped, ${report.recordings.alreadyNew} already under the new key, ` +
        `${report.recordings.otherKey} under another key, ${report.recordings.failed.length} failed\n` +
        `  idempotent answers:  ${report.idempotencyRecords.rewrapped} re-sealed, ${report.idempotencyRecords.skipped} left\n` +
        `  session log keys:    ${report.sessionLogKeys.rewrapped} re-wrapped, ${report.sessionLogKeys.alreadyNew} already under the new key, ` +
        `${report.sessionLogKeys.otherKey} under another key, ${report.sessionLogKeys.failed.length} failed\n` +
        `  extensions:          ${report.extensions.rewrapped} re-wrapped, ${report.extensions.alreadyNew} already under the new key, ` +
        `${report.extensions.otherKey} under another key, ${report.extensions.failed.length} failed\n` +
        `  webhook secrets:     ${report.webhookSecrets.rewrapped + report.webhookPreviousSecrets.rewrapped} re-sealed, ` +
        `${report.webhookSecrets.alreadyNew + report.webhookPreviousSecrets.alreadyNew} already under the new key, ` +
        `${report.webhookSecrets.otherKey + report.webhookPreviousSecrets.otherKey} under another key, ${report.webhookSecrets.failed.length + report.webhookPreviousSecrets.failed.length} failed\n` +
        `  credentials:         ${report.credentials.rewrapped} re-wrapped, ${report.credentials.alreadyNew} already under the new key, ` +
        `${report.credentials.otherKey} under another key, ${report.credentials.failed.length} failed\n` +
        `  queued sessions:     ${report.queuedSessions.rewrapped} re-sealed, ${report.queuedSessions.alreadyNew} already under the new key, ` +
        `${report.queuedSessions.otherKey} under another key, ${report.queuedSessions.failed.length} failed\n`,
    );
    const failed =
      report.profiles.failed.length +
      report.signingKeys.failed.length +
      report.recordings.failed.length +
      report.sessionLogKeys.failed.length +
      report.extensions.failed.length +
      report.webhookSecrets.failed.length +
      report.webhookPreviousSecrets.failed.length +
      report.credentials.failed.length +
      report.queuedSessions.failed.length;
    if (failed === 0 && !config.database.url && !process.env.VESSEL_MASTER_KEY) await replaceKeyFile(config.database.dataDir, oldKey, newKey);
    else if (failed === 0) process.stderr.write("  Now run every node with VESSEL_MASTER_KEY set to the new key.\n");
    return failed === 0 ? 0 : 1;
  } finally {
    await db.close();
  }
}

/** The embedded deployment's generated key file, when it holds the old key, now holds the new one (atomically). */
async function replaceKeyFile(dataDir: string, oldKey: MasterKey, newKey: MasterKey): Promise<void> {
  const file = path.resolve(dataDir, masterKeyFileName);
  const current = await readFile(file, "utf8").catch(() => undefined);
  if (current === undefined || Buffer.from(current.trim(), "base64").equals(oldKey.key) === false) {
    process.stderr.write(`  ${file} does not hold the old key; left as it is. Start the server with VESSEL_MASTER_KEY set to the new key.\n`);
    return;
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, `${newKey.key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  await rename(tmp, file);
  process.stderr.write(`  ${file} now holds the new key.\n`);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`rotate-master-key: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
