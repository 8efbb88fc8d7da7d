import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, exitCodes } from "@vessel/client/cli";
import {
  AuthenticationError,
  InsufficientCapacityError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  UnknownRegionError,
  ValidationError,
  Vessel,
  VesselError,
} from "@vessel/client";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** The real fetch, with every request's method, path and Idempotency-Key noted on the way. */
function recordingFetch(log: Array<{ method: string; path: string; key: string | null; status: number }>): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    log.push({ method: request.method, path: new URL(request.url).pathname, key: request.headers.get("idempotency-key"), status: response.status });
    return response;
  };
}

describe.skipIf(!hasChromium)("the client library and CLI against a running server", () => {
  let t: TestApp;
  let ws: Seeded;
  let vessel: Vessel;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
    vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
  });
  afterAll(async () => t?.stop());
  afterEach(async () => {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  it("creates, reads, keeps alive, lists across pages, reads events and releases", async () => {
    const session = await vessel.sessions.create({ region: "us-east1", liveView: { interactive: true, instructions: "Sign in" } });
    expect(session.status).toBe("RUNNING");
    expect(session.connect_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/cdp\?token=/);
    expect(session.live_view).toMatchObject({ interactive: true, instructions: "Sign in" });
    expect((await vessel.sessions.get(session.id)).id).toBe(session.id);
    const renewed = await vessel.sessions.keepalive(session.id);
    expect(renewed.connect_url).not.toBe(session.connect_url);

    const ids: string[] = [];
    for await (const s of vessel.sessions.list({ limit: 1 })) ids.push(s.id);
    expect(ids).toContain(session.id);
    expect(new Set(ids).size).toBe(ids.length);

    await vessel.sessions.release(session.id);
    await vessel.sessions.release(session.id); // idempotent
    const events = await vessel.sessions.events(session.id, { types: ["session.running", "session.released"] });
    expect(events.items.map((e) => e.type)).toEqual(["session.running", "session.released"]);
  });

  it("waitForLiveViewDone resolves with the Done event, and times out naming the session", async () => {
    const session = await vessel.sessions.create({ region: "us-east1", liveView: { interactive: true } });
    await expect(vessel.sessions.waitForLiveViewDone(session.id, { timeoutSeconds: 1 })).rejects.toThrow(
      new TimeoutError(`No one clicked Done in the live view of session ${session.id} within 1 s.`),
    );
    const waiting = vessel.sessions.waitForLiveViewDone(session.id, { timeoutSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    await t.app.deps.events.record(session.id, "live_view.done", { viewer_id: "v1" });
    const done = await waiting;
    expect(done).toMatchObject({ type: "live_view.done", session_id: session.id, data: { viewer_id: "v1" } });
  });

  it("waitForLiveViewDone rejects when the session ends first", async () => {
    const session = await vessel.sessions.create({ region: "us-east1" });
    const waiting = vessel.sessions.waitForLiveViewDone(session.id, { timeoutSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    await vessel.sessions.release(session.id);
    await expect(waiting).rejects.toThrow(/ended \(RELEASED\) before anyone clicked Done/);
  });

  it("throws the error class of each problem", async () => {
    await expect(vessel.sessions.create({ region: "mars-1" })).rejects.toBeInstanceOf(UnknownRegionError);
    const invalid = await vessel.sessions.create({ region: "us-east1", timeoutSeconds: 99_999 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).field).toBe("body.timeout_seconds");
    await expect(vessel.sessions.get("ses_01JZZZZZZZZZZZZZZZZZZZZZZZ")).rejects.toBeInstanceOf(NotFoundError);
    // The key with its last character changed (to one it is not: the secret is random base62).
    const stranger = new Vessel({ apiKey: `${ws.key.slice(0, -1)}${ws.key.endsWith("x") ? "y" : "x"}`, baseUrl: t.url });
    await expect(stranger.sessions.get("ses_01JZZZZZZZZZZZZZZZZZZZZZZZ")).rejects.toBeInstanceOf(AuthenticationError);
    expect(() => new Vessel({ apiKey: "", baseUrl: t.url })).toThrow(VesselError);
  });

  it("retries a full node (503) with one Idempotency-Key until a slot frees, creating exactly one session", async () => {
    const full = [await vessel.sessions.create({ region: "us-east1" }), await vessel.sessions.create({ region: "us-east1" })];
    const calls: Array<{ method: string; path: string; key: string | null; status: number }> = [];
    const patient = new Vessel({ apiKey: ws.key, baseUrl: t.url, fetch: recordingFetch(calls), retry: { maxAttempts: 10, maxElapsedMs: 30_000 } });
    const before = await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } });
    const creating = patient.sessions.create({ region: "us-east1" });
    // The server's Retry-After (5 s) paces the retries; free a slot after the first refusal.
    while (!calls.some((c) => c.status === 503)) await new Promise((r) => setTimeout(r, 50));
    await vessel.sessions.release(full[0]!.id);
    const created = await creating;
    expect(created.status).toBe("RUNNING");
    const posts = calls.filter((c) => c.method === "POST");
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(posts.map((c) => c.key)).size).toBe(1);
    expect(posts.at(-1)!.status).toBe(201);
    expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(before + 1);
  }, 30_000);

  it("gives up on a full node within its time budget with InsufficientCapacityError", async () => {
    await vessel.sessions.create({ region: "us-east1" });
    await vessel.sessions.create({ region: "us-east1" });
    const hurried = new Vessel({ apiKey: ws.key, baseUrl: t.url, retry: { maxElapsedMs: 1_000 } });
    await expect(hurried.sessions.create({ region: "us-east1" })).rejects.toBeInstanceOf(InsufficientCapacityError);
  });

  it("honours 429 with Retry-After, and surfaces RateLimitError when the wait exceeds its budget", async () => {
    const limited = await seedWorkspace(t, { rateLimitPerMinute: 2 });
    const calls: Array<{ method: string; path: string; key: string | null; status: number }> = [];
    const client = new Vessel({ apiKey: limited.key, baseUrl: t.url, fetch: recordingFetch(calls), retry: { maxElapsedMs: 2_000 } });
    await client.sessions.listPage();
    await client.sessions.listPage();
    const refused = await client.sessions.listPage().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfter).toBeGreaterThan(0);
    // Retry-After is longer than the 2 s budget, so the client did not hammer the server.
    expect(calls.filter((c) => c.status === 429)).toHaveLength(1);
  });

  it("saves, lists, exports, imports and deletes profiles", async () => {
    const session = await vessel.sessions.create({ region: "us-east1" });
    const saved = await vessel.profiles.create({ label: "from a session", sessionId: session.id });
    expect(saved.profile_id).toMatch(/^prof_/);
    expect((await vessel.profiles.save(saved.profile_id, session.id)).profile_id).toBe(saved.profile_id);
    const state = {
      cookies: [{ name: "sid", value: "s3cret", domain: "example.test", path: "/", expires: -1, httpOnly: true, secure: false, sameSite: "Lax" as const }],
      origins: [{ origin: "http://example.test", localStorage: [{ name: "k", value: "v" }] }],
    };
    const imported = await vessel.profiles.create({ label: "imported", storageState: state });
    expect(imported).toMatchObject({ cookie_count: 1, origin_count: 1 });
    const exported = await vessel.profiles.exportStorageState(imported.profile_id);
    expect(exported.cookies[0]).toMatchObject({ name: "sid", value: "s3cret" });
    const ids: string[] = [];
    for await (const p of vessel.profiles.list({ limit: 1 })) ids.push(p.profile_id);
    expect(ids).toEqual(expect.arrayContaining([saved.profile_id, imported.profile_id]));
    expect((await vessel.profiles.get(imported.profile_id)).label).toBe("imported");
    await vessel.profiles.delete(imported.profile_id);
    await expect(vessel.profiles.get(imported.profile_id)).rejects.toBeInstanceOf(NotFoundError);
    await vessel.sessions.release(session.id);
  });

  describe("the vessel command line", () => {
    async function cli(...argv: string[]) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, {
        out: (s) => out.push(s),
        err: (s) => err.push(s),
        interactive: false,
        env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url },
      });
      return { code, out: out.join("\n"), err: err.join("\n") };
    }

    it("runs every sessions command, in tables and JSON", async () => {
      const created = await cli("sessions", "create", "--region", "us-east1", "--interactive", "--json");
      expect(created.code).toBe(exitCodes.ok);
      const session = JSON.parse(created.out) as { id: string; status: string };
      expect(session.status).toBe("RUNNING");
      const list = await cli("sessions", "list");
      expect(list.out).toMatch(/^ID\s+STATUS\s+REGION/);
      expect(list.out).toContain(`${session.id}  RUNNING`);
      expect((await cli("sessions", "get", session.id)).out).toMatch(/connect_url\s+ws:\/\//);
      expect((await cli("sessions", "keepalive", session.id, "--json")).code).toBe(exitCodes.ok);
      expect((await cli("sessions", "release", session.id)).out).toBe(`Released ${session.id}.`);
      const events = await cli("sessions", "events", session.id, "--type", "session.released");
      expect(events.out).toContain("session.released");
      expect(events.out).toContain('{"reason":"client_release"}');
    });

    it("lists, exports and deletes profiles", async () => {
      const profile = await vessel.profiles.create({
        label: "cli",
        storageState: { cookies: [], origins: [{ origin: "http://cli.test", localStorage: [{ name: "a", value: "b" }] }] },
      });
      expect((await cli("profiles", "list")).out).toMatch(new RegExp(`${profile.profile_id}\\s+cli\\s+0\\s+1\\s+1`));
      const exported = await cli("profiles", "export", profile.profile_id);
      expect(JSON.parse(exported.out)).toMatchObject({ origins: [{ origin: "http://cli.test", localStorage: [{ name: "a", value: "b" }] }] });
      expect((await cli("profiles", "delete", profile.profile_id)).out).toBe(`Deleted ${profile.profile_id}.`);
      expect((await cli("profiles", "delete", profile.profile_id)).code).toBe(exitCodes.apiError);
    });

    it("tells usage errors, API errors and timeouts apart by exit code", async () => {
      expect((await cli("sessions", "get")).code).toBe(exitCodes.usage);
      expect((await cli("sessions", "create")).code).toBe(exitCodes.usage);
      expect((await cli("sessions", "create", "--region", "us-east1", "--bogus")).code).toBe(exitCodes.usage);
      expect((await cli("nonsense")).code).toBe(exitCodes.usage);
      const missing = await cli("sessions", "get", "ses_01JZZZZZZZZZZZZZZZZZZZZZZZ");
      expect(missing.code).toBe(exitCodes.apiError);
      expect(missing.err).toContain("NotFoundError");
      const waited = await cli("sessions", "create", "--region", "us-east1", "--interactive", "--wait-for-done", "--done-timeout", "1");
      expect(waited.code).toBe(exitCodes.timeout);
      expect(waited.err).toMatch(/No one clicked Done .* within 1 s/);
      // Issue 25: the wait ran out, the session did not.
      expect(waited.err).toMatch(/The session ses_\w+ is still running: .*vessel sessions release ses_\w+/);
      const help = await cli("sessions", "create", "--help");
      expect(help.code).toBe(exitCodes.ok);
      expect(help.out).toContain("--wait-for-done");
    });
  });
});
