import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ulid } from "ulid";
import { loadConfig } from "../../src/config.ts";
import { createDeps, internalContext } from "../../src/deps.ts";
import { createLogger } from "../../src/logger.ts";
import { createApiKey } from "../../src/services/api-keys/api-keys.ts";
import { createWorkspace } from "../../src/services/workspaces/workspaces.ts";
import { bearer } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { createNetwork, netnsUnavailable, type Network } from "../support/netns.ts";
import { browserPids, privateRedis, spawnNode, type NodeProcess, type RedisProcess } from "../support/processes.ts";
import { eventually, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, servicesRequired } from "../support/services.ts";

/**
 * Two hosts: each node in its own network namespace, PostgreSQL and Redis (and each node's internal
 * address) reached over veths through forwarders that add 10 ms per round trip (support/netns.ts).
 * The faults are the network's: a partition (the host's veth taken down: packets dropped, TCP hangs
 * in retransmits) and a drain with relayed sockets. Issue 26.
 */

const hasChromium = chromiumPath() !== undefined;
const hasPostgres = await postgresReachable();
if (servicesRequired && (!hasChromium || !hasPostgres)) throw new Error("Chromium and PostgreSQL are required (VESSEL_REQUIRE_SERVICES=1)");
const noNamespaces = await netnsUnavailable();
if (noNamespaces) console.warn(`skipping the multi-host cluster tests: ${noNamespaces}`);

const root = fileURLToPath(new URL("../..", import.meta.url));
const RTT_MS = 10;
const PLACEMENT_BOUND_MS = 1000;
const DRAIN_SECONDS = 6;

/** A CDP client process (support/cdp-pinger.ts) inside a namespace; its lines as they come. */
interface Pinger {
  child: ChildProcess;
  lines: Array<Record<string, number | boolean | string>>;
  ran(): number[];
  closed(): number | undefined;
}

function pinger(ns: string, url: string): Pinger {
  const child = spawn("ip", ["netns", "exec", ns, process.execPath, "--import", "tsx", "test/support/cdp-pinger.ts", url, "50"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: Pinger["lines"] = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split("\n");
    rest = parts.pop()!;
    for (const line of parts) if (line) lines.push(JSON.parse(line) as Pinger["lines"][number]);
  });
  return {
    child,
    lines,
    ran: () => lines.filter((l) => typeof l.ran === "number").map((l) => l.ran as number),
    closed: () => lines.find((l) => typeof l.closed === "number")?.closed as number | undefined,
  };
}

