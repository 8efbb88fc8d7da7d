import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { ulid } from "ulid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, startTestApp, type Seeded } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnNode, type NodeProcess } from "../support/processes.ts";
import { eventually } from "../support/sessions.ts";
import { randomUUID } from "node:crypto";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";
import { signedBy, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

/**
 * Webhook deliveries are rows in PostgreSQL, sent by real node processes (`node --import tsx
 * src/main.ts`): one survives its node being killed between two attempts, and two nodes sharing the
 * database never send the same attempt twice.
 */

const hasPostgres = await postgresReachable();
const hasRedis = await redisReachable();
const hasChromium = chromiumPath() !== undefined;
if (servicesRequired && (!hasPostgres || !hasRedis || !hasChromium)) throw new Error("PostgreSQL, Redis and Chromium are required (VESSEL_REQUIRE_SERVICES=1)");

describe.skipIf(!hasPostgres)("webhook deliveries across node processes (PostgreSQL)", () => {
  let tdb: TestDatabase;
  let ws: Seeded;
  let receiver: Receiver;
  const masterKey = randomBytes(32).toString("base64");
  const nodes: NodeProcess[] = [];
  const dataDirs: string[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const seeder = await startTestApp({ db: tdb.db, startBrowsers: false, env: { VESSEL_MASTER_KEY: masterKey } });
    ws = await seedWorkspace(seeder);
    await seeder.stop();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop(10_000);
  });
  afterAll(async () => {
    await receiver?.close();
    await tdb?.dispose();
    for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function node(
    nodeId: string,
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-wh-")),
    retryBaseMs = 200,
    extra: Record<string, string> = {},
  ): Promise<NodeProcess> {
    dataDirs.push(dataDir);
    const n = await spawnNode({
      DATABASE_URL: tdb.url!,
      VESSEL_MASTER_KEY: masterKey,
      VESSEL_DATA_DIR: dataDir,
      VESSEL_NODE_ID: nodeId,
      VESSEL_BROWSER_CAPACITY: "1",
      VESSEL_WEBHOOK_RETRY_BASE_MS: String(retryBaseMs),
      ...extra,
    });
    nodes.push(n);
    return n;
  }
  const post = async (n: NodeProcess, p: string, body?: unknown) => {
    const res = await fetch(`${n.url}${p}`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const delivery = (id: string) => tdb.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });

  it("keeps a delivery through a kill -9 of its node between attempts: the retry comes from the restarted node, same webhook-id", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-wh-"));
    const nodeId = `wh-restart-${ulid()}`;
    const first = await node(nodeId, dataDir, 3000);
    receiver.script("/restart", [500]);
    const hook = await post(first, "/v1/webhooks", { url: `${receiver.url}/restart`, events: ["session.released"] });
    expect(hook.status).toBe(201);
    const test = await post(first, `/v1/webhooks/${hook.body.id}:test`);
    await eventually(
      async () => receiver.received.filter((r) => r.path === "/restart").length,
      (n) => n === 1,
    );
    await eventually(
      () => delivery(test.body.id!),
      (d) => d.attempts === 1 && d.lastStatusCode === 500,
    );
    first.signal("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(await delivery(test.body.id!)).toMatchObject({ status: "pending", attempts: 1 });

    await node(nodeId, dataDir, 3000);
    const d = await eventually(
      () => delivery(test.body.id!),
      (x) => x.status === "delivered",
      30_000,
    );
    expect(d).toMatchObject({ attempts: 2, lastStatusCode: 200 });
    const got = receiver.received.filter((r) => r.path === "/restart");
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([test.body.id, test.body.id]);
    expect(got[1]!.body).toBe(got[0]!.body);
    for (const r of got) expect(signedBy([hook.body.secret!], r)).toEqual([hook.body.secret]);
  }, 120_000);

  it("two nodes on one database never send the same attempt twice", async () => {
    const [a, b] = await Promise.all([node(`wh-a-${ulid()}`), node(`wh-b-${ulid()}`)]);
    const seen = new Map<string, number>();
    // Each delivery's first attempt answers 500, its second 200: every attempt is claimed, retried, and may move nodes.
    receiver.answer = (r) => {
      if (r.path !== "/pair") return 200;
      const id = String(r.headers["webhook-id"]);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return seen.get(id) === 1 ? 500 : 200;
    };
    receiver.delayMs = 50;
    const hook = await post(a, "/v1/webhooks", { url: `${receiver.url}/pair`, events: ["session.released"] });
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push((await post(i % 2 ? b : a, `/v1/webhooks/${hook.body.id}:test`)).body.id!);
    const rows = await eventually(
      () => tdb.db.prisma.webhookDelivery.findMany({ where: { endpointId: hook.body.id } }),
      (r) => r.length === ids.length && r.every((d) => d.status === "delivered"),
      60_000,
    );
    receiver.answer = undefined;
    // Exactly two requests per delivery (one per attempt), never a third: no attempt was sent by both nodes.
    expect(ids.map((id) => seen.get(id))).toEqual(ids.map(() => 2));
    expect(rows.every((d) => d.attempts === 2)).toBe(true);
    // Both nodes took part (each sent the last attempt of some).
    expect(new Set(rows.map((d) => d.lockedBy)).size).toBe(2);
  }, 120_000);

  it.skipIf(!hasRedis || !hasChromium)(
    "queues a session's events on the node that runs it, for an endpoint made on another node a moment before (Redis tells it)",
    async () => {
      const redis = { REDIS_URL: testRedisUrl };
      const [a, b] = await Promise.all([node(`wh-ra-${ulid()}`, undefined, 200, redis), node(`wh-rb-${ulid()}`, undefined, 200, redis)]);
      const create = async () => {
        const res = await fetch(`${b.url}/v1/sessions`, {
          method: "POST",
          headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": randomUUID() },
          body: JSON.stringify({ region: "us-east1" }),
        });
        expect(res.status).toBe(201);
        const session = (await res.json()) as { id: string };
        expect((await tdb.db.prisma.session.findUniqueOrThrow({ where: { id: session.id } })).nodeId).toBe(b.env.VESSEL_NODE_ID);
        const released = await fetch(`${b.url}/v1/sessions/${session.id}`, {
          method: "PATCH",
          headers: { ...bearer(ws.key), "content-type": "application/json" },
          body: JSON.stringify({ status: "REQUEST_RELEASE" }),
        });
        expect(released.ok).toBe(true);
        return session.id;
      };
      // With no endpoint enabled anywhere, node b learns that there is none (and would believe it for 10 s)…
      await tdb.db.prisma.webhookEndpoint.updateMany({ data: { enabled: false } });
      await create();
      // …then a's new endpoint reaches it through Redis: b's next session is delivered at once.
      const hook = await post(a, "/v1/webhooks", { url: `${receiver.url}/fresh`, events: ["session.running", "session.released"] });
      expect(hook.status).toBe(201);
      const id = await create();
      const got = await eventually(
        async () => receiver.received.filter((r) => r.path === "/fresh"),
        (r) => r.length === 2,
        20_000,
      );
      // Attempts run side by side, so the two may arrive in either order; the events' timestamps order them.
      const events = got
        .map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: { id: string } })
        .sort((x, y) => x.timestamp.localeCompare(y.timestamp));
      expect(events.map((e) => [e.type, e.data.id])).toEqual([
        ["session.running", id],
        ["session.released", id],
      ]);
    },
    120_000,
  );
});
