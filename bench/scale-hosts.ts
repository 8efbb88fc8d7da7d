// Scale across hosts (issue 26): what a session placed on another node costs against one that runs
// where the client's create landed, at 0 and 10 ms round trip between hosts. Two nodes, each in its
// own network namespace (test/support/netns.ts: veths on a bridge; PostgreSQL, Redis and each
// node's internal address reached through forwarders that add the latency in user space, as this
// kernel may lack netem). The client talks to node A only (A is what the load balancer picked):
//  - local: a create for A's region runs on A;
//  - placed: a create for B's region is placed on B by A, and every CDP byte is relayed by A.
// Each lifecycle is create → connect → new page → goto (a data: URL) → RTTS Runtime.evaluate round
// trips → release, local and placed alternating. Printed per latency: lifecycle (without the round trips) and create p50,
// connect + new page p50, one CDP round trip p50, placed ÷ local, and the relay's CPU: node A's own
// CPU per placed session (placement + relaying all its CDP traffic) beside its CPU per local one.
// Needs root (network namespaces). Never part of the tests.
//
//   npm run bench:scale -- hosts       BENCH_SESSIONS=8 (each kind) BENCH_RTTS=200
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import puppeteer from "puppeteer-core";
import pg from "pg";
import { ulid } from "ulid";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createDeps, internalContext } from "../src/deps.ts";
import { createLogger } from "../src/logger.ts";
import { createApiKey } from "../src/services/api-keys/api-keys.ts";
import { createWorkspace } from "../src/services/workspaces/workspaces.ts";
import { createNetwork, netnsUnavailable } from "../test/support/netns.ts";
import { privateRedis, spawnNode, type NodeProcess } from "../test/support/processes.ts";
import { testDatabaseUrl } from "../test/support/services.ts";
import { f, num, pct } from "./support.ts";

const sessions = num("BENCH_SESSIONS", 8);
const rtts = num("BENCH_RTTS", 200);
const page = "data:text/html,<p id=greeting>hello</p>";

function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

interface Sample {
  lifecycle: number;
  create: number;
  connectPage: number;
  rtt: number;
  cpuA: number;
  cpuB: number;
}

