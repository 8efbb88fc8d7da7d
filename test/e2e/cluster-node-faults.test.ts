import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../src/db/client.ts";
import { addKey, bearer, seedWorkspace, type Seeded, type TestApp } from "../support/app.ts";
import { startCluster, type TestCluster } from "../support/cluster.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { tcpRelay, type TcpRelay } from "../support/processes.ts";
import { eventually, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";
import { cdpSocket, closedWithin, liveViewSocket } from "../support/sockets.ts";

/**
 * Faults of one node of two (issue 41, point 7), nodes in this process: node A reaches PostgreSQL
 * through a TCP relay of its own that the test black-holes (connections stay open, nothing moves:
 * a network that drops packets), while node B, Redis and the peers' internal calls stay up. And a
 * drain that reaches its deadline while A relays connections to B's session.
 */

const hasChromium = chromiumPath() !== undefined;
const shared = { postgres: await postgresReachable(), redis: await redisReachable() };
if (servicesRequired && (!hasChromium || !shared.postgres || !shared.redis))
  throw new Error("Chromium, PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");

/** VESSEL_PLACEMENT_TIMEOUT_MS here (as in cluster-network.test.ts): the documented default is 2 s. */
const BOUND_MS = 1000;
/** Room for a 2-core machine under load, as cluster-network.test.ts allows; before issue 41 these took 5–7 s. */
const SLACK_MS = 2500;
const ROUNDS = 3;

describe.skipIf(!hasChromium || !shared.postgres || !shared.redis)(
  "one node of two loses its database; a drain reaches its deadline with relayed sockets",
  () => {
    let tdb: TestDatabase;
    let relay: TcpRelay;
    let dbA: Database;
    let cluster: TestCluster;
    let a: TestApp;
    let b: TestApp;
    let ws: Seeded;

    beforeAll(async () => {
      tdb = await createTestDatabase("postgres");
      const pg = new URL(tdb.url!);
      relay = await tcpRelay(pg.hostname, Number(pg.port || 5432));
      dbA = await openDatabase({ url: relay.through(tdb.url!), dataDir: "" });
      cluster = await startCluster(2, {
        db: tdb.db,
        nodeDb: [dbA],
        redisUrl: testRedisUrl,
        // The default lease (15 s of a 30 s node timeout): A does not fence itself during a round, so
        // what answers the create is its budget, not the fence.
        env: { VESSEL_BROWSER_CAPACITY: "1", VESSEL_PLACEMENT_TIMEOUT_MS: String(BOUND_MS), VESSEL_NODE_TIMEOUT_SECONDS: "30" },
      });
      [a, b] = cluster.nodes as [TestApp, TestApp];
      ws = await seedWorkspace(b);
    }, 120_000);
    afterAll(async () => {
      relay?.resume();
      await cluster?.stop();
      await dbA?.close();
      await relay?.close();
      await tdb?.dispose();
    }, 60_000);

    const create = async (base: string, idem = randomUUID(), key = ws.key) => {
      const started = performance.now();
      const res = await fetch(`${base}/v1/sessions`, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": idem },
        body: JSON.stringify({ region: "us-east1" }),
        signal: AbortSignal.timeout(30_000),
      });
      return { res, ms: performance.now() - started, body: (await res.json()) as SessionBody & { type?: string } };
    };
    const release = (base: string, id: string) =>
      fetch(`${base}/v1/sessions/${id}`, {
        method: "PATCH",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ status: "REQUEST_RELEASE" }),
      });
    const nodeOf = async (id: string) => (await tdb.db.prisma.session.findUniqueOrThrow({ where: { id } })).nodeId;

    it("creates sent to the node without its database are answered 503 with Retry-After within the create's budget; the retry with the same key is served by the peer", async () => {
      const times: number[] = [];
      const unknownKeyTimes: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // A knows the key (its record is cached), so the create itself is what waits on the database.
        expect((await fetch(`${a.url}/v1/sessions`, { headers: bearer(ws.key) })).status).toBe(200);
        // A key A has never seen: its record must be read first, and that read shares the create's budget.
        const fresh = await addKey(b, ws.workspace.id);
        relay.pause();
        try {
          const unknownKey = await create(a.url, randomUUID(), fresh.key);
          unknownKeyTimes.push(Math.round(unknownKey.ms));
          expect(unknownKey.res.status).toBe(503);
          expect(unknownKey.res.headers.get("retry-after")).toBeTruthy();
          expect(unknownKey.ms).toBeLessThan(BOUND_MS + SLACK_MS);

          const idem = randomUUID();
          const refused = await create(a.url, idem);
          times.push(Math.round(refused.ms));
          expect(refused.res.status).toBe(503);
          expect(refused.res.headers.get("retry-after")).toBeTruthy();
          expect(refused.body.type).toMatch(/\/errors\/service-unavailable$/);
          // The create's budget answered, not the lease (A still holds it) and not the driver's 5–7 s.
          expect(a.app.cluster.fenced).toBe(false);
          expect(refused.ms).toBeLessThan(BOUND_MS + SLACK_MS);
          // The documented retry (same Idempotency-Key, through the load balancer) lands on B and is served
          // there: A wrote nothing (its statement never reached the database, and the relay resumes no dropped connection).
          const retried = await create(b.url, idem);
          expect(retried.res.status).toBe(201);
          expect(await nodeOf(retried.body.id)).toBe(b.app.deps.nodeId);
          expect((await release(b.url, retried.body.id)).status).toBe(204);
        } finally {
          relay.resume();
        }
        // A recovers by itself.
        await eventually(
          async () => (await fetch(`${a.url}/v1/sessions`, { headers: bearer(ws.key) })).status,
          (s) => s === 200,
          30_000,
        );
        await eventually(
          async () => b.app.deps.browsers.report().inUse + b.app.deps.runtime.ids().length,
          (n) => n === 0,
        );
      }
      console.info(
        `creates on the node without its database answered in ${times.join(", ")} ms; with a key it had not read yet ${unknownKeyTimes.join(", ")} ms (budget ${BOUND_MS} ms)`,
      );
      // And it serves creates again.
      const after = await create(a.url);
      expect(after.res.status).toBe(201);
      expect(await nodeOf(after.body.id)).toBe(a.app.deps.nodeId);
      expect((await release(a.url, after.body.id)).status).toBe(204);
      expect(await tdb.db.prisma.idempotencyRecord.count({ where: { state: "IN_PROGRESS" } })).toBe(0);
    }, 120_000);

    it("a drain that reaches its deadline closes relayed and local CDP and live-view sockets with 1001", async () => {
      await eventually(
        async () => a.app.deps.browsers.report().inUse + b.app.deps.browsers.report().inUse,
        (n) => n === 0,
      );
      await a.app.cluster.tick();
      await b.app.cluster.tick();
      const onB = await create(b.url);
      const onA = await create(a.url);
      expect([onB.res.status, onA.res.status]).toEqual([201, 201]);
      expect([await nodeOf(onB.body.id), await nodeOf(onA.body.id)]).toEqual([b.app.deps.nodeId, a.app.deps.nodeId]);

      // Through A: relayed to B (its session) and served by A (its own).
      const relayedCdp = cdpSocket(cluster.direct(0, onB.body.connect_url!));
      const relayedViewer = liveViewSocket(a.url, onB.body.live_view_url!);
      const localCdp = cdpSocket(cluster.direct(0, onA.body.connect_url!));
      const localViewer = liveViewSocket(a.url, onA.body.live_view_url!);
      expect(await relayedCdp.opened).toBe("open");
      expect(await localCdp.opened).toBe("open");
      await relayedViewer.next("hello");
      await localViewer.next("hello");
      expect(a.app.cluster.relays).toBe(2);
      // The relayed CDP socket carries a command both ways before the drain.
      relayedCdp.ws.send(JSON.stringify({ id: 1, method: "Target.getTargets" }));
      await eventually(
        async () => relayedCdp.messages.find((m) => m.id === 1),
        (m) => m !== undefined,
      );

      const onBDirect = cluster.direct(1, onB.body.connect_url!);
      // The sessions run on past the deadline: A ends its own and lets go of the relayed ones.
      await a.app.drain(1_000);
      cluster.nodes.splice(0, 1); // stopped here, not again by cluster.stop()
      await a.stop();
      const codes = await Promise.all([relayedCdp, relayedViewer, localCdp, localViewer].map(async (s) => (await closedWithin(s, 15_000)).code));
      expect(codes).toEqual([1001, 1001, 1001, 1001]);

      // B's session was only relayed through A: it runs on, drivable directly.
      expect((await tdb.db.prisma.session.findUniqueOrThrow({ where: { id: onB.body.id } })).status).toBe("RUNNING");
      const again = cdpSocket(onBDirect);
      expect(await again.opened).toBe("open");
      again.ws.close();
      expect((await release(b.url, onB.body.id)).status).toBe(204);
    }, 120_000);
  },
);
