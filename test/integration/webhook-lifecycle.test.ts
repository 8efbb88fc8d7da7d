import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EgressPolicy, parseAllowlist } from "../../src/browser/egress/policy.ts";
import { toSessionDto } from "../../src/services/sessions/session-wire.ts";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { sessionPayload } from "../../src/services/webhooks/webhook-payload.ts";
import { openSecret } from "../../src/services/webhooks/webhook-secrets.ts";
import { retryDelayMs } from "../../src/services/webhooks/webhook-outcomes.ts";
import { sendAttempt } from "../../src/services/webhooks/webhook-sender.ts";
import type { Session } from "../../src/generated/prisma/client.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { startReceiver, type Receiver } from "../support/webhook-receiver.ts";

/**
 * The parts of webhooks that need a clock or a resolver of the test's own: an endpoint failing for
 * 3 days is disabled (and turned back on), a delivery is given up after 24 hours, the backoff
 * doubles, the egress policy judges the address connected to, and a body's session is the REST one.
 */
describe("webhook deliveries over time", () => {
  let t: TestApp;
  let ws: Seeded;
  let receiver: Receiver;
  let clock = new Date("2026-01-01T00:00:00Z").getTime();
  beforeAll(async () => {
    // No browsers, so the dispatcher does not run by itself: the test runs its rounds (runOnce).
    t = await startTestApp({ startBrowsers: false, now: () => new Date(clock) });
    ws = await seedWorkspace(t);
    receiver = await startReceiver();
    receiver.answer = () => 503;
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const round = () => t.app.deps.webhooks!.runOnce();
  const hours = (h: number) => (clock += h * 3600_000);

  it("gives a delivery up after 24 hours, disables an endpoint failing for 3 days, and turns it back on", async () => {
    const hook = (await api("POST", "/v1/webhooks", { url: `${receiver.url}/down`, events: ["session.released"] })).body as { id: string };
    const first = (await api("POST", `/v1/webhooks/${hook.id}:test`)).body as { id: string };
    expect(await round()).toBe(1);
    let d = await t.app.deps.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: first.id } });
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 503 });
    hours(25);
    expect(await round()).toBe(1);
    d = await t.app.deps.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: first.id } });
    expect(d).toMatchObject({ status: "failed", attempts: 2 });
    expect((await api("GET", `/v1/webhooks/${hook.id}`)).body).toMatchObject({ enabled: true });

    const second = (await api("POST", `/v1/webhooks/${hook.id}:test`)).body as { id: string };
    hours(48);
    expect(await round()).toBe(1);
    const shown = (await api("GET", `/v1/webhooks/${hook.id}`)).body;
    expect(shown).toMatchObject({ enabled: false, disabled_reason: "every delivery failed for 3 days" });
    expect(Date.parse(shown.disabled_at as string)).toBe(clock);
    // Nothing of it waits any more.
    d = await t.app.deps.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: second.id } });
    expect(d.status).toBe("failed");
    expect(await t.app.deps.db.prisma.webhookDelivery.count({ where: { endpointId: hook.id, status: "pending" } })).toBe(0);
    // A disabled endpoint is sent nothing; a test event is refused until it is turned on.
    expect((await api("POST", `/v1/webhooks/${hook.id}:test`)).status).toBe(409);
    const turnedOn = await api("PATCH", `/v1/webhooks/${hook.id}`, { enabled: true });
    expect(turnedOn.body).toMatchObject({ enabled: true, disabled_at: null, disabled_reason: null });
    receiver.answer = () => 204;
    expect((await api("POST", `/v1/webhooks/${hook.id}/deliveries/${first.id}:retry`)).status).toBe(202);
    await round();
    d = await t.app.deps.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: first.id } });
    expect(d).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 204 });
    expect((await t.app.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } })).failingSince).toBeNull();
  });

  it("deletes done deliveries after 30 days (the maintenance job), never a pending one", async () => {
    const hook = (await api("POST", "/v1/webhooks", { url: `${receiver.url}/old`, events: ["session.released"] })).body as { id: string };
    receiver.answer = () => 200;
    const done = (await api("POST", `/v1/webhooks/${hook.id}:test`)).body as { id: string };
    await round();
    receiver.answer = () => 503;
    const waiting = (await api("POST", `/v1/webhooks/${hook.id}:test`)).body as { id: string };
    hours(24 * 31);
    await t.app.jobs.runNow("purge-old-webhook-deliveries");
    const left = await t.app.deps.db.prisma.webhookDelivery.findMany({ where: { endpointId: hook.id }, select: { id: true } });
    expect(left.map((d) => d.id)).toEqual([waiting.id]);
    expect(done.id).not.toBe(waiting.id);
  });

  it("re-seals both secrets of a rotated webhook under a new master key", async () => {
    const made = (await api("POST", "/v1/webhooks", { url: `${receiver.url}/keys`, events: ["session.released"] })).body as { id: string; secret: string };
    const rotated = (await api("POST", `/v1/webhooks/${made.id}:rotate-secret`)).body as { secret: string };
    const oldKey = t.app.deps.masterKey;
    const raw = randomBytes(32);
    const newKey = { key: raw, id: masterKeyId(raw) };
    const report = await rotateMasterKey(t.app.deps.db.prisma, oldKey, newKey);
    expect(report.webhookSecrets).toMatchObject({ failed: [] });
    expect(report.webhookSecrets.rewrapped).toBeGreaterThanOrEqual(1);
    expect(report.webhookPreviousSecrets).toMatchObject({ rewrapped: 1, failed: [] });
    const row = await t.app.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: made.id } });
    expect([row.masterKeyId, row.previousMasterKeyId]).toEqual([newKey.id, newKey.id]);
    const decoded = (s: string) => Buffer.from(s.slice(6), "base64");
    expect(openSecret(newKey, made.id, row.secret)).toEqual(decoded(rotated.secret));
    expect(openSecret(newKey, made.id, row.previousSecret!)).toEqual(decoded(made.secret));
    expect(() => openSecret(oldKey, made.id, row.secret)).toThrow();
    // A second run finds nothing left under the old key.
    expect((await rotateMasterKey(t.app.deps.db.prisma, oldKey, newKey)).webhookSecrets).toMatchObject({ rewrapped: 0 });
  });

  it("doubles the delay after each failed attempt, at most 4 hours apart", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 5000))).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(retryDelayMs(30, 5000)).toBe(4 * 3600_000);
  });
});

