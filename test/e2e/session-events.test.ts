import { randomUUID } from "node:crypto";
import { createClient, type Client } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { addKey, bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

interface EventBody {
  id: string;
  session_id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}
interface EventList {
  items: EventBody[];
  next_cursor: string | null;
  has_more: boolean;
}

async function events(t: TestApp, key: string, id: string, query = ""): Promise<{ status: number; body: EventList }> {
  const res = await fetch(`${t.url}/v1/sessions/${id}/events${query}`, { headers: bearer(key) });
  return { status: res.status, body: (await res.json()) as EventList };
}

const SUBSCRIPTION = `subscription ($id: String!, $types: [SessionEventType!]) {
  sessionEvents(sessionId: $id, types: $types) { id type sessionId data }
}`;

function gqlClient(t: TestApp, connectionParams: Record<string, unknown>): Client {
  return createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, connectionParams, lazy: true });
}

/** Collects a subscription's `next` payloads until it completes or errors. */
function collect(client: Client, variables: Record<string, unknown>) {
  const received: Array<{ type: string; id: string }> = [];
  const errors: unknown[] = [];
  let subscribed!: () => void;
  const done = new Promise<void>((resolve) => {
    subscribed = client.subscribe<{ sessionEvents: { type: string; id: string } }>(
      { query: SUBSCRIPTION, variables },
      {
        next: (v) => {
          if (v.errors) errors.push(...v.errors);
          if (v.data) received.push(v.data.sessionEvents);
        },
        error: (e) => {
          errors.push(e);
          resolve();
        },
        complete: () => resolve(),
      },
    );
  });
  return { received, errors, done, stop: () => subscribed() };
}

