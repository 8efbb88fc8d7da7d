import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { chromium, type Browser as ViewerBrowser } from "playwright-core";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "@vessel/client";
import { findChromium } from "../../src/browser/launch/command.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { hasFfmpeg } from "../support/recordings.ts";
import { servicesRequired } from "../support/services.ts";
import { signedBy, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

const executablePath = findChromium();
if ((!executablePath || !hasFfmpeg) && servicesRequired) throw new Error("Chromium and ffmpeg are required (VESSEL_REQUIRE_SERVICES=1)");

interface Webhook {
  id: string;
  url: string;
  events: string[];
  secret?: string;
  enabled: boolean;
  previous_secret_expires_at: string | null;
}
interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
}

/**
 * Webhooks end to end on one node (embedded database): a receiver on loopback (allowed by
 * VESSEL_WEBHOOK_ALLOW, as startTestApp sets it) gets session and live-view events with signatures
 * it checks itself; retries keep their webhook-id; a private address is refused at creation and at delivery.
 */
describe.skipIf(!executablePath)("webhooks", () => {
  let t: TestApp;
  let ws: Seeded;
  let receiver: Receiver;
  let viewers: ViewerBrowser;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_WEBHOOK_RETRY_BASE_MS: "150" } });
    ws = await seedWorkspace(t);
    receiver = await startReceiver();
    viewers = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
  });
  afterAll(async () => {
    await viewers?.close();
    await t?.stop();
    await receiver?.close();
  });

  const api = async (method: string, path: string, body?: unknown, auth = bearer(ws.key)) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...auth, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
  const create = async (path: string, events: string[]) => {
    const res = await api("POST", "/v1/webhooks", { url: `${receiver.url}${path}`, events, description: path });
    expect(res.status).toBe(201);
    return res.body as unknown as Webhook;
  };
  const deliveries = async (id: string) => (await api("GET", `/v1/webhooks/${id}/deliveries`)).body.items as Delivery[];
  const at = (path: string) => receiver.received.filter((r) => r.path === path);

  it("creates, shows the secret once, lists, changes and deletes; audited", async () => {
    const hook = await create("/crud", ["session.released"]);
    expect(hook.id).toMatch(/^whk_/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret!.slice(6), "base64")).toHaveLength(32);
    const got = await api("GET", `/v1/webhooks/${hook.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("secret");
    const list = await api("GET", "/v1/webhooks");
    expect(list.body).toMatchObject({ has_more: false, next_cursor: null });
    expect((list.body.items as Webhook[]).map((w) => w.id)).toContain(hook.id);
    expect(JSON.stringify(list.body)).not.toContain(hook.secret!.slice(6));
    const patched = await api("PATCH", `/v1/webhooks/${hook.id}`, { events: ["session.failed", "live_view.done"], enabled: false });
    expect(patched.body).toMatchObject({ events: ["session.failed", "live_view.done"], enabled: false, disabled_reason: "turned off" });
    expect((await api("PATCH", `/v1/webhooks/${hook.id}`, { enabled: true })).body).toMatchObject({ enabled: true, disabled_at: null });
    expect((await api("DELETE", `/v1/webhooks/${hook.id}`)).status).toBe(204);
    expect((await api("GET", `/v1/webhooks/${hook.id}`)).status).toBe(404);
    // The secret is stored sealed, never in the clear; the audit log names the actions, not the secret.
    const audit = await eventually(
      () => t.app.deps.db.prisma.auditEntry.findMany({ where: { target: hook.id } }),
      (a) => a.length >= 6,
    );
    expect(audit.map((a) => a.action).sort()).toEqual(["webhook.create", "webhook.delete", "webhook.read", "webhook.read", "webhook.update", "webhook.update"]);
    expect(JSON.stringify(audit)).not.toContain(hook.secret!.slice(6));
  });

  it("refuses bad input with a problem document and changes nothing", async () => {
    const before = await t.app.deps.db.prisma.webhookEndpoint.count();
    const bad: Array<[unknown, string]> = [
      [{ url: "not a url", events: ["session.running"] }, "body.url"],
      [{ url: "ftp://example.com/hook", events: ["session.running"] }, "body.url"],
      [{ url: "javascript:alert(1)", events: ["session.running"] }, "body.url"],
      [{ url: "https://user:pw@example.com/hook", events: ["session.running"] }, "body.url"],
      [{ url: "https://example.com/hook", events: ["session.exploded"] }, "body.events.0"],
      [{ url: "https://example.com/hook", events: [] }, "body.events"],
      [{ url: "https://example.com/hook" }, "body.events"],
      [{ url: "https://example.com/hook", events: ["session.running"], secret: "mine" }, "body"],
    ];
    for (const [body, field] of bad) {
      const res = await api("POST", "/v1/webhooks", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
    expect((await api("PATCH", "/v1/webhooks/whk_01JZZZZZZZZZZZZZZZZZZZZZZZ", { enabled: true })).status).toBe(404);
    expect(await t.app.deps.db.prisma.webhookEndpoint.count()).toBe(before);
  });

  it("delivers session.running, live_view.done and session.released, signed, with the REST shapes", async () => {
    const hook = await create("/session", ["session.running", "session.released", "live_view.done"]);
    const other = await create("/released-only", ["session.released"]);
    const { res, body: session } = await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: true, instructions: "Click Done" } });
    expect(res.status).toBe(201);
    await eventually(
      async () => at("/session").length,
      (n) => n >= 1,
    );
    // A real person clicks Done in the live view.
    const page = await viewers.newPage();
    await page.goto(session.live_view_url!);
    await page.click("#done");
    await eventually(
      async () => at("/session").length,
      (n) => n >= 2,
      15_000,
    );
    expect((await releaseSession(t, ws.key, session.id)).ok).toBe(true);
    await eventually(
      async () => at("/session").length,
      (n) => n >= 3,
    );
    await page.close();

    const got = at("/session");
    expect(got.map((r) => JSON.parse(r.body).type)).toEqual(["session.running", "live_view.done", "session.released"]);
    for (const r of got) {
      expect(signedBy([hook.secret!, other.secret!], r)).toEqual([hook.secret]);
      expect(r.headers["webhook-id"]).toMatch(/^msg_/);
      expect(Math.abs(Number(r.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(300);
      expect(r.headers["content-type"]).toBe("application/json");
      // The client library's check agrees with the independent one.
      expect(verifyWebhook(hook.secret!, r.headers, r.body).type).toBe(JSON.parse(r.body).type);
      expect(() => verifyWebhook(other.secret!, r.headers, r.body)).toThrow(WebhookVerificationError);
    }
    const [running, done, released] = got.map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> });
    const rest = (await api("GET", `/v1/sessions/${session.id}`)).body;
    // data is the session as GET /v1/sessions/{id} answers it (without its token-bearing URLs).
    expect(Object.keys(released!.data).sort()).toEqual(Object.keys(rest).sort());
    expect(released!.data).toMatchObject({ id: session.id, status: "RELEASED", end_reason: "client_release", connect_url: null, live_view_url: null });
    expect(running!.data).toMatchObject({ id: session.id, status: "RUNNING" });
    expect(done!.data).toMatchObject({ session_id: session.id, type: "live_view.done", id: expect.stringMatching(/^evt_/) });
    expect(Date.parse(running!.timestamp)).not.toBeNaN();
    // The endpoint subscribed to session.released alone got that one only.
    await eventually(
      async () => at("/released-only").length,
      (n) => n === 1,
    );
    expect(JSON.parse(at("/released-only")[0]!.body).type).toBe("session.released");
    const log = await deliveries(hook.id);
    expect(log.map((d) => [d.event, d.status, d.attempts, d.last_response_code])).toEqual([
      ["session.released", "delivered", 1, 200],
      ["live_view.done", "delivered", 1, 200],
      ["session.running", "delivered", 1, 200],
    ]);
  }, 60_000);

  it("delivers session.timed_out with the ended session", async () => {
    const hook = await create("/timeout", ["session.timed_out", "session.failed"]);
    const { res, body: session } = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 1 });
    expect(res.status).toBe(201);
    await eventually(
      async () => at("/timeout").length,
      (n) => n === 1,
      15_000,
    );
    const r = at("/timeout")[0]!;
    expect(signedBy([hook.secret!], r)).toEqual([hook.secret]);
    expect(JSON.parse(r.body)).toMatchObject({ type: "session.timed_out", data: { id: session.id, status: "TIMED_OUT", end_reason: "timeout" } });
  }, 30_000);

  it("delivers download.completed with the event as GET …/events answers it", async () => {
    const hook = await create("/download", ["download.completed"]);
    const site = http.createServer((req, res) => {
      if (req.url === "/report")
        return void res
          .writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="report.txt"' })
          .end("report body");
      res.writeHead(200, { "content-type": "text/html" }).end('<a id="dl" href="/report" download>download</a>');
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    const { body: session } = await createSession(t, ws.key);
    const driver = await puppeteer.connect({ browserWSEndpoint: session.connect_url!, defaultViewport: null });
    try {
      const page = await driver.newPage();
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      await page.click("#dl");
      await eventually(
        async () => at("/download").length,
        (n) => n === 1,
        15_000,
      );
    } finally {
      await driver.disconnect();
      await releaseSession(t, ws.key, session.id);
      site.close();
    }
    const r = at("/download")[0]!;
    expect(signedBy([hook.secret!], r)).toEqual([hook.secret]);
    const body = JSON.parse(r.body) as { type: string; data: { id: string } };
    const events = (await api("GET", `/v1/sessions/${session.id}/events?type=download.completed`)).body.items as Array<Record<string, unknown>>;
    expect(body).toMatchObject({ type: "download.completed" });
    expect(body.data).toEqual(events[0]);
    expect(body.data).toMatchObject({ session_id: session.id, data: { name: "report.txt", bytes: 11 } });
  }, 30_000);

  it.skipIf(!hasFfmpeg)(
    "delivers recording.ready once a recorded session's video is stored",
    async () => {
      const hook = await create("/recording", ["recording.ready"]);
      const { res, body: session } = await createSession(t, ws.key, { region: "us-east1", recording: true });
      expect(res.status).toBe(201);
      await new Promise((r) => setTimeout(r, 1000));
      await releaseSession(t, ws.key, session.id);
      await eventually(
        async () => at("/recording").length,
        (n) => n === 1,
        45_000,
      );
      const r = at("/recording")[0]!;
      expect(signedBy([hook.secret!], r)).toEqual([hook.secret]);
      expect(JSON.parse(r.body)).toMatchObject({
        type: "recording.ready",
        data: { session_id: session.id, type: "recording.ready", data: { size_bytes: expect.any(Number) } },
      });
    },
    60_000,
  );

  it("retries a 500 with backoff: 500, 500, 200 is three attempts with the same webhook-id", async () => {
    receiver.script("/flaky", [500, 500]);
    const hook = await create("/flaky", ["session.failed"]);
    const test = await api("POST", `/v1/webhooks/${hook.id}:test`);
    expect(test.status).toBe(202);
    await eventually(
      async () => at("/flaky").length,
      (n) => n >= 3,
      15_000,
    );
    const got = at("/flaky");
    expect(new Set(got.map((r) => r.headers["webhook-id"]))).toEqual(new Set([test.body.id]));
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(got[0]!.body)).toMatchObject({ type: "webhook.test", data: { webhook_id: hook.id } });
    for (const r of got) expect(signedBy([hook.secret!], r)).toEqual([hook.secret]);
    const [d] = await eventually(
      () => deliveries(hook.id),
      (l) => l[0]?.status === "delivered",
    );
    expect(d).toMatchObject({ event: "webhook.test", status: "delivered", attempts: 3, last_response_code: 200, last_error: null });
    // A retry by hand sends it again, same id and body.
    expect((await api("POST", `/v1/webhooks/${hook.id}/deliveries/${d!.id}:retry`)).status).toBe(202);
    await eventually(
      async () => at("/flaky").length,
      (n) => n === 4,
    );
    expect(at("/flaky")[3]!.headers["webhook-id"]).toBe(d!.id);
    expect(at("/flaky")[3]!.body).toBe(got[0]!.body);
  }, 30_000);

  /** A receiver that takes connections and never answers; `sockets` are the attempts it holds. */
  const blackHole = async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    return {
      sockets,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      close: () => {
        for (const socket of sockets) socket.destroy();
        server.close();
      },
    };
  };

  it("keeps delivering to others while a receiver never answers (its attempts wait for their own timeouts, 8 at a time)", async () => {
    const silent = await blackHole();
    try {
      const stuck = (await api("POST", "/v1/webhooks", { url: silent.url, events: ["session.released"] })).body as unknown as Webhook;
      for (let i = 0; i < 12; i++) expect((await api("POST", `/v1/webhooks/${stuck.id}:test`)).status).toBe(202);
      await eventually(
        async () => silent.sockets.size,
        (n) => n === 8,
      );
      const fine = await create("/beside-stuck", ["session.released"]);
      await api("POST", `/v1/webhooks/${fine.id}:test`);
      await eventually(
        async () => at("/beside-stuck").length,
        (n) => n === 1,
        9_000,
      );
      // Delivered while eight silent attempts were still waiting for an answer, and the other four
      // waited for a free place of their endpoint's eight.
      const waiting = await t.app.deps.db.prisma.webhookDelivery.findMany({ where: { endpointId: stuck.id } });
      expect(waiting.map((d) => [d.status, d.lastAttemptAt]).every(([status, last]) => status === "pending" && last === null)).toBe(true);
      expect(waiting.map((d) => d.attempts).sort()).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
      expect(silent.sockets.size).toBe(8);
      const timedOut = await eventually(
        () => deliveries(stuck.id),
        (l) => l.filter((x) => x.last_error !== null).length >= 8,
        20_000,
      );
      expect(timedOut.find((x) => x.last_error !== null)!.last_error).toBe("no answer within 10 s");
    } finally {
      silent.close();
    }
  }, 40_000);

  it("lets one workspace's silent receivers hold 16 attempts at most, so another workspace's deliveries go on", async () => {
    const hostile = await seedWorkspace(t);
    const silent = await blackHole();
    try {
      for (let e = 0; e < 3; e++) {
        const made = await api("POST", "/v1/webhooks", { url: `${silent.url}${e}`, events: ["session.released"] }, bearer(hostile.key));
        expect(made.status).toBe(201);
        const id = (made.body as unknown as Webhook).id;
        for (let i = 0; i < 8; i++) expect((await api("POST", `/v1/webhooks/${id}:test`, undefined, bearer(hostile.key))).status).toBe(202);
      }
      await eventually(
        async () => silent.sockets.size,
        (n) => n === 16,
      );
      const fine = await create("/other-workspace", ["session.released"]);
      await api("POST", `/v1/webhooks/${fine.id}:test`);
      await eventually(
        async () => at("/other-workspace").length,
        (n) => n === 1,
        9_000,
      );
      // The eight beyond the workspace's share were not sent meanwhile (a poll each second, and wakes).
      await new Promise((r) => setTimeout(r, 2_000));
      expect(silent.sockets.size).toBe(16);
    } finally {
      silent.close();
    }
  }, 40_000);

  it("refuses a private or metadata address at creation (422, naming VESSEL_WEBHOOK_ALLOW) and at delivery", async () => {
    const before = await t.app.deps.db.prisma.webhookEndpoint.count();
    for (const url of ["http://10.1.2.3/hook", "http://169.254.169.254/latest/meta-data", "http://[fd00::1]/hook"]) {
      const made = await api("POST", "/v1/webhooks", { url, events: ["session.released"] });
      expect(made.status, url).toBe(422);
      expect(made.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(made.body).toMatchObject({ type: expect.stringMatching(/\/errors\/webhook-address-refused$/), status: 422, setting: "VESSEL_WEBHOOK_ALLOW" });
      expect(made.body.detail).toContain("VESSEL_WEBHOOK_ALLOW");
    }
    expect(await t.app.deps.db.prisma.webhookEndpoint.count()).toBe(before);
    // A PATCH to such a URL is refused the same way and changes nothing.
    const hook = await create("/moved", ["session.released"]);
    const patched = await api("PATCH", `/v1/webhooks/${hook.id}`, { url: "http://10.1.2.3/hook" });
    expect(patched.status).toBe(422);
    expect(patched.body.type).toMatch(/webhook-address-refused$/);
    expect((await api("GET", `/v1/webhooks/${hook.id}`)).body.url).toBe(`${receiver.url}/moved`);
    // An endpoint stored before the list changed: its deliveries are refused by the same rule.
    await t.app.deps.db.prisma.webhookEndpoint.update({ where: { id: hook.id }, data: { url: "http://169.254.169.254/latest/meta-data" } });
    await api("POST", `/v1/webhooks/${hook.id}:test`);
    const [d] = await eventually(
      () => deliveries(hook.id),
      (l) => l[0]?.status !== "pending",
    );
    expect(d).toMatchObject({ status: "refused", attempts: 1, last_response_code: null });
    expect(d!.last_error).toMatch(/blocked-address/);
  });

  it("signs with both secrets for 24 hours after a rotation", async () => {
    const hook = await create("/rotated", ["session.released"]);
    const rotated = await api("POST", `/v1/webhooks/${hook.id}:rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const fresh = rotated.body as unknown as Webhook;
    expect(fresh.secret).not.toBe(hook.secret);
    expect(Date.parse(fresh.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await api("POST", `/v1/webhooks/${hook.id}:test`);
    await eventually(
      async () => at("/rotated").length,
      (n) => n === 1,
    );
    const r = at("/rotated")[0]!;
    expect(String(r.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(signedBy([hook.secret!, fresh.secret!], r).sort()).toEqual([hook.secret!, fresh.secret!].sort());
  });

  it("answers every route and GraphQL twin with 404 for another workspace's webhook or delivery, changing nothing and showing no secret", async () => {
    const hook = await create("/foreign", ["session.released"]);
    const sent = (await api("POST", `/v1/webhooks/${hook.id}:test`)).body as unknown as { id: string };
    const stranger = await seedWorkspace(t);
    const strangerAdmin = await seedUser(t, stranger.workspace.id, "OWNER");
    const before = await t.app.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } });
    const routes: Array<[string, string, unknown?]> = [
      ["GET", `/v1/webhooks/${hook.id}`],
      ["PATCH", `/v1/webhooks/${hook.id}`, { enabled: false, url: "http://example.com/x" }],
      ["POST", `/v1/webhooks/${hook.id}:rotate-secret`],
      ["POST", `/v1/webhooks/${hook.id}:test`],
      ["GET", `/v1/webhooks/${hook.id}/deliveries`],
      ["POST", `/v1/webhooks/${hook.id}/deliveries/${sent.id}:retry`],
      ["DELETE", `/v1/webhooks/${hook.id}`],
    ];
    for (const auth of [bearer(stranger.key), userAuth(strangerAdmin)]) {
      const q = "authorization" in auth && String(auth.authorization).startsWith("Bearer vs_") ? "" : `?workspace=${stranger.workspace.slug}`;
      for (const [method, path, body] of routes) {
        const res = await api(method, `${path}${q}`, body, auth);
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(JSON.stringify(res.body)).not.toMatch(/whsec_|foreign/);
      }
      const list = await api("GET", `/v1/webhooks${q}`, undefined, auth);
      expect(list.body.items).toEqual([]);
    }
    // The stranger's own webhook id with the victim's delivery id: no retry either.
    const theirs = await api("POST", "/v1/webhooks", { url: `${receiver.url}/theirs`, events: ["session.released"] }, bearer(stranger.key));
    const theirId = (theirs.body as unknown as Webhook).id;
    expect((await api("POST", `/v1/webhooks/${theirId}/deliveries/${sent.id}:retry`, undefined, bearer(stranger.key))).status).toBe(404);
    const gql = (query: string) =>
      fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { ...bearer(stranger.key), "content-type": "application/json" },
        body: JSON.stringify({ query }),
      }).then((r) => r.json() as Promise<{ errors?: Array<{ message: string; extensions: { code: string } }> }>);
    for (const op of [
      `{ webhook(id: "${hook.id}") { id } }`,
      `{ webhookDeliveries(id: "${hook.id}") { items { id } } }`,
      `mutation { updateWebhook(id: "${hook.id}", enabled: false) { id } }`,
      `mutation { rotateWebhookSecret(id: "${hook.id}") { secret } }`,
      `mutation { testWebhook(id: "${hook.id}") { id } }`,
      `mutation { retryWebhookDelivery(id: "${hook.id}", deliveryId: "${sent.id}") { id } }`,
      `mutation { deleteWebhook(id: "${hook.id}") }`,
    ]) {
      const r = await gql(op);
      expect([op, r.errors?.[0]?.extensions.code]).toEqual([op, "NOT_FOUND"]);
      expect(JSON.stringify(r)).not.toMatch(/whsec_/);
    }
    const after = await t.app.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } });
    expect(after).toEqual(before);
  });

  it("lets owners and admins manage webhooks over GraphQL, not members; keys of another workspace see nothing", async () => {
    const admin = await seedUser(t, ws.workspace.id, "ADMIN");
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    const gql = (auth: Record<string, string>, query: string) =>
      fetch(`${t.url}/graphql`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ query }) }).then(
        (r) => r.json() as Promise<{ data?: Record<string, unknown>; errors?: Array<{ extensions: { code: string } }> }>,
      );
    const made = await gql(
      userAuth(admin),
      `mutation { createWebhook(workspace: "${ws.workspace.slug}", url: "${receiver.url}/gql", events: ["session.released"]) { secret webhook { id events } } }`,
    );
    expect(made.errors).toBeUndefined();
    const id = (made.data!.createWebhook as { webhook: { id: string } }).webhook.id;
    const refused = await gql(userAuth(member), `{ webhooks(workspace: "${ws.workspace.slug}") { items { id } } }`);
    expect(refused.errors?.[0]?.extensions.code).toBe("FORBIDDEN");
    // REST takes them too (bearer token or cookie), naming the workspace.
    const viaRest = await api("GET", `/v1/webhooks?workspace=${ws.workspace.slug}`, undefined, userAuth(admin));
    expect(viaRest.status).toBe(200);
    expect((viaRest.body.items as Webhook[]).map((w) => w.id)).toContain(id);
    expect((await api("POST", `/v1/webhooks/${id}:test?workspace=${ws.workspace.slug}`, undefined, userAuth(admin))).status).toBe(202);
    expect((await api("GET", `/v1/webhooks?workspace=${ws.workspace.slug}`, undefined, userAuth(member))).status).toBe(403);
    expect((await api("GET", "/v1/webhooks", undefined, userAuth(admin))).status).toBe(400);
    const stranger = await seedWorkspace(t);
    expect((await api("GET", `/v1/webhooks/${id}`, undefined, bearer(stranger.key))).status).toBe(404);
    const listed = await gql(bearer(ws.key), `{ webhookDeliveries(id: "${id}") { items { id } } webhook(id: "${id}") { url } }`);
    expect(listed.errors).toBeUndefined();
  });
});
