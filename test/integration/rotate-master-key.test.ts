import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { openProfile } from "../../src/crypto/profile-crypto.ts";
import { open } from "../../src/crypto/envelope.ts";
import { openDatabase } from "../../src/db/client.ts";
import { bearer, seedWorkspace, startTestApp } from "../support/app.ts";

const run = promisify(execFile);

describe("scripts/rotate-master-key.ts", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-rotate-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Two PGlite openings, two app starts and a child process: slow on a loaded 2-core machine.
  it("re-wraps profiles and signing keys of an embedded deployment and replaces its generated key file", { timeout: 180_000 }, async () => {
    // An embedded deployment whose master key was generated into its data folder.
    let db = await openDatabase({ dataDir: path.join(dir, "pglite") });
    const app = await startTestApp({ db, env: { VESSEL_DATA_DIR: dir }, startBrowsers: false });
    let profileId: string;
    let exported: unknown;
    let apiKey: string;
    try {
      const ws = await seedWorkspace(app);
      apiKey = ws.key;
      const state = { cookies: [{ name: "sid", value: "rotate-secret", domain: "example.com", path: "/", httpOnly: true }], origins: [] };
      const res = await fetch(`${app.url}/v1/profiles`, {
        method: "POST",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ label: "p", storage_state: state }),
      });
      expect(res.status).toBe(201);
      profileId = ((await res.json()) as { profile_id: string }).profile_id;
      exported = await (await fetch(`${app.url}/v1/profiles/${profileId}/storage-state`, { headers: bearer(ws.key) })).json();
      // Minting a token creates the node's signing key, sealed under the master key.
      await app.app.deps.tokens.mint({ sessionId: "ses_x", workspaceId: ws.workspace.id, audience: "cdp", expiresAt: new Date(Date.now() + 60_000) });
    } finally {
      await app.stop();
      await db.close();
    }
    const oldKey = fs.readFileSync(path.join(dir, "master.key"), "utf8").trim();
    const newKey = randomBytes(32).toString("base64");

    const env: NodeJS.ProcessEnv = { ...process.env, VESSEL_DATA_DIR: dir, VESSEL_OLD_MASTER_KEY: oldKey, VESSEL_NEW_MASTER_KEY: newKey, LOG_LEVEL: "silent" };
    delete env.DATABASE_URL;
    delete env.VESSEL_MASTER_KEY;
    const { stderr } = await run(process.execPath, ["--import", "tsx", "scripts/rotate-master-key.ts"], { env, timeout: 120_000 });
    expect(stderr).toMatch(/profiles: +1 re-wrapped/);
    expect(stderr).toMatch(/signing keys: +1 re-wrapped/);
    expect(stderr).toContain("now holds the new key");
    expect(fs.readFileSync(path.join(dir, "master.key"), "utf8").trim()).toBe(newKey);
    // A wrong old key is refused before anything is opened.
    await expect(
      run(process.execPath, ["--import", "tsx", "scripts/rotate-master-key.ts"], { env: { ...env, VESSEL_OLD_MASTER_KEY: "short" }, timeout: 60_000 }),
    ).rejects.toThrow(/must be 32 bytes/);

    const next = { key: Buffer.from(newKey, "base64"), id: masterKeyId(Buffer.from(newKey, "base64")) };
    db = await openDatabase({ dataDir: path.join(dir, "pglite") });
    try {
      const row = await db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
      expect(row.masterKeyId).toBe(next.id);
      expect(openProfile(next, row).toString("utf8")).toContain("rotate-secret");
      for (const k of await db.prisma.signingKey.findMany()) {
        expect(k.masterKeyId).toBe(next.id);
        expect(() => open(next.key, k.privateKeyEncrypted, `signing_keys:${k.id}`)).not.toThrow();
      }
    } finally {
      await db.close();
    }

    // The server starts on the new key file and reads the profile as before.
    db = await openDatabase({ dataDir: path.join(dir, "pglite") });
    const restarted = await startTestApp({ db, env: { VESSEL_DATA_DIR: dir }, startBrowsers: false });
    try {
      expect(restarted.app.deps.masterKey.id).toBe(next.id);
      const res = await fetch(`${restarted.url}/v1/profiles/${profileId}/storage-state`, { headers: bearer(apiKey) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(exported);
    } finally {
      await restarted.stop();
      await db.close();
    }
  });
});