describe.skipIf(!hasChromium)("session events", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "3" }, credentialRecheckMs: 200 });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());
  afterEach(async () => {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  async function started(): Promise<string> {
    const { res, body } = await createSession(t, ws.key);
    expect(res.status).toBe(201);
    return body.id;
  }

  it("records the lifecycle and CDP clients in order, read on with the cursor", async () => {
    const id = await started();
    const first = await events(t, ws.key, id);
    expect(first.status).toBe(200);
    expect(first.body.items.map((e) => e.type)).toEqual(["session.running"]);
    expect(first.body.items[0]!.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(first.body.next_cursor).toBe(first.body.items[0]!.id);

    const connectUrl = (await (await fetch(`${t.url}/v1/sessions/${id}`, { headers: bearer(ws.key) })).json()) as { connect_url: string };
    const cdp = new WebSocket(connectUrl.connect_url);
    await new Promise((resolve, reject) => cdp.once("open", resolve).once("error", reject));
    cdp.close();
    await eventually(
      () => events(t, ws.key, id, `?after=${first.body.next_cursor}`),
      (r) => r.body.items.length === 2,
    );
    expect((await releaseSession(t, ws.key, id)).status).toBe(204);

    const rest = await eventually(
      () => events(t, ws.key, id, `?after=${first.body.next_cursor}`),
      (r) => r.body.items.length === 3,
    );
    expect(rest.body.items.map((e) => e.type)).toEqual(["cdp.connected", "cdp.disconnected", "session.released"]);
    expect(rest.body.items[0]!.data).toEqual({ clients: 1 });
    expect(rest.body.items[2]!.data).toEqual({ reason: "client_release" });
    const ids = rest.body.items.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);

    const filtered = await events(t, ws.key, id, "?type=session.running,session.released&limit=1");
    expect(filtered.body.items.map((e) => e.type)).toEqual(["session.running"]);
    expect(filtered.body.has_more).toBe(true);
    const next = await events(t, ws.key, id, `?type=session.running,session.released&after=${filtered.body.next_cursor}`);
    expect(next.body.items.map((e) => e.type)).toEqual(["session.released"]);
    expect(next.body.has_more).toBe(false);
  });

  it("a long poll is answered by the event it waits for", async () => {
    const id = await started();
    const waiting = events(t, ws.key, id, "?type=session.released&wait=30");
    // The poll is parked before the release (its answer would otherwise not need the wake-up).
    await new Promise((r) => setTimeout(r, 300));
    expect((await releaseSession(t, ws.key, id)).status).toBe(204);
    // The test's own 15 s timeout fails this if only the 30 s deadline answers the poll.
    const { status, body } = await waiting;
    expect(status).toBe(200);
    expect(body.items.map((e) => e.type)).toEqual(["session.released"]);
  }, 15_000);

  it("a long poll for an event that will never come ends when the session ends, not at its deadline", async () => {
    const id = await started();
    const waiting = events(t, ws.key, id, "?type=live_view.done&wait=30");
    await new Promise((r) => setTimeout(r, 300));
    await releaseSession(t, ws.key, id);
    // The test's own 15 s timeout fails this if the poll holds on for 30 s.
    const { body } = await waiting;
    expect(body.items).toEqual([]);
    expect(body.next_cursor).toBeNull();
  }, 15_000);

  it("a long poll with nothing to report answers an empty page with the cursor it was given", async () => {
    const id = await started();
    const first = await events(t, ws.key, id);
    const { status, body } = await events(t, ws.key, id, `?after=${first.body.next_cursor}&wait=1`);
    expect(status).toBe(200);
    expect(body).toEqual({ items: [], next_cursor: first.body.next_cursor, has_more: false });
  });

  it("refuses bad queries with a problem and other workspaces' sessions with 404", async () => {
    const id = await started();
    for (const query of ["?type=nope", "?wait=31", "?wait=-1", "?after=not-an-id", "?limit=0"]) {
      const res = await fetch(`${t.url}/v1/sessions/${id}/events${query}`, { headers: bearer(ws.key) });
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    const other = await seedWorkspace(t);
    expect((await events(t, other.key, id)).status).toBe(404);
    expect((await events(t, other.key, "ses_01JZZZZZZZZZZZZZZZZZZZZZZZ")).status).toBe(404);
    // Members of the session's workspace read it from the dashboard; others see nothing.
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    const outsider = await seedUser(t, other.workspace.id, "OWNER");
    expect((await fetch(`${t.url}/v1/sessions/${id}/events`, { headers: userAuth(member) })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/sessions/${id}/events`, { headers: userAuth(outsider) })).status).toBe(404);
  });

  it("the GraphQL subscription delivers events as they happen and completes after the last", async () => {
    const id = await started();
    const client = gqlClient(t, bearer(ws.key));
    try {
      const sub = collect(client, { id });
      // The replay of what already happened shows the subscription is live.
      await eventually(
        async () => sub.received.length,
        (n) => n >= 1,
      );
      await releaseSession(t, ws.key, id);
      await sub.done;
      expect(sub.errors).toEqual([]);
      expect(sub.received.map((e) => e.type)).toEqual(["SESSION_RUNNING", "SESSION_RELEASED"]);
    } finally {
      await client.dispose();
    }
  });

  it("G42: another workspace's session gives an error and no events", async () => {
    const id = await started();
    const other = await seedWorkspace(t);
    const client = gqlClient(t, bearer(other.key));
    try {
      const sub = collect(client, { id });
      await sub.done;
      expect(sub.received).toEqual([]);
      expect(JSON.stringify(sub.errors)).toContain("NOT_FOUND");
    } finally {
      await client.dispose();
    }
  });

  it("G42: a revoked key's socket is closed with 4403", async () => {
    const id = await started();
    const extra = await addKey(t, ws.workspace.id);
    const closed = new Promise<number>((resolve) => {
      const client = createClient({
        url: `${t.url.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: bearer(extra.key),
        on: { closed: (e) => resolve((e as { code: number }).code) },
      });
      client.subscribe({ query: SUBSCRIPTION, variables: { id } }, { next: () => {}, error: () => {}, complete: () => {} });
    });
    await eventually(
      () => t.app.deps.db.prisma.auditEntry.count({ where: { keyPrefix: extra.prefix } }),
      (n) => n > 0,
    );
    const admin = await seedUser(t, ws.workspace.id, "OWNER");
    const revoke = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${extra.keyId}`, { method: "DELETE", headers: userAuth(admin) });
    expect(revoke.status).toBe(204);
    expect(await closed).toBe(4403);
  });
});

/** A raw graphql-transport-ws socket, to see the protocol's close codes without a client library smoothing them. */
function rawSocket(t: TestApp, options: { origin?: string; query?: string; headers?: Record<string, string> } = {}) {
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/graphql${options.query ?? ""}`, "graphql-transport-ws", {
    headers: { ...(options.origin ? { origin: options.origin } : {}), ...options.headers },
  });
  const messages: Array<{ type: string }> = [];
  ws.on("message", (m) => messages.push(JSON.parse(m.toString()) as { type: string }));
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  const opened = new Promise<number | "open">((resolve) => {
    ws.once("open", () => resolve("open"));
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", () => resolve(0));
  });
  return { ws, messages, closed, opened, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

describe("graphql-ws hardening (security.md G40–G41)", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  it("G40: a handshake from another origin is refused with 403; our own origin and non-browser clients are let in", async () => {
    expect(await rawSocket(t, { origin: "https://evil.example" }).opened).toBe(403);
    const own = rawSocket(t, { origin: new URL(t.url).origin });
    expect(await own.opened).toBe("open");
    own.ws.close();
    const plain = rawSocket(t);
    expect(await plain.opened).toBe("open");
    plain.ws.close();
  });

  it("G41: connection_init with a missing, malformed or unknown credential closes with 4403", async () => {
    for (const payload of [undefined, {}, { authorization: "Bearer nope" }, { authorization: `Bearer ${ws.key}x` }]) {
      const s = rawSocket(t);
      await s.opened;
      s.send({ type: "connection_init", ...(payload ? { payload } : {}) });
      expect(await s.closed, JSON.stringify(payload)).toBe(4403);
      expect(s.messages).toEqual([]);
    }
  });

  it("G42: a credential in the URL or the upgrade's headers is not accepted", async () => {
    const inUrl = rawSocket(t, { query: `?authorization=${encodeURIComponent(`Bearer ${ws.key}`)}&token=${ws.key}` });
    await inUrl.opened;
    inUrl.send({ type: "connection_init" });
    expect(await inUrl.closed).toBe(4403);
    const inHeader = rawSocket(t, { headers: bearer(ws.key) });
    await inHeader.opened;
    inHeader.send({ type: "connection_init" });
    expect(await inHeader.closed).toBe(4403);
  });

  it("G41: no connection_init in 3 s closes with 4408", async () => {
    const s = rawSocket(t);
    await s.opened;
    expect(await s.closed).toBe(4408);
  });

  it("G41: a second connection_init closes with 4429", async () => {
    const s = rawSocket(t);
    await s.opened;
    s.send({ type: "connection_init", payload: bearer(ws.key) });
    await eventually(
      async () => s.messages.length,
      (n) => n === 1,
    );
    expect(s.messages[0]!.type).toBe("connection_ack");
    s.send({ type: "connection_init", payload: bearer(ws.key) });
    expect(await s.closed).toBe(4429);
  });

  it("G41: subscribe before the ack closes with 4401", async () => {
    const s = rawSocket(t);
    await s.opened;
    s.send({ id: randomUUID(), type: "subscribe", payload: { query: "{ health { status } }" } });
    expect(await s.closed).toBe(4401);
  });
});

const shared = {
  postgres: await postgresReachable(),
  redis: await redisReachable(),
};
if (servicesRequired && (!shared.postgres || !shared.redis)) throw new Error("PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");

describe.skipIf(!hasChromium || !shared.postgres || !shared.redis)("session events across two nodes (PostgreSQL + Redis)", () => {
  let tdb: TestDatabase;
  let one: TestApp;
  let two: TestApp;
  const prefix = `vessel-test-${randomUUID()}:`;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const env = { REDIS_URL: testRedisUrl };
    one = await startTestApp({ db: tdb.db, env, redisPrefix: prefix });
    two = await startTestApp({ db: tdb.db, env, redisPrefix: prefix });
  });
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await tdb?.dispose();
  });

  it("a long poll and a subscription on one node are woken by an event written on the other", async () => {
    const ws = await seedWorkspace(one);
    const { body } = await createSession(one, ws.key);
    const client = gqlClient(two, bearer(ws.key));
    try {
      const sub = collect(client, { id: body.id, types: ["SESSION_RELEASED"] });
      // Without the wake-up through Redis the poll would hold 30 s, past this test's 20 s timeout.
      const waiting = events(two, ws.key, body.id, "?type=session.released&wait=30");
      await new Promise((r) => setTimeout(r, 500));
      expect((await releaseSession(one, ws.key, body.id)).status).toBe(204);
      const { body: page } = await waiting;
      expect(page.items.map((e) => e.type)).toEqual(["session.released"]);
      await sub.done;
      expect(sub.received.map((e) => e.type)).toEqual(["SESSION_RELEASED"]);
    } finally {
      await client.dispose();
    }
  }, 20_000);
});