async function lifecycle(base: string, key: string, region: string, [nodeA, nodeB]: NodeProcess[]): Promise<Sample> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const cpu0 = cpuMs(nodeA!.child.pid!);
  const cpuB0 = cpuMs(nodeB!.child.pid!);
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": randomUUID() },
    body: JSON.stringify({ region }),
  });
  const body = (await res.json()) as { id: string; connect_url: string; detail?: string };
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${body.detail}`);
  const t1 = performance.now();
  const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url });
  const tab = await browser.newPage();
  const t2 = performance.now();
  await tab.goto(page);
  const cdp = await tab.createCDPSession();
  const r0 = performance.now();
  for (let i = 0; i < rtts; i++) await cdp.send("Runtime.evaluate", { expression: "1", returnByValue: true });
  const rtt = (performance.now() - r0) / rtts;
  await browser.disconnect();
  await fetch(`${base}/v1/sessions/${body.id}`, { method: "PATCH", headers, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
  const t3 = performance.now();
  return {
    lifecycle: t3 - t0 - rtt * rtts,
    create: t1 - t0,
    connectPage: t2 - t1,
    rtt,
    cpuA: cpuMs(nodeA!.child.pid!) - cpu0,
    cpuB: cpuMs(nodeB!.child.pid!) - cpuB0,
  };
}

async function atLatency(rttMs: number, dbUrl: string, redisPort: number, masterKey: string, key: string): Promise<void> {
  const network = await createNetwork(2);
  const nodes: NodeProcess[] = [];
  const dataDirs: string[] = [];
  try {
    const db = new URL(dbUrl);
    const pgForward = await network.forward(db.hostname, Number(db.port || 5432), rttMs);
    const redisForward = await network.forward("127.0.0.1", redisPort, rttMs);
    db.hostname = network.gateway;
    db.port = String(pgForward.port);
    const ports = [0, 1].map(() => 18_000 + Math.floor(Math.random() * 20_000));
    const publicUrl = `http://${network.hosts[0]!.address}:${ports[0]}`; // the client's entry: node A
    for (const [i, region] of ["us-east1", "eu-west1"].entries()) {
      const host = network.hosts[i]!;
      const internal = await network.forward(host.address, ports[i]!, rttMs);
      dataDirs.push(`${os.tmpdir()}/vessel-bench-hosts-${ulid()}`);
      nodes.push(
        await spawnNode(
          {
            PORT: String(ports[i]),
            DATABASE_URL: db.toString(),
            REDIS_URL: `redis://${network.gateway}:${redisForward.port}`,
            VESSEL_MASTER_KEY: masterKey,
            VESSEL_NODE_ID: `hosts-${i}-${ulid()}`,
            VESSEL_DATA_DIR: dataDirs.at(-1)!,
            VESSEL_HOST: "0.0.0.0",
            VESSEL_PUBLIC_BASE_URL: publicUrl,
            VESSEL_INTERNAL_URL: `http://${network.gateway}:${internal.port}`,
            VESSEL_REGIONS: "us-east1,eu-west1",
            VESSEL_NODE_REGION: region,
            VESSEL_BROWSER_CAPACITY: "2",
            VESSEL_BROWSER_WARM: "1",
            LOG_LEVEL: "warn",
          },
          90_000,
          { netns: host.ns, address: host.address },
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 3_000)); // warm spares, heartbeats
    const samples: Record<"local" | "placed", Sample[]> = { local: [], placed: [] };
    // One of each first, not counted (connections, caches).
    await lifecycle(publicUrl, key, "us-east1", nodes);
    await lifecycle(publicUrl, key, "eu-west1", nodes);
    for (let i = 0; i < sessions; i++) {
      samples.local.push(await lifecycle(publicUrl, key, "us-east1", nodes));
      samples.placed.push(await lifecycle(publicUrl, key, "eu-west1", nodes));
    }
    const p50 = (kind: "local" | "placed", k: keyof Sample) =>
      pct(
        samples[kind].map((s) => s[k]),
        50,
      );
    const line = (kind: "local" | "placed") =>
      `lifecycle ${f(p50(kind, "lifecycle"), 0)} ms, create ${f(p50(kind, "create"), 0)} ms, connect + new page ${f(p50(kind, "connectPage"), 0)} ms, ` +
      `CDP round trip ${f(p50(kind, "rtt"), 2)} ms; CPU per session: node A ${f(p50(kind, "cpuA"), 0)} ms, node B ${f(p50(kind, "cpuB"), 0)} ms`;
    console.log(`${rttMs} ms between hosts: local  ${line("local")}`);
    console.log(`${rttMs} ms between hosts: placed ${line("placed")}`);
    console.log(
      `${rttMs} ms between hosts: placed ÷ local: lifecycle ${f(p50("placed", "lifecycle") / p50("local", "lifecycle"), 2)}× ` +
        `(+${f(p50("placed", "lifecycle") - p50("local", "lifecycle"), 0)} ms), CDP round trip +${f(p50("placed", "rtt") - p50("local", "rtt"), 2)} ms; ` +
        `relay CPU (node A, which places the session and relays all its CDP traffic, ${rtts} round trips included): ${f(p50("placed", "cpuA"), 0)} ms per session`,
    );
  } finally {
    for (const n of nodes) await n.stop(10_000);
    await network.destroy();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function scaleAcrossHosts(): Promise<void> {
  const unavailable = await netnsUnavailable();
  if (unavailable) {
    console.log(`scale across hosts: skipped (${unavailable})`);
    return;
  }
  const dbName = `vessel_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = Object.assign(new URL(testDatabaseUrl), { pathname: `/${dbName}` }).toString();
  const redis = await privateRedis();
  const masterKey = randomBytes(32).toString("base64");
  try {
    const db = await openDatabase({ url: dbUrl, dataDir: "memory://", migrate: "apply" });
    const config = loadConfig({ DATABASE_URL: dbUrl, VESSEL_MASTER_KEY: masterKey, VESSEL_DATA_DIR: `${os.tmpdir()}/vessel-bench-seed` }, "/nonexistent");
    const { deps, close } = await createDeps(config, db, createLogger("silent"), { startBrowsers: false });
    const ctx = internalContext(deps, "bench");
    const ws = await createWorkspace(ctx, { slug: `hosts-${Date.now().toString(36)}`, name: "Bench" });
    await db.prisma.workspace.update({ where: { id: ws.id }, data: { rateLimitPerMinute: 100_000 } });
    const { secret } = await createApiKey(ctx, { workspaceId: ws.id, label: "bench" });
    await close();
    await db.close();
    console.log(
      `scale across hosts: ${sessions} lifecycles of each kind, ${rtts} CDP round trips each; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    for (const rttMs of [0, 10]) await atLatency(rttMs, dbUrl, redis.port, masterKey, secret);
  } finally {
    await redis.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}
