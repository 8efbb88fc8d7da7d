import { Writable } from "node:stream";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { openDatabase, type Database } from "../../src/db/client.ts";
import { createLogger } from "../../src/logger.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { tcpRelay, type TcpRelay } from "../support/processes.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, servicesRequired } from "../support/services.ts";
import { closedWithin, liveViewSocket } from "../support/sockets.ts";

/**
 * PostgreSQL that stops answering, paused rather than reset (a stalled server, a network that drops
 * packets): the node's connections stay open and get no answer. Every surface answers 503 with
 * Retry-After after a bounded wait (src/db/pg-timeouts.ts), never hangs, and nothing that is only
 * waiting for the database is closed as if its credential had been revoked.
 */

const hasChromium = chromiumPath() !== undefined;
const hasPostgres = await postgresReachable();
if (servicesRequired && (!hasChromium || !hasPostgres)) throw new Error("Chromium and PostgreSQL are required (VESSEL_REQUIRE_SERVICES=1)");

/** Long enough for any of the database's deadlines, short enough that a hang fails the test instead of stalling it. */
const NO_HANG_MS = 30_000;
const bounded = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(NO_HANG_MS) });

const SUBSCRIPTION = `subscription ($id: String!) { sessionEvents(sessionId: $id) { type } }`;

/** A graphql-ws client that never retries: any close before the subscription completes would end it. */
function subscribe(t: TestApp, authorization: string, id: string) {
  const closes: number[] = [];
  const received: string[] = [];
  const errors: unknown[] = [];
  const client: Client = createClient({
    url: `${t.url.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: { authorization },
    on: { closed: (e) => closes.push((e as { code: number }).code) },
  });
  const done = new Promise<void>((resolve) => {
    client.subscribe<{ sessionEvents: { type: string } }>(
      { query: SUBSCRIPTION, variables: { id } },
      {
        next: (v) => v.data && received.push(v.data.sessionEvents.type),
        error: (e) => {
          errors.push(e);
          resolve();
        },
        complete: () => resolve(),
      },
    );
  });
  return { client, closes, received, errors, done };
}

describe.skipIf(!hasChromium || !hasPostgres)("PostgreSQL stops answering (paused, not reset)", () => {
  let tdb: TestDatabase;
  let relay: TcpRelay;
  let db: Database;
  let t: TestApp;
  let ws: Seeded;
  let owner: string;
  let clockOffsetMs = 0;
  const logs: string[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    relay = await tcpRelay(new URL(tdb.url!).hostname, Number(new URL(tdb.url!).port || 5432));
    db = await openDatabase({ url: relay.through(tdb.url!), dataDir: "" });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    // A lease (src/cluster/lease.ts) longer than the whole stall: this test is about bounded waits,
    // not about a node fencing itself after VESSEL_LEASE_SECONDS without the database.
    t = await startTestApp({
      db,
      credentialRecheckMs: 300,
      now: () => new Date(Date.now() + clockOffsetMs),
      log: createLogger("warn", sink),
      env: { VESSEL_NODE_TIMEOUT_SECONDS: "240" },
    });
    ws = await seedWorkspace(t);
    owner = await seedUser(t, ws.workspace.id, "OWNER");
  });
  afterAll(async () => {
    relay?.resume();
    await t?.stop();
    await db?.close();
    await relay?.close();
    await tdb?.dispose();
  });

  it("503 with Retry-After on REST, GraphQL, the CDP handshake and the live view, within the deadlines; graphql-ws subscriptions stay; all recovers", async () => {
    const { body: session } = await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: true } });
    expect(session.status).toBe("RUNNING");
    const byKey = subscribe(t, `Bearer ${ws.key}`, session.id);
    const byUser = subscribe(t, userAuth(owner).authorization, session.id);
    try {
      // Both are live: the replay of what already happened has arrived.
      await eventually(
        async () => [byKey.received.length, byUser.received.length],
        ([a, b]) => a! > 0 && b! > 0,
      );

      relay.pause();
      // Past the key's cached record (60 s): authentication and every re-check must ask the database.
      clockOffsetMs = 61_000;

      const rest = await bounded(`${t.url}/v1/sessions`, { headers: bearer(ws.key) });
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBeTruthy();
      expect(((await rest.json()) as { type: string }).type).toMatch(/\/errors\/service-unavailable$/);

      const gql = await bounded(`${t.url}/graphql`, {
        method: "POST",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ query: "{ sessions { items { id } } }" }),
      });
      expect(gql.status).toBe(503);
      expect(gql.headers.get("retry-after")).toBeTruthy();
      expect(((await gql.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe("SERVICE_UNAVAILABLE");

      // The CDP handshake reads the session's status: 503 with Retry-After, as REST (it was a 500).
      const cdp = await new Promise<{ status: number; retryAfter: unknown }>((resolve) => {
        const socket = new WebSocket(session.connect_url!);
        socket.on("unexpected-response", (_req, res) => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] }));
        socket.on("open", () => resolve({ status: 101, retryAfter: undefined }));
        socket.on("error", () => {});
      });
      expect(cdp.status).toBe(503);
      expect(cdp.retryAfter).toBeTruthy();

      const page = await bounded(session.live_view_url!);
      expect(page.status).toBe(503);
      expect(page.headers.get("retry-after")).toBeTruthy();
      // The viewer socket: 1013, which the page retries (never a final 4403).
      const viewer = liveViewSocket(t.url, session.live_view_url!);
      expect((await closedWithin(viewer, NO_HANG_MS)).code).toBe(1013);

      // Both sockets' credentials are re-checked against the stalled database (and cannot be)…
      const rechecked = (kind: string) => logs.some((line) => line.includes("could not be checked") && line.includes(`"credential":"${kind}"`));
      await eventually(
        async () => ({ key: rechecked("api key"), user: rechecked("dashboard sign-in"), closes: byKey.closes.length + byUser.closes.length }),
        (v) => (v.key && v.user) || v.closes > 0,
        NO_HANG_MS,
      );
      // …and neither is closed for it (a 4403 here would end both clients for good).
      expect([byKey.closes, byUser.closes]).toEqual([[], []]);

      relay.resume();
      await eventually(
        async () => (await bounded(`${t.url}/v1/sessions`, { headers: bearer(ws.key) })).status,
        (s) => s === 200,
        NO_HANG_MS,
      );
      expect((await releaseSession(t, ws.key, session.id)).status).toBe(204);
      await Promise.all([byKey.done, byUser.done]);
      // The same subscriptions saw the session end: they were subscribed all along.
      for (const sub of [byKey, byUser]) {
        expect(sub.errors).toEqual([]);
        expect(sub.received.at(-1)).toBe("SESSION_RELEASED");
        expect(sub.closes.filter((c) => c !== 1000)).toEqual([]);
      }
    } finally {
      relay.resume();
      clockOffsetMs = 0;
      await byKey.client.dispose();
      await byUser.client.dispose();
    }
  }, 180_000);
});
