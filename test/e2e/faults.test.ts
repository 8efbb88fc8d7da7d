import { randomBytes, randomUUID } from "node:crypto";
import puppeteer from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ulid } from "ulid";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { browserPids, privateRedis, spawnNode, tcpRelay, type NodeProcess, type RedisProcess, type TcpRelay } from "../support/processes.ts";
import { alive, eventually, startPageServer, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, servicesRequired } from "../support/services.ts";
import { cdpSocket, liveViewSocket } from "../support/sockets.ts";

/**
 * Faults, with real processes: nodes are `node --import tsx src/main.ts` children with their own
 * environment and port; Redis is a private redis-server on a spare port (the shared one is never
 * touched); PostgreSQL is reached through a TCP relay the test cuts and restores. Every test is
 * bounded and leaves no process behind. After each: every session created is RUNNING or ended with
 * a reason, and every completed call has its audit entry.
 */

const hasChromium = chromiumPath() !== undefined;
const hasPostgres = await postgresReachable();
if (servicesRequired && (!hasChromium || !hasPostgres)) throw new Error("Chromium and PostgreSQL are required (VESSEL_REQUIRE_SERVICES=1)");

interface Call {
  status: number;
  requestId: string | null;
}

describe.skipIf(!hasChromium || !hasPostgres)("faults: real node processes, Redis and PostgreSQL outages", () => {
  let tdb: TestDatabase;
  let redis: RedisProcess;
  let peer: TestApp | undefined;
  let ws: Seeded;
  let page: Awaited<ReturnType<typeof startPageServer>>;
  const nodes: NodeProcess[] = [];
  const masterKey = randomBytes(32).toString("base64");
  /** Every call that completed, for the audit check. */
  const calls: Call[] = [];
  /** Every session created, for the final check. */
  const created = new Set<string>();

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    redis = await privateRedis();
    page = await startPageServer();
  });
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop(5_000);
    await peer?.stop();
    peer = undefined;
  });
  afterAll(async () => {
    for (const n of nodes.splice(0)) await n.stop(5_000);
    await peer?.stop();
    await redis?.stop();
    await page?.close();
    await tdb?.dispose();
  });

  /** A node as a child process of this test, sharing the database, Redis and master key. */
  async function node(env: Record<string, string> = {}): Promise<NodeProcess> {
    const n = await spawnNode({
      DATABASE_URL: tdb.url!,
      REDIS_URL: redis.url,
      VESSEL_MASTER_KEY: masterKey,
      VESSEL_DATA_DIR: `/tmp/vessel-fault-${ulid()}`,
      VESSEL_NODE_ID: `child-${ulid()}`,
      VESSEL_BROWSER_CAPACITY: "2",
      VESSEL_HEARTBEAT_SECONDS: "0.3",
      VESSEL_NODE_TIMEOUT_SECONDS: "3",
      ...env,
    });
    nodes.push(n);
    return n;
  }

  /** A node in this process (to seed, to watch, to take placed sessions, to reap the dead). */
  async function inProcessPeer(env: Record<string, string> = {}, startBrowsers = true): Promise<TestApp> {
    peer = await startTestApp({
      db: tdb.db,
      redisPrefix: "vessel:",
      startBrowsers,
      env: {
        REDIS_URL: redis.url,
        VESSEL_MASTER_KEY: masterKey,
        VESSEL_HEARTBEAT_SECONDS: "0.3",
        VESSEL_NODE_TIMEOUT_SECONDS: "3",
        VESSEL_BROWSER_CAPACITY: "2",
        ...env,
      },
    });
    ws ??= await seedWorkspace(peer);
    return peer;
  }

  async function call(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, { ...init, headers: { ...bearer(ws.key), ...(init.headers as Record<string, string>) } });
    calls.push({ status: res.status, requestId: res.headers.get("x-request-id") });
    return res;
  }

  async function create(
    base: string,
    body: Record<string, unknown> = { region: "us-east1" },
    idem = randomUUID(),
  ): Promise<{ res: Response; body: SessionBody & { type?: string } }> {
    const res = await call(`${base}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idem },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as SessionBody & { type?: string };
    if (res.status === 201) created.add(json.id);
    return { res, body: json };
  }

  const release = (base: string, id: string) =>
    call(`${base}/v1/sessions/${id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });

  const session = (id: string) => tdb.db.prisma.session.findUniqueOrThrow({ where: { id } });

  /** The checks after every fault: no session in limbo, no completed call without its audit entry. */
  async function consistent(): Promise<void> {
    const rows = await tdb.db.prisma.session.findMany({ where: { id: { in: [...created] } } });
    expect(rows).toHaveLength(created.size);
    for (const s of rows) {
      if (s.status !== "RUNNING") expect([s.id, s.endReason]).toEqual([s.id, expect.any(String)]);
      else expect(["RUNNING"]).toContain(s.status);
      // Written with its row: the first event.
      const first = await tdb.db.prisma.sessionEvent.findFirst({ where: { sessionId: s.id }, orderBy: { id: "asc" } });
      expect(first?.type, s.id).toBe("session.running");
    }
    const ids = calls.filter((c) => c.status !== 401 && c.requestId).map((c) => c.requestId!);
    const audited = new Set(
      (
        await eventually(
          () => tdb.db.prisma.auditEntry.findMany({ where: { requestId: { in: ids } }, select: { requestId: true } }),
          (found) => new Set(found.map((f) => f.requestId)).size >= new Set(ids).size,
          15_000,
        )
      ).map((a) => a.requestId),
    );
    expect(ids.filter((id) => !audited.has(id))).toEqual([]);
  }

  it("J56: SIGTERM during live sessions: unready at once, new sessions go to a peer (or 503), running ones finish or end at the drain deadline with 1001, exit 0", async () => {
    const p = await inProcessPeer();
    const n = await node({ VESSEL_DRAIN_SECONDS: "8" });
    const one = await create(n.url);
    const two = await create(n.url);
    expect([one.res.status, two.res.status]).toEqual([201, 201]);
    const pids = browserPids(n.browserRoot);
    expect(pids).toHaveLength(2);
    const driver = await puppeteer.connect({ browserWSEndpoint: two.body.connect_url! });
    const tab = await driver.newPage();
    // J56: what the clients of the session still running at the deadline see (README's close codes).
    const watchCdp = cdpSocket(two.body.connect_url!);
    const watchViewer = liveViewSocket(n.url, two.body.live_view_url!);
    expect(await watchCdp.opened).toBe("open");
    await watchViewer.next("hello");

    n.signal("SIGTERM");
    await eventually(
      async () => (await fetch(`${n.url}/readyz`)).status,
      (s) => s === 503,
      2_000,
    );
    // A create that lands here now runs on the peer.
    await p.app.cluster.tick();
    const placed = await create(n.url);
    expect(placed.res.status).toBe(201);
    expect((await session(placed.body.id)).nodeId).toBe(p.app.deps.nodeId);
    // With the peer full too: 503 with Retry-After, never a wait.
    const fill = await create(p.url);
    expect(fill.res.status).toBe(201);
    const refused = await create(n.url);
    expect(refused.res.status).toBe(503);
    expect(refused.res.headers.get("retry-after")).toBeTruthy();
    // Running sessions go on: driven, read, released.
    await tab.goto(page.url);
    expect(await tab.evaluate(() => document.title)).toBe("Vessel test page");
    expect((await call(`${n.url}/v1/sessions/${one.body.id}`)).status).toBe(200);
    expect((await release(n.url, one.body.id)).status).toBe(204);
    // The other one is still running when the deadline comes: it ends with node_shutdown.
    const exit = await n.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    // Closed with 1001 (going away: reconnect elsewhere), not cut.
    expect((await watchCdp.closed).code).toBe(1001);
    expect((await watchViewer.closed).code).toBe(1001);
    await driver.disconnect().catch(() => {});
    expect(await session(one.body.id)).toMatchObject({ status: "RELEASED", endReason: "CLIENT_RELEASE" });
    expect(await session(two.body.id)).toMatchObject({ status: "FAILED", endReason: "NODE_SHUTDOWN" });
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(await tdb.db.prisma.node.findUniqueOrThrow({ where: { id: n.env.VESSEL_NODE_ID! } })).toMatchObject({ stoppedAt: expect.any(Date) });
    expect((await release(p.url, placed.body.id)).status).toBe(204);
    expect((await release(p.url, fill.body.id)).status).toBe(204);
    await consistent();
  }, 120_000);

  it("kill -9 of a node: its browsers go with it, a peer ends its sessions within the heartbeat window, its restart clears what it left", async () => {
    const p = await inProcessPeer();
    const env = { VESSEL_NODE_ID: `child-${ulid()}`, VESSEL_DATA_DIR: `/tmp/vessel-fault-${ulid()}` };
    const n = await node(env);
    const made = [await create(n.url), await create(n.url)];
    expect(made.map((m) => m.res.status)).toEqual([201, 201]);
    const pids = browserPids(n.browserRoot);
    expect(pids).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 500)); // batched audit entries of the calls above are written

    n.signal("SIGKILL");
    await n.exited;
    // Its browsers go with it: each exits when its DevTools pipe closes (and a jail dies with its parent)…
    for (const pid of pids)
      await eventually(
        async () => alive(pid),
        (a) => !a,
        10_000,
      );
    expect(browserPids(n.browserRoot)).toHaveLength(2); // …leaving their folders behind…
    // …but its sessions end: the peer sees the heartbeat stop (timeout 3 s) and ends them, once.
    for (const m of made) {
      await eventually(
        () => session(m.body.id),
        (s) => s.status !== "RUNNING",
        20_000,
      );
      expect(await session(m.body.id)).toMatchObject({ status: "FAILED", endReason: "NODE_SHUTDOWN" });
      const ends = await tdb.db.prisma.sessionEvent.findMany({ where: { sessionId: m.body.id, type: "session.failed" } });
      expect(ends).toHaveLength(1);
    }
    void p;
    // The node comes back under the same name: before it takes work, it removes what it left.
    const again = await node({ ...env, PORT: new URL(n.url).port });
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(browserPids(again.browserRoot)).toEqual([]);
    expect((await fetch(`${again.url}/readyz`)).status).toBe(200);
    expect(await again.stop()).toBe(0);
    await consistent();
  }, 150_000);

  it("Redis stopped and restarted during traffic: requests keep being served, and the nodes share it again after", async () => {
    const p = await inProcessPeer();
    const n = await node();
    const statuses: number[] = [];
    let traffic = true;
    const loop = (async () => {
      while (traffic) {
        statuses.push((await call(`${n.url}/v1/health`)).status);
        await new Promise((r) => setTimeout(r, 250)); // well under the key's 600 requests a minute
      }
    })();
    const before = await create(n.url);
    expect(before.res.status).toBe(201);

    await redis.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    // Redis down: authenticated calls, creates and releases all work (limits fall back to memory).
    const during = await create(n.url);
    expect(during.res.status).toBe(201);
    expect((await release(n.url, during.body.id)).status).toBe(204);
    expect((await call(`${p.url}/v1/sessions/${before.body.id}`)).status).toBe(200);

    await redis.start();
    // Recovery without a restart. Events written by the child reach a long poll on the peer through
    // Redis again: a CDP client coming and going (cdp.connected) wakes the poll well before its wait ends.
    const woken = await eventually(
      async () => {
        const last = await tdb.db.prisma.sessionEvent.findFirst({ where: { sessionId: before.body.id }, orderBy: { id: "desc" } });
        const started = Date.now();
        const poll = call(`${p.url}/v1/sessions/${before.body.id}/events?type=cdp.connected&after=${last!.id}&wait=4`);
        await new Promise((r) => setTimeout(r, 300));
        const client = await puppeteer.connect({ browserWSEndpoint: before.body.connect_url! });
        await client.disconnect();
        const page = (await (await poll).json()) as { items: unknown[] };
        return page.items.length > 0 && Date.now() - started < 3_500;
      },
      (ok) => ok,
      45_000,
    );
    expect(woken).toBe(true);
    // The rate limit is shared through Redis again (its counters are back there).
    const { Redis } = await import("ioredis");
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      await eventually(
        async () => (await call(`${n.url}/v1/health`), (await client.keys("vessel:rl:*")).length),
        (k) => k > 0,
        10_000,
      );
    } finally {
      client.disconnect();
    }
    expect((await release(n.url, before.body.id)).status).toBe(204);
    traffic = false;
    await loop;
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    await consistent();
  }, 120_000);

  it("PostgreSQL cut off briefly: 503 problems with Retry-After, nothing half-written, recovery without a restart", async () => {
    await inProcessPeer({}, false);
    const relay: TcpRelay = await tcpRelay(new URL(tdb.url!).hostname, Number(new URL(tdb.url!).port || 5432));
    try {
      const n = await node({ DATABASE_URL: relay.through(tdb.url!), VESSEL_NODE_TIMEOUT_SECONDS: "30", VESSEL_HEARTBEAT_SECONDS: "1" });
      expect((await call(`${n.url}/v1/health`)).status).toBe(200);
      const running = await create(n.url);
      expect(running.res.status).toBe(201);
      const pid = browserPids(n.browserRoot)[0]!;

      await relay.cut();
      const list = await call(`${n.url}/v1/sessions`);
      expect(list.status).toBe(503);
      expect(list.headers.get("retry-after")).toBeTruthy();
      expect(((await list.json()) as { type: string }).type).toMatch(/service-unavailable$/);
      const refused = await create(n.url);
      expect(refused.res.status).toBe(503);
      expect(refused.body.type).toMatch(/service-unavailable$/);
      expect((await fetch(`${n.url}/readyz`)).status).toBe(503);
      // Metrics still answer (operators need them most now).
      expect((await fetch(`${n.url}/metrics`)).status).toBe(200);
      // The running session's browser is untouched.
      expect(alive(pid)).toBe(true);

      await relay.restore();
      await eventually(
        async () => (await call(`${n.url}/v1/sessions`)).status,
        (s) => s === 200,
        20_000,
      );
      expect((await fetch(`${n.url}/readyz`)).status).toBe(200);
      const after = await create(n.url);
      expect(after.res.status).toBe(201);
      // Nothing of the refused create was kept: no session, no idempotency record, no browser.
      expect(await tdb.db.prisma.idempotencyRecord.count({ where: { state: "IN_PROGRESS" } })).toBe(0);
      expect(await tdb.db.prisma.session.count({ where: { nodeId: n.env.VESSEL_NODE_ID!, status: "RUNNING" } })).toBe(2);
      expect(browserPids(n.browserRoot)).toHaveLength(2);
      expect((await release(n.url, running.body.id)).status).toBe(204);
      expect((await release(n.url, after.body.id)).status).toBe(204);
      expect(await n.stop()).toBe(0);
      // The refusals during the outage are audited too (written once the database was back).
      await consistent();
    } finally {
      await relay.close();
    }
  }, 120_000);

  it("a browser that hangs is killed by the watchdog and its session fails with browser_crash", async () => {
    const p = await inProcessPeer({ VESSEL_BROWSER_PING_SECONDS: "0.5", VESSEL_BROWSER_PING_TIMEOUT_SECONDS: "2" });
    const made = await create(p.url);
    expect(made.res.status).toBe(201);
    const lease = p.app.deps.runtime.endpoint(made.body.id)!;
    // The whole process group: a jailed browser's main process is not the group's leader (bwrap is).
    process.kill(-lease.pid, "SIGSTOP");
    try {
      await eventually(
        () => session(made.body.id),
        (s) => s.status !== "RUNNING",
        20_000,
      );
      expect(await session(made.body.id)).toMatchObject({ status: "FAILED", endReason: "BROWSER_CRASH" });
      await eventually(
        async () => alive(lease.pid),
        (a) => !a,
        10_000,
      );
    } finally {
      try {
        process.kill(-lease.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await consistent();
  }, 60_000);
});
