import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ulid } from "ulid";
import { addKey, bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { createSession, handshake, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

// The app's clock: moved to test the 24-hour window without waiting.
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

describe.skipIf(!hasChromium)("the sessions API", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ now, env: { VESSEL_BROWSER_WARM: "0", VESSEL_BROWSER_CAPACITY: "3" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());
  // Every test starts with the node empty, whatever the previous one left when it failed.
  afterEach(async () => {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  const sessionsOf = (workspaceId: string) => t.app.deps.db.prisma.session.count({ where: { workspaceId } });
  const inUse = () => t.app.deps.browsers.report().inUse;
  async function releaseAll(workspaceId: string, key: string) {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { workspaceId, status: "RUNNING" } });
    for (const s of live) await releaseSession(t, key, s.id);
  }

  describe("idempotency (security.md B10–B16)", () => {
    it("B10: a missing or malformed Idempotency-Key is refused, creating nothing", async () => {
      const before = await sessionsOf(ws.workspace.id);
      const missing = await createSession(t, ws.key, { region: "us-east1" }, null);
      expect(missing.res.status).toBe(400);
      expect((missing.body as unknown as { type: string }).type).toMatch(/\/errors\/idempotency-key-missing$/);
      const invalid = await createSession(t, ws.key, { region: "us-east1" }, "abc");
      expect(invalid.res.status).toBe(400);
      expect((invalid.body as unknown as { type: string }).type).toMatch(/\/errors\/idempotency-key-invalid$/);
      expect(await sessionsOf(ws.workspace.id)).toBe(before);
      expect(inUse()).toBe(0);
    });

    it("B11: a replay answers 200 with the same body and Idempotent-Replayed, one session and one browser", async () => {
      const key = randomUUID();
      const first = await createSession(t, ws.key, { region: "us-east1" }, key);
      expect(first.res.status).toBe(201);
      const second = await createSession(t, ws.key, { region: "us-east1" }, key);
      expect(second.res.status).toBe(200);
      expect(second.res.headers.get("idempotent-replayed")).toBe("true");
      expect(second.body).toEqual(first.body);
      expect(await t.app.deps.db.prisma.session.count({ where: { id: first.body.id } })).toBe(1);
      expect(inUse()).toBe(1);
      // The stored answer holds tokens, so it is sealed: no token is readable in the database.
      const record = await t.app.deps.db.prisma.idempotencyRecord.findFirst({ where: { key } });
      const token = new URL(first.body.connect_url!).searchParams.get("token")!;
      expect(JSON.stringify(record)).not.toContain(token.split(".")[2]);
      await releaseAll(ws.workspace.id, ws.key);
    });

    it("B11: with a warm spare, a first create takes the key in its own statement, and a replay gives the spare back unused", async () => {
      const warm = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "2" } });
      try {
        const w = await seedWorkspace(warm);
        const pool = warm.app.deps.browsers;
        const spareReady = () => vi.waitFor(() => expect(pool.report().warm).toBe(1), { timeout: 30_000, interval: 20 });
        await spareReady();
        // The statements the embedded database runs directly on the session paths, as SQL. The webhook
        // dispatcher's poll and the admission queue's sweep (once a second each) run there too, and are
        // left out: they are not this request's.
        const db = warm.app.deps.db;
        const direct = db.direct!;
        const statements: string[] = [];
        db.direct = (sql) => {
          if (!/"webhook_deliveries"|"session_queue"|"vessel_queue_/.test(sql.text)) statements.push(sql.text);
          return direct(sql);
        };
        const key = randomUUID();
        const first = await createSession(warm, w.key, { region: "us-east1" }, key);
        expect(first.res.status).toBe(201);
        // One statement took the key and wrote the session; the record was never in flight.
        expect(statements).toHaveLength(1);
        expect(statements[0]).toMatch(/^WITH "claim" AS \(INSERT INTO "idempotency_records"/);
        const record = await warm.app.deps.db.prisma.idempotencyRecord.findFirst({ where: { key } });
        expect(record).toMatchObject({ state: "COMPLETED", responseStatus: 201, resourceId: first.body.id, lockedUntil: null });
        await spareReady();
        const launches = pool.launches;
        for (let i = 0; i < 3; i++) {
          const replay = await createSession(warm, w.key, { region: "us-east1" }, key);
          expect(replay.res.status).toBe(200);
          expect(replay.body).toEqual(first.body);
          expect(pool.report()).toMatchObject({ inUse: 1, warm: 1 });
        }
        // Each replay took the spare for its one statement, found the key taken, and gave it back.
        expect(statements.slice(1).filter((sql) => sql.startsWith('WITH "claim"'))).toHaveLength(3);
        // The same key with another body: still 422, and still no browser spent on it.
        const other = await createSession(warm, w.key, { region: "us-east1", timeout_seconds: 60 }, key);
        expect(other.res.status).toBe(422);
        expect(pool.launches).toBe(launches);
        expect(await warm.app.deps.db.prisma.session.count({ where: { workspaceId: w.workspace.id } })).toBe(1);
        // The spare that was given back serves the next session as any spare does.
        const next = await createSession(warm, w.key, { region: "us-east1" }, randomUUID());
        expect(next.res.status).toBe(201);
        expect(pool.launches).toBe(launches);
        expect(await handshake(next.body.connect_url!)).toBe("open");
      } finally {
        await warm.stop();
      }
    });

    it("B12: the same key with another body is 422 and changes nothing", async () => {
      const key = randomUUID();
      const first = await createSession(t, ws.key, { region: "us-east1" }, key);
      const count = await sessionsOf(ws.workspace.id);
      const other = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 60 }, key);
      expect(other.res.status).toBe(422);
      expect((other.body as unknown as { type: string }).type).toMatch(/\/errors\/idempotency-key-reused$/);
      expect(await sessionsOf(ws.workspace.id)).toBe(count);
      expect((await t.app.deps.db.prisma.session.findUnique({ where: { id: first.body.id } }))!.timeoutSeconds).toBe(1800);
      await releaseAll(ws.workspace.id, ws.key);
    });

    it("B13: ten parallel creates with one key make exactly one session and one Chromium", async () => {
      const key = randomUUID();
      const before = await sessionsOf(ws.workspace.id);
      const results = await Promise.all(Array.from({ length: 10 }, () => createSession(t, ws.key, { region: "us-east1" }, key)));
      const ids = new Set(results.filter((r) => r.res.status < 300).map((r) => r.body.id));
      expect(ids.size).toBe(1);
      for (const r of results) {
        expect([200, 201, 409]).toContain(r.res.status);
        if (r.res.status === 409) expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
      expect(results.filter((r) => r.res.status === 201)).toHaveLength(1);
      expect(await sessionsOf(ws.workspace.id)).toBe(before + 1);
      expect(inUse()).toBe(1);
      await releaseAll(ws.workspace.id, ws.key);
    });

    it("B14: the same key in two workspaces makes two sessions", async () => {
      const other = await seedWorkspace(t);
      const key = randomUUID();
      const a = await createSession(t, ws.key, { region: "us-east1" }, key);
      const b = await createSession(t, other.key, { region: "us-east1" }, key);
      expect([a.res.status, b.res.status]).toEqual([201, 201]);
      expect(a.body.id).not.toBe(b.body.id);
      await releaseAll(ws.workspace.id, ws.key);
      await releaseAll(other.workspace.id, other.key);
    });

    it("B15: the window is 24 hours", async () => {
      const key = randomUUID();
      const first = await createSession(t, ws.key, { region: "us-east1" }, key);
      await releaseSession(t, ws.key, first.body.id);
      try {
        offsetMs = 24 * 3600 * 1000 - 60_000;
        const replay = await createSession(t, ws.key, { region: "us-east1" }, key);
        expect(replay.res.status).toBe(200);
        expect(replay.body.id).toBe(first.body.id);
        offsetMs = 24 * 3600 * 1000 + 60_000;
        const fresh = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 120 }, key);
        expect(fresh.res.status).toBe(201);
        expect(fresh.body.id).not.toBe(first.body.id);
        await releaseSession(t, ws.key, fresh.body.id);
      } finally {
        offsetMs = 0;
      }
    });

    it("B16: requests refused before they run store nothing; a retry with the same key creates", async () => {
      const key = randomUUID();
      const invalid = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: -5 }, key);
      expect(invalid.res.status).toBe(400);
      const unknownRegion = await createSession(t, ws.key, { region: "mars-1" }, key);
      expect(unknownRegion.res.status).toBe(422);
      expect((unknownRegion.body as unknown as { type: string }).type).toMatch(/\/errors\/unknown-region$/);
      const last = ws.key.at(-1) === "x" ? "y" : "x"; // always a different character, so always a wrong key
      const badKey = await createSession(t, `${ws.key.slice(0, -1)}${last}`, { region: "us-east1" }, key);
      expect(badKey.res.status).toBe(401);
      const ok = await createSession(t, ws.key, { region: "us-east1" }, key);
      expect(ok.res.status).toBe(201);
      expect(ok.res.headers.get("idempotent-replayed")).toBeNull();
      await releaseAll(ws.workspace.id, ws.key);
    });
  });

  it("an expired CDP token is refused (the clock moved past its end)", async () => {
    const { body } = await createSession(t, ws.key);
    expect(await handshake(body.connect_url!)).toBe("open");
    try {
      offsetMs = 31 * 60 * 1000;
      expect(await handshake(body.connect_url!)).toBe(401);
    } finally {
      offsetMs = 0;
    }
    await releaseSession(t, ws.key, body.id);
  });

  it("answers 503 with Retry-After when the node is full, and nothing is stored", async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createSession(t, ws.key));
    for (const m of made) expect(m.res.status).toBe(201);
    const key = randomUUID();
    const full = await createSession(t, ws.key, { region: "us-east1" }, key);
    expect(full.res.status).toBe(503);
    expect((full.body as unknown as { type: string }).type).toMatch(/\/errors\/insufficient-capacity$/);
    expect(Number(full.res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await releaseSession(t, ws.key, made[0]!.body.id);
    // The capacity failure stored nothing: the same key now creates.
    const retry = await createSession(t, ws.key, { region: "us-east1" }, key);
    expect(retry.res.status).toBe(201);
    await releaseAll(ws.workspace.id, ws.key);
  });

  // A release is answered before the session's browser goes: its captures (log, recording, a
  // profile to save) finish first, up to seconds for a large profile. A create at once after it, on
  // a node that was full, was answered 503 for those moments.
  it("a create right after a release on a full node gets the released session's slot", async () => {
    const live = [];
    for (let i = 0; i < 3; i++) live.push((await createSession(t, ws.key)).body);
    for (let round = 0; round < 3; round++) {
      const ending = live.shift()!.id;
      // A capture that takes its time, as a large profile's save does (the runtime's own finisher hook).
      expect(t.app.deps.runtime.addFinisher(ending, () => new Promise((r) => setTimeout(r, 400)))).toBe(true);
      expect((await releaseSession(t, ws.key, ending)).status).toBe(204);
      expect(inUse()).toBe(3);
      const next = await createSession(t, ws.key);
      expect(next.res.status, `round ${round}: ${JSON.stringify(next.body)}`).toBe(201);
      live.push(next.body);
    }
    // Full, with no session ending: 503 at once.
    const full = await createSession(t, ws.key);
    expect(full.res.status).toBe(503);
    await releaseAll(ws.workspace.id, ws.key);
  });

  it("another workspace's session is 404; force-stop is for owners and admins, never keys", async () => {
    const other = await seedWorkspace(t);
    const mine = await createSession(t, ws.key);
    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["POST", ":keepalive"],
    ] as const) {
      const res = await fetch(`${t.url}/v1/sessions/${mine.body.id}${path}`, {
        method,
        headers: { ...bearer(other.key), "content-type": "application/json" },
        body: method === "PATCH" ? JSON.stringify({ status: "REQUEST_RELEASE" }) : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await fetch(`${t.url}/v1/sessions/${mine.body.id}`, { method: "DELETE", headers: bearer(ws.key) })).status).toBe(403);
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    const outsider = await seedUser(t, other.workspace.id, "OWNER");
    const admin = await seedUser(t, ws.workspace.id, "ADMIN");
    expect((await fetch(`${t.url}/v1/sessions/${mine.body.id}`, { method: "DELETE", headers: userAuth(member) })).status).toBe(403);
    expect((await fetch(`${t.url}/v1/sessions/${mine.body.id}`, { method: "DELETE", headers: userAuth(outsider) })).status).toBe(404);
    expect((await fetch(`${t.url}/v1/sessions/${mine.body.id}`, { method: "DELETE", headers: userAuth(admin) })).status).toBe(204);
    const stopped = (await (await fetch(`${t.url}/v1/sessions/${mine.body.id}`, { headers: bearer(ws.key) })).json()) as { status: string; end_reason: string };
    expect(stopped).toMatchObject({ status: "RELEASED", end_reason: "force_stop" });
  });

  it("lists 250 sessions with limit=7: each exactly once, in ULID order, stable while new ones arrive", async () => {
    const listing = await seedWorkspace(t);
    const prisma = t.app.deps.db.prisma;
    // The listing is what is under test here, so the rows are written directly rather than by 250 browsers.
    const row = () => ({
      id: `ses_${ulid()}`,
      workspaceId: listing.workspace.id,
      status: "RELEASED" as const,
      region: "us-east1",
      timeoutSeconds: 60,
      expiresAt: new Date(Date.now() + 60_000),
      endReason: "CLIENT_RELEASE" as const,
    });
    const rows = Array.from({ length: 250 }, row);
    await prisma.session.createMany({ data: rows });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await fetch(`${t.url}/v1/sessions?limit=7${cursor ? `&cursor=${cursor}` : ""}`, { headers: bearer(listing.key) });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { items: Array<{ id: string; connect_url: string | null }>; next_cursor: string | null; has_more: boolean };
      expect(page.items.length).toBeLessThanOrEqual(7);
      for (const item of page.items) expect(item.connect_url).toBeNull();
      seen.push(...page.items.map((i) => i.id));
      cursor = page.has_more ? page.next_cursor : null;
      if (pages++ === 10) await prisma.session.createMany({ data: [row(), row()] }); // inserted mid-walk: they sort last
    } while (cursor);
    const ids = rows.map((r) => r.id).sort();
    expect(seen.slice(0, 250)).toEqual(ids);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(252);
    const bad = await fetch(`${t.url}/v1/sessions?limit=101`, { headers: bearer(listing.key) });
    expect(bad.status).toBe(400);
    const other = await addKey(t, ws.workspace.id);
    const foreign = (await (await fetch(`${t.url}/v1/sessions?limit=100`, { headers: bearer(other.key) })).json()) as { items: Array<{ id: string }> };
    expect(foreign.items.some((i) => ids.includes(i.id))).toBe(false);
  });
});
