import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import { Writable } from "node:stream";
import { chromium } from "playwright-core";
import puppeteer, { type Page } from "puppeteer-core";
import { ulid } from "ulid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseProfileDocument, serializeDocument } from "../../src/browser/profiles/format.ts";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { sealProfile } from "../../src/crypto/profile-crypto.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/logger.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { startProfileSite, type ProfileSite, type Saw } from "../support/profile-site.ts";
import { createSession, getSession, releaseSession, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** Small, so the over-size cases stay cheap; the login profiles here are well under 1 KiB. */
const MAX_BYTES = 256 * 1024;

interface ProfileBody {
  profile_id: string;
  label: string;
  source_session_id: string | null;
  format_version: number;
  size_bytes: number;
  cookie_count: number;
  origin_count: number;
  key_count: number;
  created_at: string;
  updated_at: string;
}
interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: Array<{ field: string; message: string }>;
  size_bytes?: number;
  max_bytes?: number;
}
interface StorageStateBody {
  cookies: Array<Record<string, unknown> & { name: string; value: string }>;
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }>; sessionStorage: Array<{ name: string; value: string }> }>;
}

const masterKey = (b64: string) => ({ key: Buffer.from(b64, "base64"), id: masterKeyId(Buffer.from(b64, "base64")) });