describe.skipIf(!hasChromium || !hasPostgres || noNamespaces !== undefined)("two hosts in network namespaces, 10 ms apart: partition and drain", () => {
  let tdb: TestDatabase;
  let redis: RedisProcess;
  let network: Network;
  let a: NodeProcess;
  let b: NodeProcess;
  let key: string;
  const dataDirs: string[] = [];
  let startNode: (i: number, capacity: number) => Promise<NodeProcess>;
  const extra: NodeProcess[] = [];
  const pingers: Pinger[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    redis = await privateRedis();
    network = await createNetwork(2);
    const pg = new URL(tdb.url!);
    const pgForward = await network.forward(pg.hostname, Number(pg.port || 5432), RTT_MS);
    const redisForward = await network.forward("127.0.0.1", redis.port, RTT_MS);
    pg.hostname = network.gateway;
    pg.port = String(pgForward.port);
    const masterKey = randomBytes(32).toString("base64");
    const tag = ulid().slice(-6).toLowerCase();
    startNode = async (i: number, capacity: number) => {
      const host = network.hosts[i]!;
      const port = 18_000 + Math.floor(Math.random() * 20_000);
      const internal = await network.forward(host.address, port, RTT_MS);
      dataDirs.push(`/tmp/vessel-netns-${tag}-${port}`);
      return spawnNode(
        {
          PORT: String(port),
          DATABASE_URL: pg.toString(),
          REDIS_URL: `redis://${network.gateway}:${redisForward.port}`,
          VESSEL_MASTER_KEY: masterKey,
          VESSEL_NODE_ID: `host${i}-${ulid().slice(-8).toLowerCase()}`,
          VESSEL_DATA_DIR: `/tmp/vessel-netns-${tag}-${port}`,
          VESSEL_HOST: "0.0.0.0",
          VESSEL_PUBLIC_BASE_URL: `http://${host.address}:${port}`,
          VESSEL_INTERNAL_URL: `http://${network.gateway}:${internal.port}`,
          VESSEL_BROWSER_CAPACITY: String(capacity),
          VESSEL_HEARTBEAT_SECONDS: "0.5",
          VESSEL_NODE_TIMEOUT_SECONDS: "5",
          VESSEL_PLACEMENT_TIMEOUT_MS: String(PLACEMENT_BOUND_MS),
          VESSEL_DRAIN_SECONDS: String(DRAIN_SECONDS),
        },
        90_000,
        { netns: host.ns, address: host.address },
      );
    };
    [a, b] = await Promise.all([startNode(0, 1), startNode(1, 2)]);
    // A workspace and key, written as a maintenance command would (no node of its own).
    const config = loadConfig({ DATABASE_URL: tdb.url!, VESSEL_MASTER_KEY: masterKey }, "/nonexistent");
    const { deps, close } = await createDeps(config, tdb.db, createLogger("silent"), { startBrowsers: false });
    try {
      const ctx = internalContext(deps, "seed");
      const workspace = await createWorkspace(ctx, { slug: `netns-${tag}`, name: "netns" });
      key = (await createApiKey(ctx, { workspaceId: workspace.id, label: "netns" })).secret;
    } finally {
      await close();
    }
  }, 180_000);

  afterAll(async () => {
    for (const p of pingers) p.child.kill("SIGKILL");
    await Promise.all([a?.stop(5_000), b?.stop(5_000), ...extra.map((n) => n.stop(5_000))]);
    await network?.destroy();
    await redis?.stop();
    await tdb?.dispose();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const create = async (base: string) => {
    const started = performance.now();
    const res = await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ region: "us-east1" }),
    });
    return { status: res.status, ms: performance.now() - started, body: (await res.json()) as SessionBody & { detail?: string } };
  };
  /** A create sent from inside a namespace (a client on that host's side of a partition): its status and time. */
  const createFrom = async (ns: string, base: string) => {
    const script = `const t = performance.now(); const r = await fetch(${JSON.stringify(`${base}/v1/sessions`)}, { method: "POST", headers: ${JSON.stringify({ ...bearer(key), "content-type": "application/json", "idempotency-key": randomUUID() })}, body: '{"region":"us-east1"}', signal: AbortSignal.timeout(30000) }); console.log(JSON.stringify({ status: r.status, ms: performance.now() - t }));`;
    const { stdout } = await promisify(execFile)("ip", ["netns", "exec", ns, process.execPath, "--input-type=module", "-e", script]);
    return JSON.parse(stdout) as { status: number; ms: number };
  };
  const release = (base: string, id: string) =>
    fetch(`${base}/v1/sessions/${id}`, {
      method: "PATCH",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });
  const row = (id: string) => tdb.db.prisma.session.findUniqueOrThrow({ where: { id } });
  const nodeRow = (n: NodeProcess) => tdb.db.prisma.node.findUniqueOrThrow({ where: { id: n.env.VESSEL_NODE_ID! } });
  const start = (ns: string, url: string) => {
    const p = pinger(ns, url);
    pingers.push(p);
    return p;
  };
  const through = (n: NodeProcess, connectUrl: string) => {
    const u = new URL(connectUrl);
    u.host = new URL(n.url).host;
    return u.toString();
  };

  it("partition: the cut-off node stops executing commands before the cluster ends its session; nothing runs on it after the heal; creates answered within the bound", async () => {
    const onB = await create(b.url);
    expect(onB.status).toBe(201);
    expect((await row(onB.body.id)).nodeId).toBe(b.env.VESSEL_NODE_ID);
    const filler = await create(a.url); // A is full now (capacity 1)
    expect(filler.status).toBe(201);
    expect((await row(filler.body.id)).nodeId).toBe(a.env.VESSEL_NODE_ID);
    await eventually(
      async () => `${(await nodeRow(a)).freeSlots}/${(await nodeRow(b)).freeSlots}`,
      (v) => v === "0/1",
      10_000,
    );

    // A client on B's side (in B's namespace), and one relayed through A to B.
    const local = start(network.hosts[1]!.ns, onB.body.connect_url!);
    const relayed = start(network.hosts[0]!.ns, through(a, onB.body.connect_url!));
    await eventually(
      async () => Math.min(local.ran().length, relayed.ran().length),
      (n) => n > 3,
      20_000,
    );

    await network.hosts[1]!.partition();
    // Creates sent to the full node A while B still looks alive: answered within the bound, not after B's timeout.
    const during = await Promise.all([create(a.url), create(a.url)]);
    for (const c of during) {
      expect(c.status).toBe(503);
      // The bound, plus room for a 2-core machine under load; before issue 26 these took 10 s or more.
      expect(c.ms).toBeLessThan(PLACEMENT_BOUND_MS + 2_500);
    }

    const ended = await eventually(
      () => row(onB.body.id),
      (r) => r.status !== "RUNNING",
      30_000,
    );
    expect(ended).toMatchObject({ status: "FAILED", endReason: "NODE_SHUTDOWN" });
    const endedAt = ended.endedAt!.getTime();
    // B fenced itself: its client was closed with 4503 (lease lost), and its last command ran before the end.
    await eventually(
      async () => local.closed(),
      (c) => c !== undefined,
      10_000,
    ).catch((err: unknown) => {
      console.error(
        b.log
          .filter((l) => /lease|heartbeat|closing|error/i.test(l))
          .slice(-20)
          .join("\n"),
        JSON.stringify(local.lines.slice(-5)),
      );
      throw err;
    });
    expect(local.closed()).toBe(4503);
    expect(Math.max(...local.ran())).toBeLessThan(endedAt);
    // It said so: first that the database was late, then that it fenced itself.
    expect(b.log.join("\n")).toContain("the database has not answered a heartbeat yet");
    expect(b.log.join("\n")).toContain("lease lost");
    // A create sent to the fenced node itself (from its own side of the cut) is answered at once.
    const onIsland = await createFrom(network.hosts[1]!.ns, b.url);
    expect(onIsland.status).toBe(503);
    expect(onIsland.ms).toBeLessThan(PLACEMENT_BOUND_MS + 2_500);

    await network.hosts[1]!.heal();
    await eventually(
      async () => (await fetch(`${b.url}/readyz`)).status,
      (s) => s === 200,
      30_000,
    );
    // What the relayed client sent during the partition never runs on the ended session.
    await eventually(
      async () => relayed.closed(),
      (c) => c !== undefined,
      20_000,
    );
    expect(relayed.ran().every((t) => t < endedAt)).toBe(true);
    expect(local.ran().every((t) => t < endedAt)).toBe(true);
    expect(browserPids(b.browserRoot)).toEqual([]);
    expect((await release(a.url, filler.body.id)).status).toBe(204);
  }, 120_000);

  it("drain: a client relayed through the draining node to a session on the other keeps working until the deadline, and its session survives", async () => {
    const onB = await create(b.url);
    expect(onB.status).toBe(201);
    expect((await row(onB.body.id)).nodeId).toBe(b.env.VESSEL_NODE_ID);
    const relayed = start(network.hosts[0]!.ns, through(a, onB.body.connect_url!));
    await eventually(
      async () => relayed.ran().length,
      (n) => n > 3,
      20_000,
    );

    const signalled = Date.now();
    a.signal("SIGTERM");
    await eventually(
      async () => (await fetch(`${a.url}/readyz`)).status,
      (s) => s === 503,
      10_000,
    );
    // Well into the drain, the relayed client still runs commands, and A still runs.
    await eventually(
      async () => relayed.ran().filter((t) => t > signalled + 3_000).length,
      (n) => n > 3,
      15_000,
    );
    expect(a.child.exitCode).toBeNull();
    expect(relayed.closed()).toBeUndefined();

    // At the deadline A exits (0); only then is the relayed connection closed: 1001, not cut (1006).
    expect((await a.exited).code).toBe(0);
    await eventually(
      async () => relayed.closed(),
      (c) => c !== undefined,
      10_000,
    );
    expect(relayed.closed()).toBe(1001);
    expect(Math.max(...relayed.ran())).toBeGreaterThan(signalled + (DRAIN_SECONDS - 2) * 1000);
    // The session on B is untouched, and drivable directly.
    expect(await row(onB.body.id)).toMatchObject({ status: "RUNNING" });
    const direct = start(network.hosts[1]!.ns, onB.body.connect_url!);
    await eventually(
      async () => direct.ran().length,
      (n) => n > 1,
      20_000,
    );
    expect((await release(b.url, onB.body.id)).status).toBe(204);
  }, 120_000);

  it("a node killed: a peer on the other host ends its sessions after the node timeout, and its browser went with it", async () => {
    const c = await startNode(0, 1); // where A ran, now that A drained away
    extra.push(c);
    const onB = await create(b.url);
    expect(onB.status).toBe(201);
    const [pid] = browserPids(b.browserRoot);
    expect(pid).toBeDefined();
    b.signal("SIGKILL");
    await b.exited;
    const ended = await eventually(
      () => row(onB.body.id),
      (r) => r.status !== "RUNNING",
      30_000,
    );
    expect(ended).toMatchObject({ status: "FAILED", endReason: "NODE_SHUTDOWN" });
    await eventually(
      async () =>
        browserPids(b.browserRoot).filter((p) => {
          try {
            process.kill(p, 0);
            return true;
          } catch {
            return false;
          }
        }).length,
      (n) => n === 0,
      15_000,
    );
  }, 120_000);
});
