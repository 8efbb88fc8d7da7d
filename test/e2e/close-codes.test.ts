import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKey, bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { alive, createSession, eventually, getSession, handshake, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { cdpSocket, closedWithin, liveViewSocket, type ObservedSocket } from "../support/sockets.ts";

/**
 * The close codes of a session's sockets (README, "WebSocket close codes"), each seen by a real
 * client: a plain `ws` on the CDP endpoint (beside Puppeteer where a client drives the browser) and
 * on the live-view socket. Drain (1001) is in faults.test.ts, with a real SIGTERM.
 */

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** Both of a session's sockets, open: a CDP client and a live viewer that got its picture's hello. */
async function openBoth(t: TestApp, s: { connect_url: string | null; live_view_url: string | null }): Promise<{ cdp: ObservedSocket; viewer: ObservedSocket }> {
  const cdp = cdpSocket(s.connect_url!);
  expect(await cdp.opened).toBe("open");
  const viewer = liveViewSocket(t.url, s.live_view_url!);
  expect(await viewer.opened).toBe("open");
  await viewer.next("hello");
  return { cdp, viewer };
}

describe.skipIf(!hasChromium)("session socket close codes, seen by real clients", () => {
  let t: TestApp;
  let ws: Seeded;
  let owner: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
    owner = await seedUser(t, ws.workspace.id, "OWNER");
  });
  afterAll(async () => t?.stop());

  it("a released session closes its sockets with 4410; its addresses are refused afterwards (410, 4410)", async () => {
    const { body } = await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: true } });
    const { cdp, viewer } = await openBoth(t, body);
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    expect((await closedWithin(cdp, 10_000)).code).toBe(4410);
    expect((await closedWithin(viewer, 10_000)).code).toBe(4410);
    expect(viewer.messages.at(-1)).toMatchObject({ t: "end", reason: "session_ended", message: expect.stringMatching(/released by its owner/) });
    expect(await handshake(body.connect_url!)).toBe(410);
    const again = liveViewSocket(t.url, body.live_view_url!);
    expect((await closedWithin(again, 10_000)).code).toBe(4410);
  });

  it("J58: a crashed browser: 1011 to its clients, FAILED browser_crash with its event, the slot freed, the other session untouched", async () => {
    const a = (await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: false } })).body;
    const b = (await createSession(t, ws.key)).body;
    // The node is full (capacity 2): one more is refused until a slot frees.
    expect((await createSession(t, ws.key)).res.status).toBe(503);
    const driver = await puppeteer.connect({ browserWSEndpoint: b.connect_url! });
    try {
      const { cdp, viewer } = await openBoth(t, a);
      const { pid } = t.app.deps.runtime.endpoint(a.id)!;
      process.kill(-pid, "SIGKILL");
      expect((await closedWithin(cdp, 10_000)).code).toBe(1011);
      expect((await closedWithin(viewer, 10_000)).code).toBe(1011);
      expect(
        await eventually(
          () => getSession(t, ws.key, a.id),
          (s) => s.status !== "RUNNING",
        ),
      ).toMatchObject({ status: "FAILED", end_reason: "browser_crash" });
      const failed = await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: a.id, type: "session.failed" } });
      expect(failed.map((e) => e.data)).toEqual([{ reason: "browser_crash" }]);
      await eventually(
        async () => alive(pid),
        (up) => !up,
      );
      // The slot is free again: a create at the cap succeeds.
      const c = await createSession(t, ws.key);
      expect(c.res.status).toBe(201);
      // The other session never noticed.
      const [page] = await driver.pages();
      expect(await (page ?? (await driver.newPage())).evaluate(() => 6 * 7)).toBe(42);
      expect((await getSession(t, ws.key, b.id)).status).toBe("RUNNING");
      await releaseSession(t, ws.key, c.body.id);
    } finally {
      await driver.disconnect();
      await releaseSession(t, ws.key, b.id);
    }
  });

  it("a page endpoint whose page closes is closed normally (1000), not as a crash; the session runs on", async () => {
    const { body } = await createSession(t, ws.key);
    try {
      const driver = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
      const tab = await driver.newPage();
      await tab.goto("about:blank#close-me");
      const list = (await (await fetch(`${body.connect_url!.replace(/^ws/, "http").replace("/cdp?", "/cdp/json/list?")}`)).json()) as Array<{
        url: string;
        webSocketDebuggerUrl: string;
      }>;
      const pageClient = cdpSocket(list.find((e) => e.url === "about:blank#close-me")!.webSocketDebuggerUrl);
      expect(await pageClient.opened).toBe("open");
      await tab.close();
      expect((await closedWithin(pageClient, 10_000)).code).toBe(1000);
      expect((await getSession(t, ws.key, body.id)).status).toBe("RUNNING");
      await driver.disconnect();
    } finally {
      await releaseSession(t, ws.key, body.id);
    }
  });

  it("H48: revoking the key with end_sessions closes both sockets with 4403 and ends the session; the same tokens are refused after", async () => {
    const revoked = await addKey(t, ws.workspace.id);
    const kept = await addKey(t, ws.workspace.id);
    const byRevoked = (await createSession(t, revoked.key, { region: "us-east1", live_view: { interactive: true } })).body;
    const byKept = (await createSession(t, kept.key)).body;
    try {
      const { cdp, viewer } = await openBoth(t, byRevoked);
      const bystander = cdpSocket(byKept.connect_url!);
      expect(await bystander.opened).toBe("open");

      const res = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${revoked.keyId}?end_sessions=true`, {
        method: "DELETE",
        headers: userAuth(owner),
      });
      expect(res.status).toBe(204);
      // The sockets are closed before the answer is written; 5 s is security.md's bound.
      expect(await closedWithin(cdp, 5_000)).toEqual({ code: 4403, reason: "the credential was revoked" });
      expect((await closedWithin(viewer, 5_000)).code).toBe(4403);
      expect(viewer.messages.at(-1)).toMatchObject({ t: "end", reason: "revoked", message: expect.stringMatching(/API key that started it was revoked/) });
      expect(await t.app.deps.db.prisma.session.findUniqueOrThrow({ where: { id: byRevoked.id } })).toMatchObject({
        status: "RELEASED",
        endReason: "API_KEY_REVOKED",
        endedById: owner,
      });
      // Reconnecting with the same unexpired tokens: refused.
      expect(await handshake(byRevoked.connect_url!)).toBe(410);
      expect((await fetch(byRevoked.live_view_url!)).status).toBe(410);
      expect((await closedWithin(liveViewSocket(t.url, byRevoked.live_view_url!), 10_000)).code).toBe(4410);
      // Another key's session runs on.
      expect(bystander.ws.readyState).toBe(bystander.ws.OPEN);
      bystander.ws.close();
    } finally {
      await releaseSession(t, kept.key, byKept.id);
    }
  });

  it("revoking a key without end_sessions leaves its sessions running; the GraphQL mutation's endSessions ends them", async () => {
    const key = await addKey(t, ws.workspace.id);
    const { body } = await createSession(t, key.key);
    const cdp = cdpSocket(body.connect_url!);
    expect(await cdp.opened).toBe("open");
    expect((await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${key.keyId}`, { method: "DELETE", headers: userAuth(owner) })).status).toBe(
      204,
    );
    expect((await t.app.deps.db.prisma.session.findUniqueOrThrow({ where: { id: body.id } })).status).toBe("RUNNING");
    expect(cdp.ws.readyState).toBe(cdp.ws.OPEN);
    // The key is revoked already: endSessions still ends what it started.
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...userAuth(owner), "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { revokeApiKey(workspace: "${ws.workspace.slug}", id: "${key.keyId}", endSessions: true) { id revokedAt } }` }),
    });
    expect(((await gql.json()) as { errors?: unknown }).errors).toBeUndefined();
    expect((await closedWithin(cdp, 5_000)).code).toBe(4403);
    expect(await t.app.deps.db.prisma.session.findUniqueOrThrow({ where: { id: body.id } })).toMatchObject({
      status: "RELEASED",
      endReason: "API_KEY_REVOKED",
    });
  });

  it("a live-view revocation holds when its pub/sub message is lost: the owning node re-checks and closes with 4403", async () => {
    const { body } = await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: true } });
    try {
      const viewer = liveViewSocket(t.url, body.live_view_url!);
      await viewer.next("hello");
      // What revokeLiveViews commits, without the message it then publishes.
      await t.app.deps.db.prisma.session.update({ where: { id: body.id }, data: { liveViewGeneration: { increment: 1 } } });
      expect((await closedWithin(viewer, 10_000)).code).toBe(4403);
      expect(viewer.messages.at(-1)).toMatchObject({ t: "end", reason: "revoked" });
      // The session itself runs on.
      expect((await getSession(t, ws.key, body.id)).status).toBe("RUNNING");
    } finally {
      await releaseSession(t, ws.key, body.id);
    }
  });

  it("J59: the hard end closes the client with 4410 and a keepalive does not move it; a timeout above the maximum is 400", async () => {
    expect((await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 1801 })).res.status).toBe(400);
    const { body } = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 3 });
    const cdp = cdpSocket(body.connect_url!);
    expect(await cdp.opened).toBe("open");
    const renewed = (await (await fetch(`${t.url}/v1/sessions/${body.id}:keepalive`, { method: "POST", headers: bearer(ws.key) })).json()) as {
      expires_at: string;
    };
    expect(renewed.expires_at).toBe(body.expires_at);
    expect((await closedWithin(cdp, 20_000)).code).toBe(4410);
    expect(await getSession(t, ws.key, body.id)).toMatchObject({ status: "TIMED_OUT", end_reason: "timeout" });
  });
});