describe.skipIf(!hasChromium)("profiles: portable, encrypted saved logins", () => {
  let t: TestApp;
  let ws: Seeded;
  let a: ProfileSite;
  let b: ProfileSite;
  const logs: string[] = [];
  const secrets = {
    a: { cookie: `cookie-a-${randomUUID()}`, local: `local-a-${randomUUID()}`, session: `session-a-${randomUUID()}` },
    b: { cookie: `cookie-b-${randomUUID()}`, local: `local-b-${randomUUID()}`, session: `session-b-${randomUUID()}` },
  };
  const allSecrets = [...Object.values(secrets.a), ...Object.values(secrets.b)];

  beforeAll(async () => {
    // Two origins on two sites: 127.0.0.1 and localhost, each its own port.
    a = await startProfileSite("a", secrets.a);
    b = await startProfileSite("b", secrets.b, { host: "localhost" });
    const log = createLogger(
      "debug",
      new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    );
    t = await startTestApp({
      log,
      env: {
        VESSEL_BROWSER_WARM: "0",
        VESSEL_BROWSER_CAPACITY: "3",
        VESSEL_PROFILE_MAX_BYTES: String(MAX_BYTES),
        VESSEL_MASTER_KEY: randomBytes(32).toString("base64"),
      },
    });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    await a?.close();
    await b?.close();
  });
  // Every test starts with no running session, whatever the previous one left when it failed.
  afterEach(async () => {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "FORCE_STOP" });
  });

  const prisma = () => t.app.deps.db.prisma;
  const api = (method: string, path: string, body?: unknown, key = ws.key) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A session in which a person logged in to both sites: site a in the first tab, site b in a second one. */
  async function loggedInSession(): Promise<SessionBody> {
    const { res, body } = await createSession(t, ws.key);
    expect(res.status).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url!, defaultViewport: null });
    try {
      const [first] = await browser.pages();
      await first!.goto(`${a.origin}/login`);
      const second = await browser.newPage();
      await second.goto(`${b.origin}/login`);
    } finally {
      await browser.disconnect();
    }
    return body;
  }

  async function profileFromLogin(label = "login"): Promise<ProfileBody> {
    const session = await loggedInSession();
    const res = await api("POST", "/v1/profiles", { session_id: session.id, label });
    expect(res.status).toBe(201);
    expect((await releaseSession(t, ws.key, session.id)).status).toBe(204);
    return (await res.json()) as ProfileBody;
  }

  async function sawOn(page: Page, origin: string): Promise<Saw> {
    await page.goto(`${origin}/app`);
    return page.evaluate(() => (window as unknown as { __saw: Saw }).__saw);
  }

  function expectLoggedIn(saw: Saw, site: "a" | "b") {
    expect(saw.serverSawLogin, `the server of ${site} saw the login cookie`).toBe(true);
    expect(saw.local[`token_${site}`]).toBe(secrets[site].local);
    expect(saw.session[`tab_${site}`]).toBe(secrets[site].session);
    expect(saw.cookie).toContain(`pref_${site}=dark`);
    expect(saw.cookie).toContain(`chips_${site}=1`);
    expect(saw.cookie).not.toContain(`sid_${site}`); // httpOnly
  }

  const profileCount = () => prisma().profile.count({ where: { workspaceId: ws.workspace.id } });
  const sessionCount = () => prisma().session.count({ where: { workspaceId: ws.workspace.id } });

  it("saves a logged-in session of two origins; a session from it is logged in on both from the first page load", async () => {
    const s1 = await loggedInSession();
    const res = await api("POST", "/v1/profiles", { session_id: s1.id, label: "shop login" });
    expect(res.status).toBe(201);
    const profile = (await res.json()) as ProfileBody;
    // Per site: the httpOnly login, a readable cookie, a partitioned one; per origin a localStorage and a sessionStorage item.
    expect(profile).toMatchObject({ label: "shop login", source_session_id: s1.id, format_version: 1, cookie_count: 6, origin_count: 2, key_count: 4 });
    expect(profile.profile_id).toMatch(/^prof_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(profile.size_bytes).toBeGreaterThan(0);
    // Saving does not disturb the session.
    expect((await getSession(t, ws.key, s1.id)).status).toBe("RUNNING");
    expect((await releaseSession(t, ws.key, s1.id)).status).toBe(204);
    // A session that is not running has nothing to save.
    const ended = await api("POST", "/v1/profiles", { session_id: s1.id, label: "late" });
    expect(ended.status).toBe(409);
    expect(((await ended.json()) as Problem).type).toMatch(/\/errors\/conflict$/);

    a.requests.length = 0;
    b.requests.length = 0;
    const s2 = await createSession(t, ws.key, { region: "us-east1", profile_id: profile.profile_id });
    expect(s2.res.status).toBe(201);
    expect((s2.body as SessionBody & { profile_id: string }).profile_id).toBe(profile.profile_id);
    // The restore reached neither site: its localStorage tab was answered inside the browser.
    expect([...a.requests, ...b.requests]).toEqual([]);

    const browser = await puppeteer.connect({ browserWSEndpoint: s2.body.connect_url!, defaultViewport: null });
    try {
      // Nothing of the restore is visible to the client: one blank tab, as in any new session.
      const pages = await browser.pages();
      expect(pages.map((p) => p.url())).toEqual(["about:blank"]);
      const tab = await browser.newPage();
      expectLoggedIn(await sawOn(tab, a.origin), "a");
      expectLoggedIn(await sawOn(tab, b.origin), "b");
      // The very first request each site got from the new session carried the login.
      expect(a.requests[0]?.cookie).toContain(`sid_a=${secrets.a.cookie}`);
      expect(b.requests[0]?.cookie).toContain(`sid_b=${secrets.b.cookie}`);
      // sessionStorage is per tab: the session's first tab has it too.
      expectLoggedIn(await sawOn(pages[0]!, b.origin), "b");
      // A sign-out that clears the storage stays signed out in that tab (the restore does not refill it).
      await pages[0]!.goto(`${b.origin}/logout`);
      const after = await sawOn(pages[0]!, b.origin);
      expect(after.session).toEqual({});
      expect(after.local).toEqual({});
      expect((await browser.pages()).length).toBe(2);
    } finally {
      await browser.disconnect();
    }
    expect((await releaseSession(t, ws.key, s2.body.id)).status).toBe(204);
  });

  it("save_profile_on_release saves into the profile at release; :save replaces the state and keeps the id", async () => {
    const profile = await profileFromLogin();
    const needsProfile = await createSession(t, ws.key, { region: "us-east1", save_profile_on_release: true });
    expect(needsProfile.res.status).toBe(400);
    expect((needsProfile.body as unknown as Problem).errors).toContainEqual(expect.objectContaining({ field: "body.save_profile_on_release" }));

    const s = await createSession(t, ws.key, { region: "us-east1", profile_id: profile.profile_id, save_profile_on_release: true });
    expect(s.res.status).toBe(201);
    let browser = await puppeteer.connect({ browserWSEndpoint: s.body.connect_url!, defaultViewport: null });
    try {
      const tab = await browser.newPage();
      expectLoggedIn(await sawOn(tab, a.origin), "a");
      await tab.evaluate(() => localStorage.setItem("saved_on_release", "yes"));
    } finally {
      await browser.disconnect();
    }
    expect((await releaseSession(t, ws.key, s.body.id)).status).toBe(204);
    const released = (await (await api("GET", `/v1/profiles/${profile.profile_id}`)).json()) as ProfileBody;
    expect(released).toMatchObject({ profile_id: profile.profile_id, source_session_id: s.body.id, key_count: 5 });
    expect(Date.parse(released.updated_at)).toBeGreaterThan(Date.parse(profile.updated_at));
    const audited = await prisma().auditEntry.findFirst({ where: { action: "profile.save", target: profile.profile_id } });
    expect(audited).toMatchObject({ httpStatus: 200, keyPrefix: ws.prefix });

    const s4 = await createSession(t, ws.key, { region: "us-east1", profile_id: profile.profile_id });
    browser = await puppeteer.connect({ browserWSEndpoint: s4.body.connect_url!, defaultViewport: null });
    try {
      const tab = await browser.newPage();
      const saw = await sawOn(tab, a.origin);
      expect(saw.local.saved_on_release).toBe("yes");
      await tab.evaluate(() => localStorage.setItem("saved_by_call", "yes"));
    } finally {
      await browser.disconnect();
    }
    const saved = await api("POST", `/v1/profiles/${profile.profile_id}:save`, { session_id: s4.body.id });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ profile_id: profile.profile_id, label: "login", source_session_id: s4.body.id, key_count: 6 });
    expect((await releaseSession(t, ws.key, s4.body.id)).status).toBe(204);
    const state = (await (await api("GET", `/v1/profiles/${profile.profile_id}/storage-state`)).json()) as StorageStateBody;
    const names = state.origins
      .find((o) => o.origin === a.origin)!
      .localStorage.map((i) => i.name)
      .sort();
    expect(names).toEqual(["saved_by_call", "saved_on_release", "token_a"]);
  });

  it("seeds each origin's storage on its first load only, never another origin's; a save before any load keeps the restored storage exactly, one after keeps the page's change", async () => {
    const profile = await profileFromLogin();
    const stateOf = async () => (await (await api("GET", `/v1/profiles/${profile.profile_id}/storage-state`)).json()) as StorageStateBody;
    const before = await stateOf();
    const s = await createSession(t, ws.key, { region: "us-east1", profile_id: profile.profile_id });
    expect(s.res.status).toBe(201);
    // No page has loaded either origin yet: the save reads nothing of theirs and keeps what was restored.
    let saved = await api("POST", `/v1/profiles/${profile.profile_id}:save`, { session_id: s.body.id });
    expect(saved.status).toBe(200);
    expect((await stateOf()).origins).toEqual(before.origins);

    const browser = await puppeteer.connect({ browserWSEndpoint: s.body.connect_url!, defaultViewport: null });
    try {
      const tab = await browser.newPage();
      const sawA = await sawOn(tab, a.origin);
      expectLoggedIn(sawA, "a");
      // Only a's own items: b's are never written into a's storage (and the reverse below).
      expect(sawA.local).toEqual({ token_a: secrets.a.local });
      expect(sawA.session).toEqual({ tab_a: secrets.a.session });
      await tab.evaluate(() => localStorage.setItem("changed_a", "yes"));
      // The tab moves on to b: a is no longer open anywhere, its storage is read through the throw-away tab.
      const sawB = await sawOn(tab, b.origin);
      expect(sawB.local).toEqual({ token_b: secrets.b.local });
      // Loaded again in another tab, a is not seeded a second time: its storage is the page's.
      const other = await browser.newPage();
      await other.evaluate(() => 0);
      const again = await sawOn(other, a.origin);
      expect(again.local).toEqual({ token_a: secrets.a.local, changed_a: "yes" });
      await other.close();
    } finally {
      await browser.disconnect();
    }
    saved = await api("POST", `/v1/profiles/${profile.profile_id}:save`, { session_id: s.body.id });
    expect(saved.status).toBe(200);
    const after = await stateOf();
    const localOf = (o: string) =>
      after.origins
        .find((x) => x.origin === o)
        ?.localStorage.map((i) => i.name)
        .sort();
    expect(localOf(a.origin)).toEqual(["changed_a", "token_a"]);
    expect(localOf(b.origin)).toEqual(["token_b"]);
    expect((await releaseSession(t, ws.key, s.body.id)).status).toBe(204);
  });

  it("reads a tab's own storage and a same-origin frame's, never a cross-site frame's (partitioned under the tab's site)", async () => {
    const { body } = await createSession(t, ws.key);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url!, defaultViewport: null });
    try {
      const [tab] = await browser.pages();
      await tab!.goto(`${a.origin}/app`);
      await tab!.evaluate(
        async (urls: string[]) => {
          localStorage.setItem("top_a", "1");
          sessionStorage.setItem("top_tab_a", "2");
          await Promise.all(
            urls.map(
              (url) =>
                new Promise((loaded) => {
                  const frame = document.createElement("iframe");
                  frame.src = url;
                  frame.onload = loaded;
                  document.body.append(frame);
                }),
            ),
          );
        },
        [`${a.origin}/app?framed`, `${b.origin}/app?framed`],
      );
      const frameOf = (origin: string) => tab!.frames().find((f) => f !== tab!.mainFrame() && f.url().startsWith(origin))!;
      await frameOf(a.origin).evaluate(() => localStorage.setItem("framed_a", "3"));
      // The cross-site frame's storage is b's partitioned under a's site: not b's own.
      await frameOf(b.origin).evaluate(() => localStorage.setItem("framed_b", "4"));
      const res = await api("POST", "/v1/profiles", { session_id: body.id, label: "frames" });
      expect(res.status).toBe(201);
      const { profile_id } = (await res.json()) as ProfileBody;
      const state = (await (await api("GET", `/v1/profiles/${profile_id}/storage-state`)).json()) as StorageStateBody;
      const names = (o: string, area: "localStorage" | "sessionStorage") =>
        state.origins
          .find((x) => x.origin === o)
          ?.[area].map((i) => i.name)
          .sort();
      expect(names(a.origin, "localStorage")).toEqual(["framed_a", "top_a"]);
      expect(names(a.origin, "sessionStorage")).toEqual(["top_tab_a"]);
      expect(state.origins.map((o) => o.origin)).toEqual([a.origin]);
    } finally {
      await browser.disconnect();
    }
  });

  it("exports Playwright's storageState (audited), imports it as a new profile, and Playwright takes the export as is", async () => {
    const profile = await profileFromLogin();
    const res = await api("GET", `/v1/profiles/${profile.profile_id}/storage-state`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const state = (await res.json()) as StorageStateBody;
    expect(state.cookies).toContainEqual(expect.objectContaining({ name: "sid_a", value: secrets.a.cookie, domain: "127.0.0.1", httpOnly: true }));
    expect(state.cookies).toContainEqual(expect.objectContaining({ name: "chips_b", secure: true, sameSite: "None", partitionKey: "http://localhost" }));
    expect(state.origins).toContainEqual({
      origin: b.origin,
      localStorage: [{ name: "token_b", value: secrets.b.local }],
      sessionStorage: [{ name: "tab_b", value: secrets.b.session }],
    });
    expect(await prisma().auditEntry.count({ where: { action: "profile.export", target: profile.profile_id, httpStatus: 200 } })).toBe(1);

    const imported = await api("POST", "/v1/profiles", { label: "imported", storage_state: state });
    expect(imported.status).toBe(201);
    const copy = (await imported.json()) as ProfileBody;
    expect(copy).toMatchObject({ source_session_id: null, cookie_count: 6, origin_count: 2, key_count: 4 });

    const s = await createSession(t, ws.key, { region: "us-east1", profile_id: copy.profile_id });
    expect(s.res.status).toBe(201);
    const pw = await chromium.connectOverCDP(s.body.connect_url!);
    try {
      const context = pw.contexts()[0]!;
      expect(context.pages().map((p) => p.url())).toEqual(["about:blank"]);
      const page = await context.newPage();
      for (const [site, origin] of [
        ["a", a.origin],
        ["b", b.origin],
      ] as const) {
        await page.goto(`${origin}/app`);
        expectLoggedIn(await page.evaluate(() => (window as unknown as { __saw: Saw }).__saw), site);
      }
      // Playwright's own export of this session is accepted as an import.
      const own = await context.storageState();
      const fromPlaywright = await api("POST", "/v1/profiles", { label: "from playwright", storage_state: own });
      expect(fromPlaywright.status).toBe(201);
      expect(((await fromPlaywright.json()) as ProfileBody).cookie_count).toBe(6);
      // And Playwright takes Vessel's export as its storageState.
      const fresh = await pw.newContext({ storageState: state as never });
      const p2 = await fresh.newPage();
      await p2.goto(`${b.origin}/app`);
      const saw = await p2.evaluate(() => (window as unknown as { __saw: Saw }).__saw);
      expect(saw.serverSawLogin).toBe(true);
      expect(saw.local.token_b).toBe(secrets.b.local);
      await fresh.close();
    } finally {
      await pw.close();
    }
  });

  it("a version 1 document (test/fixtures/profile-v1.json) restores into this Chromium", async () => {
    const fa = await startProfileSite("fixa", secrets.a, { port: 18613 });
    const fb = await startProfileSite("fixb", secrets.b, { host: "localhost", port: 18614 });
    try {
      const doc = parseProfileDocument(JSON.parse(fs.readFileSync(new URL("../fixtures/profile-v1.json", import.meta.url), "utf8")));
      const id = `prof_${ulid()}`;
      const { json, stats } = serializeDocument(doc);
      const row = { id, workspaceId: ws.workspace.id };
      await prisma().profile.create({ data: { ...row, label: "v1 fixture", ...sealProfile(t.app.deps.masterKey, row, doc.formatVersion, json), ...stats } });

      const s = await createSession(t, ws.key, { region: "us-east1", profile_id: id });
      expect(s.res.status).toBe(201);
      const browser = await puppeteer.connect({ browserWSEndpoint: s.body.connect_url!, defaultViewport: null });
      try {
        const tab = await browser.newPage();
        const sawA = await sawOn(tab, fa.origin);
        expect(sawA).toMatchObject({ serverSawLogin: true, local: { token_fixa: "fixture-local-a" }, session: { tab_fixa: "fixture-session-a" } });
        expect(sawA.cookie.split("; ").sort()).toEqual(["chips_fixa=1", "pref_fixa=dark"]);
        const sawB = await sawOn(tab, fb.origin);
        expect(sawB).toMatchObject({ serverSawLogin: true, cookie: "", local: { token_fixb: "fixture-local-b" }, session: { tab_fixb: "fixture-session-b" } });
        expect(fa.requests[0]?.cookie).toContain("sid_fixa=fixture-login-a");
        expect(fb.requests[0]?.cookie).toContain("sid_fixb=fixture-login-b");
      } finally {
        await browser.disconnect();
      }
      await releaseSession(t, ws.key, s.body.id);
    } finally {
      await fa.close();
      await fb.close();
    }
  });

  it("a tampered profile is 422 and leaves no session and no browser behind", async () => {
    const state = { cookies: [{ name: "sid", value: "x", domain: "127.0.0.1", path: "/" }], origins: [] };
    for (const tamper of [
      "ciphertext = set_byte(ciphertext, 0, get_byte(ciphertext, 0) # 1)",
      "wrapped_key = set_byte(wrapped_key, 20, get_byte(wrapped_key, 20) # 1)",
      "auth_tag = set_byte(auth_tag, 3, get_byte(auth_tag, 3) # 1)",
      "format_version = 2",
    ]) {
      const created = (await (await api("POST", "/v1/profiles", { label: "to tamper", storage_state: state })).json()) as ProfileBody;
      await prisma().$executeRawUnsafe(`UPDATE profiles SET ${tamper} WHERE id = $1`, created.profile_id);
      const before = await sessionCount();
      const key = randomUUID();
      for (let attempt = 0; attempt < 2; attempt++) {
        // The same Idempotency-Key again: the failure stored nothing, so it fails the same way.
        const s = await createSession(t, ws.key, { region: "us-east1", profile_id: created.profile_id }, key);
        expect(s.res.status, tamper).toBe(422);
        expect((s.body as unknown as Problem).type).toMatch(/\/errors\/profile-unreadable$/);
      }
      expect(await sessionCount()).toBe(before);
      expect(t.app.deps.browsers.report().inUse).toBe(0);
      const exported = await api("GET", `/v1/profiles/${created.profile_id}/storage-state`);
      expect(exported.status).toBe(422);
    }
  });

  it("a profile over VESSEL_PROFILE_MAX_BYTES is 413, from a session or an import, and nothing is stored", async () => {
    const before = await profileCount();
    const big = "x".repeat(MAX_BYTES);
    const imported = await api("POST", "/v1/profiles", {
      label: "big",
      storage_state: { cookies: [], origins: [{ origin: a.origin, localStorage: [{ name: "blob", value: big }] }] },
    });
    expect(imported.status).toBe(413);
    const problem = (await imported.json()) as Problem;
    expect(problem).toMatchObject({ type: expect.stringMatching(/\/errors\/profile-too-large$/), max_bytes: MAX_BYTES });
    expect(problem.size_bytes).toBeGreaterThan(MAX_BYTES);

    const s = await createSession(t, ws.key);
    const browser = await puppeteer.connect({ browserWSEndpoint: s.body.connect_url!, defaultViewport: null });
    try {
      const [tab] = await browser.pages();
      await tab!.goto(`${a.origin}/app`);
      await tab!.evaluate((n) => localStorage.setItem("blob", "y".repeat(n)), MAX_BYTES);
    } finally {
      await browser.disconnect();
    }
    const captured = await api("POST", "/v1/profiles", { session_id: s.body.id, label: "big" });
    expect(captured.status).toBe(413);
    expect(await profileCount()).toBe(before);
    await releaseSession(t, ws.key, s.body.id);
  });

  it("refuses invalid imports with the field at fault, storing nothing", async () => {
    const before = await profileCount();
    const cookie = { name: "sid", value: "v", domain: "127.0.0.1", path: "/" };
    const cases: Array<[unknown, string]> = [
      [{ label: "x" }, "body.session_id"],
      [{ label: "x", session_id: "ses_1", storage_state: { cookies: [], origins: [] } }, "body.session_id"],
      [{ label: " ", storage_state: { cookies: [], origins: [] } }, "body.label"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, domain: "exa mple.com" }], origins: [] } }, "body.storage_state.cookies.0.domain"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, value: "a;b" }], origins: [] } }, "body.storage_state.cookies.0.value"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, sameSite: "None" }], origins: [] } }, "body.storage_state.cookies.0.secure"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, path: "no-slash" }], origins: [] } }, "body.storage_state.cookies.0.path"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, expires: "soon" }], origins: [] } }, "body.storage_state.cookies.0.expires"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, value: "v".repeat(5000) }], origins: [] } }, "body.storage_state.cookies.0.value"],
      [{ label: "x", storage_state: { cookies: [{ ...cookie, extra: 1 }], origins: [] } }, "body.storage_state.cookies.0"],
      [
        { label: "x", storage_state: { cookies: [], origins: [{ origin: "https://example.com/path", localStorage: [] }] } },
        "body.storage_state.origins.0.origin",
      ],
      [{ label: "x", storage_state: { cookies: [], origins: [{ origin: "file:///etc", localStorage: [] }] } }, "body.storage_state.origins.0.origin"],
      [
        {
          label: "x",
          storage_state: {
            cookies: [],
            origins: [
              { origin: a.origin, localStorage: [] },
              { origin: a.origin, localStorage: [] },
            ],
          },
        },
        "body.storage_state.origins.1.origin",
      ],
      [
        {
          label: "x",
          storage_state: {
            cookies: [],
            origins: [
              {
                origin: a.origin,
                localStorage: [
                  { name: "k", value: "1" },
                  { name: "k", value: "2" },
                ],
              },
            ],
          },
        },
        "body.storage_state.origins.0.localStorage.1.name",
      ],
      [{ label: "x", storage_state: { cookies: Array.from({ length: 5001 }, () => cookie), origins: [] } }, "body.storage_state.cookies"],
    ];
    for (const [body, field] of cases) {
      const res = await api("POST", "/v1/profiles", body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      const problem = (await res.json()) as Problem;
      expect(
        problem.errors?.map((e) => e.field),
        JSON.stringify(body).slice(0, 120),
      ).toContain(field);
    }
    expect(await profileCount()).toBe(before);
  });

  it("lists with cursors, renames, deletes (204, then 404 everywhere)", async () => {
    const listing = await seedWorkspace(t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api("POST", "/v1/profiles", { label: `p${i}`, storage_state: { cookies: [], origins: [] } }, listing.key);
      ids.push(((await res.json()) as ProfileBody).profile_id);
    }
    const page1 = (await (await api("GET", "/v1/profiles?limit=2", undefined, listing.key)).json()) as {
      items: ProfileBody[];
      next_cursor: string;
      has_more: boolean;
    };
    expect(page1.items.map((p) => p.profile_id)).toEqual(ids.slice(0, 2));
    expect(page1.has_more).toBe(true);
    const page2 = (await (await api("GET", `/v1/profiles?limit=2&cursor=${page1.next_cursor}`, undefined, listing.key)).json()) as typeof page1;
    expect(page2).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.items.map((p) => p.profile_id)).toEqual(ids.slice(2));

    const renamed = await api("PATCH", `/v1/profiles/${ids[0]}`, { label: "  renamed  " }, listing.key);
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as ProfileBody).label).toBe("renamed");
    expect((await api("PATCH", `/v1/profiles/${ids[0]}`, { label: "" }, listing.key)).status).toBe(400);

    expect((await api("DELETE", `/v1/profiles/${ids[0]}`, undefined, listing.key)).status).toBe(204);
    expect(await prisma().profile.count({ where: { id: ids[0] } })).toBe(0);
    for (const [method, path, body] of [
      ["GET", "", undefined],
      ["DELETE", "", undefined],
      ["PATCH", "", { label: "y" }],
      ["GET", "/storage-state", undefined],
      ["POST", ":save", { session_id: "ses_x" }],
    ] as const) {
      expect((await api(method, `/v1/profiles/${ids[0]}${path}`, body, listing.key)).status, `${method} ${path}`).toBe(404);
    }
    const s = await createSession(t, listing.key, { region: "us-east1", profile_id: ids[0] });
    expect(s.res.status).toBe(404);
    const audit = await prisma().auditEntry.findMany({
      where: { workspaceId: listing.workspace.id, target: ids[0], httpStatus: { lt: 300 } },
      select: { action: true },
    });
    expect(audit.map((e) => e.action).sort()).toEqual(["profile.create", "profile.delete", "profile.update"]);
  });

  it("another workspace's profiles and sessions are 404", async () => {
    const other = await seedWorkspace(t);
    const mine = (await (await api("POST", "/v1/profiles", { label: "mine", storage_state: { cookies: [], origins: [] } })).json()) as ProfileBody;
    for (const [method, path, body] of [
      ["GET", "", undefined],
      ["PATCH", "", { label: "theirs" }],
      ["DELETE", "", undefined],
      ["GET", "/storage-state", undefined],
    ] as const) {
      expect((await api(method, `/v1/profiles/${mine.profile_id}${path}`, body, other.key)).status, `${method} ${path}`).toBe(404);
    }
    const list = (await (await api("GET", "/v1/profiles", undefined, other.key)).json()) as { items: unknown[] };
    expect(list.items).toEqual([]);
    expect((await createSession(t, other.key, { region: "us-east1", profile_id: mine.profile_id })).res.status).toBe(404);

    const session = await createSession(t, ws.key);
    expect((await api("POST", "/v1/profiles", { label: "steal", session_id: session.body.id }, other.key)).status).toBe(404);
    const theirs = (await (
      await api("POST", "/v1/profiles", { label: "theirs", storage_state: { cookies: [], origins: [] } }, other.key)
    ).json()) as ProfileBody;
    expect((await api("POST", `/v1/profiles/${theirs.profile_id}:save`, { session_id: session.body.id }, other.key)).status).toBe(404);
    expect((await api("POST", `/v1/profiles/${mine.profile_id}:save`, { session_id: session.body.id }, other.key)).status).toBe(404);
    expect((await prisma().profile.findUniqueOrThrow({ where: { id: mine.profile_id } })).label).toBe("mine");
    await releaseSession(t, ws.key, session.body.id);
  });

  it("has GraphQL twins of every operation", async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...bearer(ws.key) },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as { data?: Record<string, any>; errors?: Array<{ message: string; extensions?: { code?: string } }> };
    };
    const created = await gql(`mutation($input: CreateProfileInput!) { createProfile(input: $input) { profileId label cookieCount originCount keyCount } }`, {
      input: {
        label: "gql",
        storageState: {
          cookies: [{ name: "sid", value: "gql-secret", domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" }],
          origins: [{ origin: a.origin, localStorage: [{ name: "k", value: "v" }], sessionStorage: [{ name: "s", value: "w" }] }],
        },
      },
    });
    expect(created.errors).toBeUndefined();
    const id = created.data!.createProfile.profileId as string;
    expect(created.data!.createProfile).toMatchObject({ label: "gql", cookieCount: 1, originCount: 1, keyCount: 2 });
    expect((await gql(`query($id: String!) { profile(id: $id) { profileId formatVersion } }`, { id })).data!.profile).toEqual({
      profileId: id,
      formatVersion: 1,
    });
    const list = await gql(`{ profiles(limit: 100) { items { profileId } hasMore } }`);
    expect(list.data!.profiles.items.map((p: { profileId: string }) => p.profileId)).toContain(id);
    expect((await gql(`mutation($id: String!) { updateProfile(id: $id, label: "gql2") { label } }`, { id })).data!.updateProfile.label).toBe("gql2");
    const exported = await gql(
      `query($id: String!) { profileStorageState(id: $id) { cookies { name value httpOnly sameSite expires } origins { origin localStorage { name value } sessionStorage { name value } } } }`,
      { id },
    );
    expect(exported.data!.profileStorageState).toEqual({
      cookies: [{ name: "sid", value: "gql-secret", httpOnly: true, sameSite: "Lax", expires: -1 }],
      origins: [{ origin: a.origin, localStorage: [{ name: "k", value: "v" }], sessionStorage: [{ name: "s", value: "w" }] }],
    });
    const bad = await gql(
      `mutation { createProfile(input: { label: "bad", storageState: { cookies: [], origins: [{ origin: "nope", localStorage: [] }] } }) { profileId } }`,
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe("VALIDATION_FAILED");
    const save = await gql(`mutation($id: String!) { saveProfile(id: $id, sessionId: "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV") { profileId } }`, { id });
    expect(save.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gql(`mutation($id: String!) { deleteProfile(id: $id) }`, { id })).data!.deleteProfile).toBe(true);
    expect((await gql(`query($id: String!) { profile(id: $id) { profileId } }`, { id })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    await t.app.deps.audit.flush();
    const actions = await prisma().auditEntry.findMany({ where: { target: id }, select: { action: true } });
    expect(new Set(actions.map((e) => e.action))).toEqual(
      new Set(["profile.create", "profile.get", "profile.update", "profile.export", "profile.save", "profile.delete"]),
    );
  });

  it("master-key rotation re-wraps data keys and signing keys without touching payloads; profiles stay readable", async () => {
    const db = await openDatabase({ dataDir: "memory://" });
    const oldKey = randomBytes(32).toString("base64");
    const newKey = randomBytes(32).toString("base64");
    const env = { VESSEL_BROWSER_WARM: "0", VESSEL_BROWSER_CAPACITY: "1" };
    let app = await startTestApp({ db, env: { ...env, VESSEL_MASTER_KEY: oldKey } });
    let profileId: string;
    let seeded: Seeded;
    let original: StorageStateBody;
    try {
      seeded = await seedWorkspace(app);
      const state = {
        cookies: [{ name: "sid_a", value: secrets.a.cookie, domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" }],
        origins: [
          { origin: a.origin, localStorage: [{ name: "token_a", value: secrets.a.local }], sessionStorage: [{ name: "tab_a", value: secrets.a.session }] },
        ],
      };
      const res = await fetch(`${app.url}/v1/profiles`, {
        method: "POST",
        headers: { ...bearer(seeded.key), "content-type": "application/json" },
        body: JSON.stringify({ label: "rotate me", storage_state: state }),
      });
      profileId = ((await res.json()) as ProfileBody).profile_id;
      original = (await (await fetch(`${app.url}/v1/profiles/${profileId}/storage-state`, { headers: bearer(seeded.key) })).json()) as StorageStateBody;
      // A session makes the node create its token signing key (sealed under the master key).
      const s = await createSession(app, seeded.key);
      await releaseSession(app, seeded.key, s.body.id);
    } finally {
      await app.stop();
    }
    const before = await db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    const signingKeys = await db.prisma.signingKey.count();
    expect(signingKeys).toBeGreaterThan(0);

    const report = await rotateMasterKey(db.prisma, masterKey(oldKey), masterKey(newKey));
    expect(report.profiles).toEqual({ rewrapped: 1, alreadyNew: 0, otherKey: 0, failed: [] });
    expect(report.signingKeys).toMatchObject({ rewrapped: signingKeys, failed: [] });
    const after = await db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
    expect(Buffer.from(after.ciphertext).equals(Buffer.from(before.ciphertext))).toBe(true);
    expect(Buffer.from(after.nonce).equals(Buffer.from(before.nonce))).toBe(true);
    expect(Buffer.from(after.authTag).equals(Buffer.from(before.authTag))).toBe(true);
    expect(Buffer.from(after.wrappedKey).equals(Buffer.from(before.wrappedKey))).toBe(false);
    expect(after.masterKeyId).toBe(masterKey(newKey).id);
    expect(await db.prisma.signingKey.count({ where: { masterKeyId: masterKey(newKey).id } })).toBe(signingKeys);
    // A second run finds nothing left to do.
    expect((await rotateMasterKey(db.prisma, masterKey(oldKey), masterKey(newKey))).profiles).toMatchObject({ rewrapped: 0, alreadyNew: 1 });

    app = await startTestApp({ db, env: { ...env, VESSEL_MASTER_KEY: newKey } });
    try {
      const exported = await fetch(`${app.url}/v1/profiles/${profileId}/storage-state`, { headers: bearer(seeded.key) });
      expect(exported.status).toBe(200);
      expect(await exported.json()).toEqual(original);
      const s = await createSession(app, seeded.key, { region: "us-east1", profile_id: profileId });
      expect(s.res.status).toBe(201);
      // Its tokens were signed with the re-wrapped key: no new one was needed.
      expect(await db.prisma.signingKey.count()).toBe(signingKeys);
      const browser = await puppeteer.connect({ browserWSEndpoint: s.body.connect_url!, defaultViewport: null });
      try {
        const saw = await sawOn(await browser.newPage(), a.origin);
        expect(saw).toMatchObject({ serverSawLogin: true, local: { token_a: secrets.a.local }, session: { tab_a: secrets.a.session } });
      } finally {
        await browser.disconnect();
      }
      await releaseSession(app, seeded.key, s.body.id);
    } finally {
      await app.stop();
      await db.close();
    }
  });

  // Last: every flow above has run by now.
  it("no cookie or storage value reaches the database in the clear, the audit log, session events or the server log", async () => {
    await profileFromLogin("raw check");
    const rows = await prisma().$queryRawUnsafe<Array<Record<string, unknown>>>("SELECT * FROM profiles");
    expect(rows.length).toBeGreaterThan(3);
    const raw = rows
      .flatMap((r) => Object.values(r))
      .map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : JSON.stringify(v)))
      .join("\n");
    for (const secret of allSecrets) expect(raw).not.toContain(secret);
    const elsewhere = JSON.stringify([
      await prisma().auditEntry.findMany(),
      await prisma().sessionEvent.findMany(),
      await prisma().idempotencyRecord.findMany(),
    ]);
    const log = logs.join("");
    expect(log).toContain("profile restored");
    for (const secret of allSecrets) {
      expect(elsewhere).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });
});
