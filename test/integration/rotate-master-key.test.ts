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
import { createSession, eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const run = promisify(execFile);
const hasChromium = chromiumPath() !== undefined;
if (servicesRequired && !hasChromium) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1)");

describe("scripts/rotate-master-key.ts", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-rotate-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Two PGlite openings, two app starts and a child process: slow on a loaded 2-core machine.
  it.skipIf(!hasChromium)(
    "re-wraps profiles, signing keys and queued sessions' inputs of an embedded deployment and replaces its generated key file",
    { timeout: 240_000 },
    async () => {
      // An embedded deployment whose master key was generated into its data folder.
      let db = await openDatabase({ dataDir: path.join(dir, "pglite") });
      // One browser: a second create waits in the admission queue (its input sealed under the master key).
      const env1 = { VESSEL_DATA_DIR: dir, VESSEL_BROWSER_CAPACITY: "1" };
      const app = await startTestApp({ db, env: env1 });
      let profileId: string;
      let exported: unknown;
      let apiKey: string;
      let queuedId: string;
      let workspaceId: string;
      try {
        const ws = await seedWorkspace(app);
        apiKey = ws.key;
        workspaceId = ws.workspace.id;
        // One running, one waiting behind it through the rotation.
        const created = [await createSession(app, ws.key), await createSession(app, ws.key, { region: "us-east1", queue_timeout_seconds: 600 })];
        expect(created.map((c) => [c.res.status, c.body.status])).toEqual([
          [201, "RUNNING"],
          [202, "QUEUED"],
        ]);
        queuedId = created[1]!.body.id;
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

      const env: NodeJS.ProcessEnv = {
        ...process.env,
        VESSEL_DATA_DIR: dir,
        VESSEL_OLD_MASTER_KEY: oldKey,
        VESSEL_NEW_MASTER_KEY: newKey,
        LOG_LEVEL: "silent",
      };
      delete env.DATABASE_URL;
      delete env.VESSEL_MASTER_KEY;
      const { stderr } = await run(process.execPath, ["--import", "tsx", "scripts/rotate-master-key.ts"], { env, timeout: 120_000 });
      expect(stderr).toMatch(/profiles: +1 re-wrapped/);
      expect(stderr).toMatch(/signing keys: +1 re-wrapped/);
      expect(stderr).toMatch(/queued sessions: +1 re-sealed, 0 already under the new key, 0 under another key, 0 failed/);
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
        const entry = await db.prisma.sessionQueueEntry.findUniqueOrThrow({ where: { sessionId: queuedId } });
        expect(entry.masterKeyId).toBe(next.id);
        expect(open(next.key, entry.input, `session-queue:${queuedId}`).toString("utf8")).toContain("queue_timeout_seconds");
      } finally {
        await db.close();
      }

      // The server starts on the new key file and reads the profile as before.
      db = await openDatabase({ dataDir: path.join(dir, "pglite") });
      const restarted = await startTestApp({ db, env: env1 });
      try {
        expect(restarted.app.deps.masterKey.id).toBe(next.id);
        // The session that waited through the rotation starts on the new key (its running one ended with the old node).
        const started = await eventually(
          () => restarted.app.deps.db.prisma.session.findUnique({ where: { id: queuedId } }),
          (s) => s?.status === "RUNNING",
          60_000,
        );
        expect(started).toMatchObject({ status: "RUNNING", workspaceId });
        const seen = (await (await fetch(`${restarted.url}/v1/sessions/${queuedId}`, { headers: bearer(apiKey) })).json()) as { connect_url: string | null };
        expect(seen.connect_url).toMatch(/^ws:/);
        const res = await fetch(`${restarted.url}/v1/profiles/${profileId}/storage-state`, { headers: bearer(apiKey) });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual(exported);
      } finally {
        await restarted.stop();
        await db.close();
      }
    },
  );
});
