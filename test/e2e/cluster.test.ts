import { randomUUID } from "node:crypto";
import { createClient } from "graphql-ws";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { addKey, bearer, seedUser, seedWorkspace, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { startCluster, type TestCluster } from "../support/cluster.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { alive, eventually, startPageServer, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";
import { cdpSocket, closedWithin, liveViewSocket } from "../support/sockets.ts";

/**
 * Several nodes sharing PostgreSQL and Redis behind a round-robin load balancer with no sticky
 * sessions (the nodes' public base URL): any node serves any request. Nodes are in this process
 * (startTestApp); the process-level faults are in faults.test.ts.
 */

const hasChromium = chromiumPath() !== undefined;
const shared = { postgres: await postgresReachable(), redis: await redisReachable() };
if (servicesRequired && (!hasChromium || !shared.postgres || !shared.redis))
  throw new Error("Chromium, PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");

async function create(base: string, key: string, body: Record<string, unknown> = { region: "us-east1" }, idem = randomUUID()) {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    // A client's own request id travels with a create placed on another node (audited as client_request_id).
    headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": idem, "x-request-id": `client-${idem}` },
    body: JSON.stringify(body),
  });
  return { res, body: (await res.json()) as SessionBody & { type?: string } };
}

const release = (base: string, key: string, id: string) =>
  fetch(`${base}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ status: "REQUEST_RELEASE" }),
  });

describe.skipIf(!hasChromium || !shared.postgres || !shared.redis)("a cluster of two nodes behind a load balancer (PostgreSQL + Redis)", () => {
  let tdb: TestDatabase;
  let cluster: TestCluster;
  let a: TestApp;
  let b: TestApp;
  let ws: Seeded;
  let page: Awaited<ReturnType<typeof startPageServer>>;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    cluster = await startCluster(2, { db: tdb.db, redisUrl: testRedisUrl, env: { VESSEL_BROWSER_CAPACITY: "1" } });
    [a, b] = cluster.nodes as [TestApp, TestApp];
    ws = await seedWorkspace(a);
    page = await startPageServer();
  });
  afterAll(async () => {
    await cluster?.stop();
    await page?.close();
    await tdb?.dispose();
  });

  const nodeOf = async (id: string) => (await tdb.db.prisma.session.findUniqueOrThrow({ where: { id } })).nodeId;
  /** Until no browser runs on either node (a release made elsewhere closes the owner's a moment later), and both have said so. */
  const idle = async () => {
    // Both the runtimes and the pools: a session leaves the runtime a moment before its teardown
    // gives its browser's slot back, and a create in between would find this node full.
    const busy = (n: TestApp) => n.app.deps.runtime.ids().length + n.app.deps.browsers.report().inUse;
    await eventually(
      async () => busy(a) + busy(b),
      (n) => n === 0,
    );
    await a.app.cluster.tick();
    await b.app.cluster.tick();
  };

  it("a session created on one node is driven through the other (CDP relayed), and through the load balancer", async () => {
    const { res, body } = await create(a.url, ws.key);
    expect(res.status).toBe(201);
    expect(await nodeOf(body.id)).toBe(a.app.deps.nodeId);
    expect(body.connect_url!.startsWith(cluster.lb.url.replace("http", "ws"))).toBe(true);
    try {
      // Straight to node B, which does not run the session: relayed to A.
      const viaB = await puppeteer.connect({ browserWSEndpoint: cluster.direct(1, body.connect_url!) });
      const tab = await viaB.newPage();
      await tab.goto(page.url);
      expect(await tab.$eval("#greeting", (el) => el.textContent)).toBe("hello from loopback");
      // A file the page downloads on A is listed and served through B (relayed to A, where it is).
      await tab.evaluate(() => {
        const link = document.createElement("a");
        link.href = URL.createObjectURL(new Blob(["made on node A"]));
        link.download = "note.txt";
        document.body.append(link);
        link.click();
      });
      type Listed = { items: Array<{ id: string; name: string; state: string }> };
      const listed = await eventually(
        async () => ((await (await fetch(`${b.url}/v1/sessions/${body.id}/downloads`, { headers: bearer(ws.key) })).json()) as Listed).items,
        (items) => items[0]?.state === "completed",
      );
      expect(listed[0]!.name).toBe("note.txt");
      const file = await fetch(`${b.url}/v1/sessions/${body.id}/downloads/${listed[0]!.id}`, { headers: bearer(ws.key) });
      expect(file.headers.get("content-disposition")).toContain('filename="note.txt"');
      expect(await file.text()).toBe("made on node A");
      // A file uploaded through B lands in the session's folder on A, where its page can pick it.
      const form = new FormData();
      form.append("file", new Blob(["uploaded through node B"]), "from-b.txt");
      const uploaded = await fetch(`${b.url}/v1/sessions/${body.id}/files`, { method: "POST", headers: bearer(ws.key), body: form });
      expect(uploaded.status).toBe(201);
      const { path: onA } = (await uploaded.json()) as { path: string };
      expect(onA.startsWith(a.app.deps.runtime.endpoint(body.id)!.uploadsDir)).toBe(true);
      await tab.setContent('<input type="file" id="f">');
      await ((await tab.$("#f")) as import("puppeteer-core").ElementHandle<HTMLInputElement>).uploadFile(onA);
      expect(await tab.$eval("#f", (el) => (el as HTMLInputElement).files![0]!.text())).toBe("uploaded through node B");
      await viaB.disconnect();
      // Discovery through B answers with A's browser, addressed through the public URL.
      const version = (await (await fetch(cluster.direct(1, body.connect_url!.replace(/^ws/, "http").replace("/cdp?", "/cdp/json/version?")))).json()) as {
        webSocketDebuggerUrl: string;
      };
      expect(version.webSocketDebuggerUrl.startsWith(`${cluster.lb.url.replace("http", "ws")}/cdp?token=`)).toBe(true);
      // Through the load balancer: whichever node it picks, the client gets the same browser.
      for (let i = 0; i < 2; i++) {
        const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
        expect((await browser.pages()).length).toBeGreaterThanOrEqual(1);
        await browser.disconnect();
      }
      const metrics = await (await fetch(`${b.url}/metrics`)).text();
      expect(metrics).toMatch(/vessel_forwarded_connections_total\{kind="cdp"\} [1-9]/);
    } finally {
      await release(a.url, ws.key, body.id);
    }
  });

  it("the live view's Done, clicked through the other node, reaches subscribers on both nodes", async () => {
    await idle();
    const { body } = await create(a.url, ws.key, { region: "us-east1", live_view: { interactive: true } });
    expect(await nodeOf(body.id)).toBe(a.app.deps.nodeId);
    const gql = createClient({
      url: `${a.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: bearer(ws.key),
      lazy: true,
    });
    try {
      const seen: string[] = [];
      gql.subscribe<{ sessionEvents: { type: string } }>(
        { query: "subscription ($id: String!) { sessionEvents(sessionId: $id, types: [LIVE_VIEW_DONE]) { type } }", variables: { id: body.id } },
        {
          next: (v) => {
            if (v.data) seen.push(v.data.sessionEvents.type);
          },
          error: () => {},
          complete: () => {},
        },
      );
      const poll = fetch(`${b.url}/v1/sessions/${body.id}/events?type=live_view.done&wait=30`, { headers: bearer(ws.key) });
      // The viewer page's socket, opened on node B (with the routing hint the page adds).
      const token = new URL(body.live_view_url!).searchParams.get("token")!;
      const viewer = new WebSocket(`${b.url.replace("http", "ws")}/live-view/socket?session=${body.id}`, { origin: cluster.lb.url });
      const messages: Array<Record<string, unknown>> = [];
      viewer.on("message", (data, isBinary) => {
        if (isBinary) viewer.send(JSON.stringify({ t: "ack", n: (data as Buffer).readUInt32BE(0) }));
        else messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
      });
      await new Promise((resolve, reject) => {
        viewer.once("open", resolve);
        viewer.once("error", reject);
      });
      viewer.send(JSON.stringify({ t: "auth", token, w: 400, h: 300, dpr: 1 }));
      await eventually(
        async () => messages.find((m) => m.t === "hello"),
        (m) => m !== undefined,
        20_000,
      );
      viewer.send(JSON.stringify({ t: "done" }));
      await eventually(
        async () => messages.find((m) => m.t === "done"),
        (m) => m !== undefined,
        20_000,
      );
      expect(messages.find((m) => m.t === "done")).toMatchObject({ ok: true });
      const page = (await (await poll).json()) as { items: Array<{ type: string }> };
      expect(page.items.map((e) => e.type)).toEqual(["live_view.done"]);
      await eventually(
        async () => seen.length,
        (n) => n === 1,
      );
      expect(seen).toEqual(["LIVE_VIEW_DONE"]);
      viewer.close();
    } finally {
      await gql.dispose();
      await release(a.url, ws.key, body.id);
    }
  }, 60_000);

  it("a create on a full node lands on the other; with both full it is 503; one session per Idempotency-Key cluster-wide", async () => {
    await idle();
    const first = await create(a.url, ws.key);
    expect(first.res.status).toBe(201);
    expect(await nodeOf(first.body.id)).toBe(a.app.deps.nodeId);
    // A is full (capacity 1): the next create sent to A runs on B.
    await b.app.cluster.tick();
    const idem = randomUUID();
    const second = await create(a.url, ws.key, { region: "us-east1" }, idem);
    expect(second.res.status).toBe(201);
    expect(await nodeOf(second.body.id)).toBe(b.app.deps.nodeId);
    // Its audit entry was written once, with the session, by the node that ran it.
    const audits = await tdb.db.prisma.auditEntry.findMany({ where: { requestId: second.res.headers.get("x-request-id")! } });
    expect(audits.map((e) => [e.action, e.target, e.httpStatus, e.clientRequestId])).toEqual([["session.create", second.body.id, 201, `client-${idem}`]]);
    // The same key on either node replays it.
    for (const base of [a.url, b.url, cluster.lb.url]) {
      const replay = await create(base, ws.key, { region: "us-east1" }, idem);
      expect(replay.res.status).toBe(200);
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body.id).toBe(second.body.id);
    }
    // Both full: 503 insufficient-capacity with Retry-After, from either node.
    await a.app.cluster.tick();
    await b.app.cluster.tick();
    for (const base of [a.url, b.url]) {
      const full = await create(base, ws.key);
      expect(full.res.status).toBe(503);
      expect(full.body.type).toMatch(/insufficient-capacity$/);
      // The whole cluster is full, and the 503 says so (not "of this node").
      expect((full.body as { detail?: string }).detail).toBe("All 2 browsers in the cluster are in use.");
      expect(full.res.headers.get("retry-after")).toBeTruthy();
    }
    const running = await tdb.db.prisma.session.count({ where: { status: "RUNNING" } });
    expect(running).toBe(2);

    // Released through the node that does not run it: the owner closes the browser.
    const pid = b.app.deps.runtime.endpoint(second.body.id)!.pid;
    expect((await release(a.url, ws.key, second.body.id)).status).toBe(204);
    await eventually(
      async () => b.app.deps.runtime.ids().includes(second.body.id),
      (v) => !v,
    );
    await eventually(
      async () => alive(pid),
      (v) => !v,
    );
    await release(b.url, ws.key, first.body.id);
    await eventually(
      async () => a.app.deps.runtime.ids().length,
      (n) => n === 0,
    );

    // Two racing creates with one key on two nodes: one session.
    await a.app.cluster.tick();
    await b.app.cluster.tick();
    const key = randomUUID();
    const racing = await Promise.all([create(a.url, ws.key, { region: "us-east1" }, key), create(b.url, ws.key, { region: "us-east1" }, key)]);
    const ids = new Set(racing.filter((r) => r.res.status < 300).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(racing.map((r) => r.res.status).sort()).toSatisfy((s: number[]) => s[0] === 201 && [200, 201, 409].includes(s[1]!));
    const records = await tdb.db.prisma.idempotencyRecord.findMany({ where: { key } });
    expect(records).toHaveLength(1);
    for (const id of ids) await release(cluster.lb.url, ws.key, id);
    await idle();
  }, 90_000);

  it("a profile is saved, and a keepalive counts, through the node that does not run the session", async () => {
    await idle();
    const { body } = await create(a.url, ws.key);
    expect(await nodeOf(body.id)).toBe(a.app.deps.nodeId);
    try {
      const touched = vi.spyOn(a.app.deps.runtime, "touch");
      expect((await fetch(`${b.url}/v1/sessions/${body.id}:keepalive`, { method: "POST", headers: bearer(ws.key) })).status).toBe(200);
      await eventually(
        async () => touched.mock.calls.some(([id]) => id === body.id),
        (v) => v,
      );
      touched.mockRestore();
      const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
      const tab = await browser.newPage();
      await tab.goto(page.url);
      await tab.evaluate(() => localStorage.setItem("who", "cluster"));
      await browser.disconnect();
      const res = await fetch(`${b.url}/v1/profiles`, {
        method: "POST",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ label: "through b", session_id: body.id }),
      });
      expect(res.status).toBe(201);
      const profile = (await res.json()) as { id: string; origin_count: number };
      expect(profile.origin_count).toBe(1);
    } finally {
      await release(b.url, ws.key, body.id);
    }
  }, 60_000);

  it("H48 across nodes: a key revoked with end_sessions on one node closes, with 4403, the clients of its session on the other", async () => {
    await idle();
    const key = await addKey(a, ws.workspace.id);
    const made = await create(a.url, key.key);
    expect(made.res.status).toBe(201);
    expect(await nodeOf(made.body.id)).toBe(a.app.deps.nodeId);
    // Both clients come in through b, which relays them to a.
    const viaB = (url: string) => url.replace(new URL(a.url).origin, new URL(b.url).origin);
    const cdp = cdpSocket(viaB(made.body.connect_url!));
    expect(await cdp.opened).toBe("open");
    const viewer = liveViewSocket(b.url, made.body.live_view_url!);
    await viewer.next("hello");
    const owner = await seedUser(b, ws.workspace.id, "OWNER");
    expect(
      (await fetch(`${b.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${key.keyId}?end_sessions=true`, { method: "DELETE", headers: userAuth(owner) }))
        .status,
    ).toBe(204);
    // b recorded the end; a closes its browser and sockets with the recorded reason's code.
    expect((await closedWithin(cdp, 10_000)).code).toBe(4403);
    expect((await closedWithin(viewer, 10_000)).code).toBe(4403);
    expect(await tdb.db.prisma.session.findUniqueOrThrow({ where: { id: made.body.id } })).toMatchObject({ status: "RELEASED", endReason: "API_KEY_REVOKED" });
    await idle();
  });

  it("a revoked key is refused by every node, and one rate limit holds across nodes", async () => {
    const other = await seedWorkspace(a, { rateLimitPerMinute: 6 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${cluster.lb.url}/v1/health`, { headers: bearer(other.key) })).status);
    expect(statuses).toEqual(Array(6).fill(200));
    for (const node of [a, b]) expect((await fetch(`${node.url}/v1/health`, { headers: bearer(other.key) })).status).toBe(429);
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/vessel_rate_limited_total\{kind="key"\} [1-9]/);

    const third = await seedWorkspace(b);
    for (const node of [a, b]) expect((await fetch(`${node.url}/v1/health`, { headers: bearer(third.key) })).status).toBe(200);
    const owner = await seedUser(b, third.workspace.id, "OWNER");
    expect(
      (await fetch(`${b.url}/v1/dashboard/ws/${third.workspace.slug}/api-keys/${third.keyId}`, { method: "DELETE", headers: userAuth(owner) })).status,
    ).toBe(204);
    for (const node of [a, b]) expect((await fetch(`${node.url}/v1/health`, { headers: bearer(third.key) })).status).toBe(401);
  });

  it("internal calls need a node's signature: customer credentials and replays are refused", async () => {
    const refused = await fetch(`${a.url}/internal/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(401);
    const path = "/internal/v1/sessions/ses_X/touch";
    const headers = { ...b.app.cluster.auth.sign(a.app.deps.nodeId, "POST", path, "{}"), "content-type": "application/json" };
    expect((await fetch(`${a.url}${path}`, { method: "POST", headers, body: "{}" })).status).toBe(200);
    // The same signed call again: a replay.
    expect((await fetch(`${a.url}${path}`, { method: "POST", headers, body: "{}" })).status).toBe(401);
  });
});
