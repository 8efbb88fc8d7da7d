import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { open, seal } from "../../src/crypto/envelope.ts";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { fromStorageState } from "../../src/browser/profiles/format.ts";
import { Prisma } from "../../src/generated/prisma/client.ts";
import { auditInsertSql } from "../../src/services/audit/audit.ts";
import { readDocument, sealDocument, storeSealed } from "../../src/services/profiles/profile-documents.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

const key = (b64: string) => ({ key: Buffer.from(b64, "base64"), id: masterKeyId(Buffer.from(b64, "base64")) });

describeEachBackend("profiles without a browser", (backend) => {
  let tdb: TestDatabase;
  const oldKey = randomBytes(32).toString("base64");
  const newKey = randomBytes(32).toString("base64");
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
  });
  afterAll(async () => tdb?.dispose());

  const call = (t: TestApp, ws: Seeded, method: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(ws.key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("imports, exports, refuses tampering, and survives a master-key rotation", async () => {
    const state = {
      cookies: [{ name: "sid", value: `v-${randomUUID()}`, domain: ".example.com", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Strict" }],
      origins: [{ origin: "https://example.com", localStorage: [{ name: "t", value: "1" }], sessionStorage: [{ name: "s", value: "2" }] }],
    };
    let t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: oldKey } });
    let ws: Seeded;
    let id: string;
    let tampered: string;
    try {
      ws = await seedWorkspace(t);
      const created = await call(t, ws, "POST", "/v1/profiles", { label: "p", storage_state: state });
      expect(created.status).toBe(201);
      id = ((await created.json()) as { profile_id: string }).profile_id;
      const exported = await call(t, ws, "GET", `/v1/profiles/${id}/storage-state`);
      expect(await exported.json()).toEqual({ ...state, cookies: [{ ...state.cookies[0], sameSite: "Strict" }] });

      tampered = ((await (await call(t, ws, "POST", "/v1/profiles", { label: "bad", storage_state: state })).json()) as { profile_id: string }).profile_id;
      await tdb.db.prisma.$executeRawUnsafe("UPDATE profiles SET ciphertext = set_byte(ciphertext, 5, get_byte(ciphertext, 5) # 1) WHERE id = $1", tampered);
      expect((await call(t, ws, "GET", `/v1/profiles/${tampered}/storage-state`)).status).toBe(422);

      await t.app.deps.tokens.mint({ sessionId: "ses_x", workspaceId: ws.workspace.id, audience: "cdp", expiresAt: new Date(Date.now() + 60_000) });
      // A stored idempotent answer, sealed the way the sessions service seals it.
      const idemKey = randomUUID();
      await tdb.db.prisma.idempotencyRecord.create({
        data: {
          workspaceId: ws.workspace.id,
          key: idemKey,
          fingerprint: "f",
          state: "COMPLETED",
          responseStatus: 201,
          responseBody: { sealed: seal(key(oldKey).key, Buffer.from('{"id":"ses_x"}'), `idempotency:${ws.workspace.id}:${idemKey}`).toString("base64") },
          expiresAt: new Date(Date.now() + 3600_000),
        },
      });
    } finally {
      await t.stop();
    }

    const report = await rotateMasterKey(tdb.db.prisma, key(oldKey), key(newKey));
    // The tampered payload is not opened by a rotation: its data key re-wraps like any other.
    expect(report.profiles).toEqual({ rewrapped: 2, alreadyNew: 0, otherKey: 0, failed: [] });
    expect(report.signingKeys.rewrapped).toBeGreaterThan(0);
    expect(report.idempotencyRecords.rewrapped).toBeGreaterThanOrEqual(1);
    const record = await tdb.db.prisma.idempotencyRecord.findFirstOrThrow({ where: { workspaceId: ws!.workspace.id } });
    const sealed = Buffer.from((record.responseBody as { sealed: string }).sealed, "base64");
    expect(open(key(newKey).key, sealed, `idempotency:${ws!.workspace.id}:${record.key}`).toString()).toBe('{"id":"ses_x"}');

    t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: newKey } });
    try {
      expect((await call(t, ws!, "GET", `/v1/profiles/${id!}/storage-state`)).status).toBe(200);
      expect((await call(t, ws!, "GET", `/v1/profiles/${tampered!}/storage-state`)).status).toBe(422);
      expect((await call(t, ws!, "DELETE", `/v1/profiles/${id!}`)).status).toBe(204);
      expect(await tdb.db.prisma.profile.count({ where: { id: id! } })).toBe(0);
    } finally {
      await t.stop();
    }
  });

  it("a save replaces the sealed document and its counts in one statement, audited only when the profile is there", async () => {
    const t = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: oldKey } });
    try {
      const ws = await seedWorkspace(t);
      const first = { cookies: [], origins: [{ origin: "https://a.example", localStorage: [{ name: "k", value: "1" }], sessionStorage: [] }] };
      const created = await call(t, ws, "POST", "/v1/profiles", { label: "p", storage_state: first });
      const before = (await created.json()) as { profile_id: string; created_at: string };
      const id = before.profile_id;
      const row = { id, workspaceId: ws.workspace.id };
      const now = new Date();
      const { id: sessionId } = await tdb.db.prisma.session.create({
        data: {
          id: `ses_${randomUUID()}`,
          workspaceId: ws.workspace.id,
          status: "RUNNING",
          region: "us-east1",
          timeoutSeconds: 60,
          idleTimeoutSeconds: 60,
          createdAt: now,
          expiresAt: new Date(now.getTime() + 60_000),
        },
        select: { id: true },
      });
      const doc = fromStorageState({
        cookies: [{ name: "sid", value: `v-${randomUUID()}`, domain: ".example.com", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" }],
        origins: [
          {
            origin: "https://b.example",
            localStorage: [
              { name: "x", value: "2" },
              { name: "y", value: "3" },
            ],
            sessionStorage: [{ name: "s", value: "4" }],
          },
        ],
      });
      const { sealed, stats } = sealDocument(t.app.deps, row, doc);
      const at = new Date(Date.parse(before.created_at) + 5_000);
      const entry = (status: number) => (when?: Prisma.Sql) =>
        auditInsertSql(
          {
            workspaceId: ws.workspace.id,
            keyPrefix: ws.prefix,
            actorUserId: null,
            action: "profile.save",
            target: id,
            httpStatus: status,
            requestId: null,
            ip: null,
          },
          when,
        );
      const returning = Prisma.sql`id, cookie_count AS "cookieCount", key_count AS "keyCount", updated_at AS "updatedAt"`;

      const saved = await storeSealed<{ id: string; cookieCount: number; keyCount: number; updatedAt: Date }>(
        t.app.deps.db,
        row,
        sealed,
        stats,
        { sourceSessionId: sessionId, at, returning },
        entry(200),
      );
      expect(saved).toEqual([{ id, cookieCount: 1, keyCount: 3, updatedAt: at }]);
      const stored = await tdb.db.prisma.profile.findUniqueOrThrow({ where: { id } });
      expect(Buffer.from(stored.ciphertext).equals(Buffer.from(sealed.ciphertext))).toBe(true);
      expect(stored).toMatchObject({ sourceSessionId: sessionId, cookieCount: 1, originCount: 1, keyCount: 3, sizeBytes: stats.sizeBytes });
      expect(await readDocument(t.app.deps, undefined, ws.workspace.id, id)).toEqual(doc);
      expect(await tdb.db.prisma.auditEntry.count({ where: { action: "profile.save", target: id, httpStatus: 200 } })).toBe(1);

      // Another workspace's row, and a row that is gone: nothing changes and no entry is written.
      const other = await seedWorkspace(t);
      const later = { sourceSessionId: sessionId, at: new Date(at.getTime() + 5_000), returning };
      expect(await storeSealed(t.app.deps.db, { id, workspaceId: other.workspace.id }, sealed, stats, later, entry(201))).toEqual([]);
      expect(await storeSealed(t.app.deps.db, { id: "prof_gone", workspaceId: ws.workspace.id }, sealed, stats, later, entry(202))).toEqual([]);
      expect((await tdb.db.prisma.profile.findUniqueOrThrow({ where: { id } })).updatedAt).toEqual(at);
      expect(await tdb.db.prisma.auditEntry.count({ where: { action: "profile.save", httpStatus: { in: [201, 202] } } })).toBe(0);
    } finally {
      await t.stop();
    }
  });
});
