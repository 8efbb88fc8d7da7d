import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { openSecrets } from "../../src/services/credentials/credential-secrets.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

const key = (b64: string) => ({ key: Buffer.from(b64, "base64"), id: masterKeyId(Buffer.from(b64, "base64")) });

describeEachBackend("credentials without a browser", (backend) => {
  let tdb: TestDatabase;
  const oldKey = randomBytes(32).toString("base64");
  const newKey = randomBytes(32).toString("base64");
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
  });
  afterAll(async () => tdb?.dispose());

  const call = (t: TestApp, k: string, method: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(k), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("stores sealed, replaces secrets, and survives a master-key rotation", async () => {
    let t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: oldKey } });
    let ws: Seeded;
    let id: string;
    try {
      ws = await seedWorkspace(t, { scopes: ["credentials:manage"] });
      const created = await call(t, ws.key, "POST", "/v1/credentials", {
        name: "crm",
        origins: ["https://login.example.com"],
        username: "agent@example.com",
        password: "first-password",
      });
      expect(created.status).toBe(201);
      const body = (await created.json()) as { id: string; has_totp: boolean; username_hint: string };
      expect(body).toMatchObject({ has_totp: false, username_hint: "a•••@example.com" });
      id = body.id;
      const patched = await call(t, ws.key, "PATCH", `/v1/credentials/${id}`, { password: "second-password", totp_secret: "JBSWY3DPEHPK3PXP" });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ has_totp: true });
      // A key with manage only may list, but not fill: that needs credentials:use.
      expect((await call(t, ws.key, "GET", "/v1/credentials")).status).toBe(200);
      expect((await call(t, ws.key, "POST", `/v1/sessions/ses_x/credentials/${id}/fill`, {})).status).toBe(403);
    } finally {
      await t.stop();
    }

    const report = await rotateMasterKey(tdb.db.prisma, key(oldKey), key(newKey));
    expect(report.credentials).toEqual({ rewrapped: 1, alreadyNew: 0, otherKey: 0, failed: [] });
    const row = await tdb.db.prisma.credential.findUniqueOrThrow({ where: { id: id! } });
    expect(openSecrets(key(newKey), row)).toEqual({ username: "agent@example.com", password: "second-password", totp_secret: "JBSWY3DPEHPK3PXP" });

    t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: newKey } });
    try {
      // Replacing one secret opens the others under the new key.
      expect((await call(t, ws!.key, "PATCH", `/v1/credentials/${id!}`, { username: "other@example.com" })).status).toBe(200);
      expect((await call(t, ws!.key, "DELETE", `/v1/credentials/${id!}`)).status).toBe(204);
      expect(await tdb.db.prisma.credential.count({ where: { id: id! } })).toBe(0);
    } finally {
      await t.stop();
    }
  });
});