describe.skipIf(!hasChromium)("closing a session's live views", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  const liveToken = (url: string) => new URL(url).searchParams.get("token");
  const revoke = (id: string, headers: Record<string, string>) => fetch(`${t.url}/v1/sessions/${id}/live-view`, { method: "DELETE", headers });

  it("stops every link handed out so far, closes open viewers, and keepalive hands out working ones", async () => {
    const { body } = await createSession(t, ws.key);
    const { authorizeLiveView } = await import("../../src/services/sessions/live-view.ts");
    const before = liveToken(body.live_view_url!);
    await expect(authorizeLiveView(t.app.deps, before)).resolves.toMatchObject({ session: { id: body.id } });
    const told: string[] = [];
    const leave = t.app.deps.runtime.addViewer(body.id, { close: (message) => told.push(message) });
    expect(leave).toBeTypeOf("function");

    const other = await seedWorkspace(t);
    expect((await revoke(body.id, bearer(other.key))).status).toBe(404);
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    expect((await revoke(body.id, userAuth(member))).status).toBe(403);
    expect(told).toEqual([]);

    expect((await revoke(body.id, bearer(ws.key))).status).toBe(204);
    await eventually(
      async () => told.length,
      (n) => n === 1,
    );
    expect(told[0]).toMatch(/closed this live view/);
    expect(t.app.deps.runtime.viewerCount(body.id)).toBe(0);
    await expect(authorizeLiveView(t.app.deps, before)).rejects.toMatchObject({ slug: "unauthenticated" });

    const fresh = (await (await fetch(`${t.url}/v1/sessions/${body.id}:keepalive`, { method: "POST", headers: bearer(ws.key) })).json()) as {
      live_view_url: string;
    };
    await expect(authorizeLiveView(t.app.deps, liveToken(fresh.live_view_url))).resolves.toMatchObject({ session: { id: body.id } });
    // The session itself kept running.
    expect((await t.app.deps.db.prisma.session.findUniqueOrThrow({ where: { id: body.id } })).status).toBe("RUNNING");
    await releaseSession(t, ws.key, body.id);
    await expect(authorizeLiveView(t.app.deps, liveToken(fresh.live_view_url))).rejects.toMatchObject({ slug: "gone" });
  });
});
