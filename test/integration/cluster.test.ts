import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import { promisify } from "node:util";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heartbeat, ownerOf, placementCandidates, registerNode, sessionsOfDeadNodes } from "../../src/services/nodes/nodes.ts";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";
import { createTestDatabase, describePostgres, type TestDatabase } from "../support/db.ts";
import { eventually } from "../support/sessions.ts";

/** The node registry, crash recovery and drain, without browsers (e2e/cluster.test.ts has them). */

describePostgres("the node registry and crash recovery", () => {
  let tdb: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    env = { VESSEL_MASTER_KEY: randomBytes(32).toString("base64"), VESSEL_NODE_TIMEOUT_SECONDS: "2", VESSEL_HEARTBEAT_SECONDS: "0.5" };
    // No browsers: heartbeats do not run on their own, the test drives them.
    a = await startTestApp({ db: tdb.db, startBrowsers: false, env });
    b = await startTestApp({ db: tdb.db, startBrowsers: false, env });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await tdb?.dispose();
  });

  /** A node that stopped answering an hour ago, with live sessions in a workspace. */
  async function deadNodeWith(sessions: number): Promise<{ node: string; ids: string[] }> {
    const ws = await seedWorkspace(a);
    const node = `dead-${ulid()}`;
    await registerNode(tdb.db.prisma, { id: node, internalUrl: "http://127.0.0.1:9", region: "us-east1", capacity: 4, freeSlots: 4, draining: false });
    await tdb.db.prisma.$executeRaw`UPDATE "nodes" SET "heartbeat_at" = now() - interval '1 hour' WHERE "id" = ${node}`;
    const ids: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const id = `ses_${ulid()}`;
      const now = new Date();
      await tdb.db.prisma.session.create({
        data: {
          id,
          workspaceId: ws.workspace.id,
          status: "RUNNING",
          region: "us-east1",
          nodeId: node,
          timeoutSeconds: 1800,
          idleTimeoutSeconds: 300,
          startedAt: now,
          expiresAt: new Date(now.getTime() + 1_800_000),
        },
      });
      ids.push(id);
    }
    return { node, ids };
  }

  it("registers nodes with their address, region and room, and tells live from dead by the database's clock", async () => {
    const row = await tdb.db.prisma.node.findUniqueOrThrow({ where: { id: a.app.deps.nodeId } });
    expect(row).toMatchObject({ internalUrl: a.url, region: "us-east1", draining: false, stoppedAt: null });
    await heartbeat(tdb.db.prisma, { id: a.app.deps.nodeId, internalUrl: a.url, region: "us-east1", capacity: 3, freeSlots: 2, draining: false });
    expect(await placementCandidates(tdb.db.prisma, "us-east1", b.app.deps.nodeId, 2)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: a.app.deps.nodeId, freeSlots: 2, alive: true })]),
    );
    expect(await placementCandidates(tdb.db.prisma, "eu-west1", b.app.deps.nodeId, 2)).toEqual([]);
    // Without browsers this node has no room after all.
    await heartbeat(tdb.db.prisma, { id: a.app.deps.nodeId, internalUrl: a.url, region: "us-east1", capacity: 3, freeSlots: 0, draining: false });
    const { node, ids } = await deadNodeWith(1);
    expect(await ownerOf(tdb.db.prisma, ids[0]!, 2)).toMatchObject({ id: node, alive: false });
    expect((await sessionsOfDeadNodes(tdb.db.prisma, a.app.deps.nodeId, 2)).map((s) => s.id)).toContain(ids[0]);
    await a.app.cluster.reapDeadNodes();
  });

  it("a dead node's sessions are ended with node_shutdown exactly once, however many peers notice at once", async () => {
    const { ids } = await deadNodeWith(5);
    const counts = await Promise.all([
      a.app.cluster.reapDeadNodes(),
      b.app.cluster.reapDeadNodes(),
      a.app.cluster.reapDeadNodes(),
      b.app.cluster.reapDeadNodes(),
    ]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(5);
    const sessions = await tdb.db.prisma.session.findMany({ where: { id: { in: ids } } });
    expect(sessions.map((s) => [s.status, s.endReason])).toEqual(Array(5).fill(["FAILED", "NODE_SHUTDOWN"]));
    for (const id of ids) {
      const events = await tdb.db.prisma.sessionEvent.findMany({ where: { sessionId: id } });
      expect(events.map((e) => [e.type, e.data])).toEqual([["session.failed", { reason: "node_shutdown" }]]);
    }
  });

  it("a node that stopped cleanly is out of placement at once", async () => {
    const c = await startTestApp({ db: tdb.db, env: { VESSEL_MASTER_KEY: randomBytes(32).toString("base64"), VESSEL_BROWSER_CAPACITY: "2" } });
    const id = c.app.deps.nodeId;
    expect((await placementCandidates(tdb.db.prisma, "us-east1", "nobody", 30)).map((n) => n.id)).toContain(id);
    await c.stop();
    expect((await placementCandidates(tdb.db.prisma, "us-east1", "nobody", 30)).map((n) => n.id)).not.toContain(id);
    expect(await tdb.db.prisma.node.findUniqueOrThrow({ where: { id } })).toMatchObject({ draining: true, freeSlots: 0, stoppedAt: expect.any(Date) });
  });

  it("npm run seed with a live node's VESSEL_NODE_ID neither re-registers nor stops it (its sessions stay), and leaves no node row", async () => {
    const { ids } = await deadNodeWith(1);
    const live = a.app.deps.nodeId;
    await tdb.db.prisma.session.update({ where: { id: ids[0]! }, data: { nodeId: live } });
    await heartbeat(tdb.db.prisma, { id: live, internalUrl: a.url, region: "us-east1", capacity: 1, freeSlots: 0, draining: false });
    const before = await tdb.db.prisma.node.findUniqueOrThrow({ where: { id: live } });
    const rows = await tdb.db.prisma.node.count();
    const seed = (extra: Record<string, string>) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/seed.ts", "--workspace", `seed-${ulid().toLowerCase()}`], {
        env: { PATH: process.env.PATH, HOME: os.tmpdir(), DATABASE_URL: tdb.url!, VESSEL_MASTER_KEY: env.VESSEL_MASTER_KEY!, ...extra },
      });
    // What `kubectl exec` into the node's pod inherits: its id. Then a plain run (the id is the host name).
    expect((await seed({ VESSEL_NODE_ID: live })).stdout.trim().length).toBeGreaterThan(20);
    await seed({});
    const after = await tdb.db.prisma.node.findUniqueOrThrow({ where: { id: live } });
    expect(after.stoppedAt).toBeNull();
    expect(after.startedAt).toEqual(before.startedAt);
    expect(await tdb.db.prisma.node.count()).toBe(rows);
    expect(await tdb.db.prisma.node.findUnique({ where: { id: os.hostname() } })).toBeNull();
    // So a peer takes the node for alive while it heartbeats: its session is not ended.
    expect((await sessionsOfDeadNodes(tdb.db.prisma, b.app.deps.nodeId, 3600)).map((s) => s.id)).not.toContain(ids[0]);
    await heartbeat(tdb.db.prisma, { id: live, internalUrl: a.url, region: "us-east1", capacity: 1, freeSlots: 0, draining: false });
    await b.app.cluster.reapDeadNodes();
    expect(await tdb.db.prisma.session.findUniqueOrThrow({ where: { id: ids[0]! } })).toMatchObject({ status: "RUNNING" });
    await tdb.db.prisma.session.update({ where: { id: ids[0]! }, data: { status: "RELEASED", endReason: "CLIENT_RELEASE", endedAt: new Date() } });
  }, 60_000);

  it("draining: /readyz is 503 at once, and a create with no peer to take it is 503 with Retry-After", async () => {
    const ws = await seedWorkspace(a);
    const c = await startTestApp({ db: tdb.db, env: { VESSEL_MASTER_KEY: randomBytes(32).toString("base64") } });
    try {
      expect((await fetch(`${c.url}/readyz`)).status).toBe(200);
      await c.app.drain(0);
      const ready = await fetch(`${c.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get("retry-after")).toBeTruthy();
      expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
      expect(await tdb.db.prisma.node.findUniqueOrThrow({ where: { id: c.app.deps.nodeId } })).toMatchObject({ draining: true, freeSlots: 0 });
      const res = await fetch(`${c.url}/v1/sessions`, {
        method: "POST",
        headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": randomUUID() },
        body: JSON.stringify({ region: "us-east1" }),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { type: string }).type).toMatch(/service-unavailable$/);
      expect(res.headers.get("retry-after")).toBeTruthy();
      // The refusal is audited like any call.
      const audit = await eventually(
        () => tdb.db.prisma.auditEntry.findMany({ where: { requestId: res.headers.get("x-request-id")! } }),
        (rows) => rows.length > 0,
      );
      expect(audit.map((e) => [e.action, e.httpStatus])).toEqual([["session.create", 503]]);
    } finally {
      await c.stop();
    }
  });
});

describe("metrics", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ startBrowsers: false, env: { VESSEL_METRICS_TOKEN: "a-long-enough-metrics-token" } });
  });
  afterAll(async () => t?.stop());

  it("GET /metrics needs the configured token and serves Prometheus text with the node's figures", async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const ws = await seedWorkspace(t);
    await fetch(`${t.url}/v1/sessions/ses_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { headers: bearer(ws.key) });
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer a-long-enough-metrics-token" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    for (const name of [
      "vessel_pool_capacity",
      "vessel_pool_free_slots",
      "vessel_cdp_connections",
      "vessel_live_view_connections",
      "vessel_audit_queue_depth",
      "vessel_session_create_seconds",
      "vessel_rate_limited_total",
      "vessel_node_draining",
      "vessel_process_cpu_seconds_total",
    ]) {
      expect(text, name).toContain(name);
    }
    expect(text).toMatch(/vessel_sessions\{status="RUNNING"\} 0/);
    // By route template, never by raw path (ids would explode the series).
    expect(text).toMatch(/vessel_http_requests_total\{route="\/v1\/sessions\/:id",method="GET",status="404"\} 1/);
    expect(text).not.toContain("ses_01ARZ3NDEKTSV4RRFFQ69G5FAV");
  });
});