describe("a delivery's attempt and the egress policy", () => {
  let server: http.Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const send = (url: string, policy: EgressPolicy, resolve?: (h: string) => Promise<string[]>) =>
    sendAttempt(url, { "webhook-id": "msg_x" }, "{}", { policy, timeoutMs: 2000, resolve });

  it("refuses a name that resolves to a blocked address, without connecting (DNS rebinding gains nothing)", async () => {
    const closed = new EgressPolicy();
    const before = hits;
    const outcome = await send(`http://rebind.example:${port}/`, closed, async () => ["10.20.30.40", "127.0.0.1"]);
    expect(outcome).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/^blocked-address: rebind\.example /),
      addresses: ["10.20.30.40", "127.0.0.1"],
    });
    // The reason reaches the tenant (the delivery log): it must not map internal names to addresses.
    expect((outcome as { reason: string }).reason).not.toMatch(/10\.20\.30\.40|127\.0\.0\.1/);
    expect(hits).toBe(before);
    expect(await send(`http://127.0.0.1:${port}/`, closed)).toMatchObject({ kind: "refused" });
    expect(await send(`http://[::ffff:127.0.0.1]:${port}/`, closed)).toMatchObject({ kind: "refused" });
    expect(await send(`http://nowhere.example:${port}/`, closed, async () => [])).toMatchObject({ kind: "refused", reason: "unresolvable" });
  });

  it("connects to the address it checked, and does not follow a redirect", async () => {
    const open = new EgressPolicy(parseAllowlist(["127.0.0.1/32"]));
    const before = hits;
    // The name resolves to a public address first, then loopback: only the allowed one is used.
    const outcome = await send(`http://receiver.example:${port}/`, open, async () => ["127.0.0.1"]);
    expect(outcome).toEqual({ kind: "answered", status: 302 });
    expect(hits).toBe(before + 1);
  });

  it("builds a session body field for field as GET /v1/sessions/{id} answers it (without its URLs)", () => {
    const row = {
      id: "ses_01J0000000000000000000000",
      workspaceId: "ws",
      status: "RELEASED",
      endReason: "CLIENT_RELEASE",
      region: "us-east1",
      createdAt: new Date(1),
      startedAt: new Date(2),
      expiresAt: new Date(3),
      endedAt: new Date(4),
      timeoutSeconds: 60,
      idleTimeoutSeconds: null,
      profileId: null,
      liveViewInteractive: true,
      liveViewInstructions: "x",
      metadata: { a: "b" },
      browser: null,
      extensionIds: [],
      options: {},
      logs: true,
      recording: false,
    } as unknown as Session;
    expect(sessionPayload(row)).toEqual(toSessionDto(row));
  });
});
