// Scale-out on this machine: one node against two nodes behind a round-robin load balancer (no
// sticky sessions), with the same offered load. One run prints, for each set-up:
//  - session-create throughput: creates answered 201 per second, with BENCH_CONCURRENCY clients
//    each running create → connect → new page → goto → release back to back;
//  - lifecycle latency (that whole loop) and create latency, p50 / p95;
//  - control-plane CPU per created session: the node processes' own user+system CPU time (never
//    their browsers') over the run, divided by the sessions created; and the nodes' memory;
// then the two-node / one-node ratios. Nodes are real processes (`node --import tsx src/main.ts`)
// sharing a fresh PostgreSQL database and a private redis-server; browsers run on the same 2 cores,
// so two nodes compete for the CPU one node had alone. Loopback only; everything is stopped at the end.
// Never part of the tests.
//
//   npm run bench:scale
//   npm run bench:scale -- hosts   (across two hosts at 0 and 10 ms: a session placed on another node vs local; bench/scale-hosts.ts)
//   BENCH_SESSIONS=40 BENCH_CONCURRENCY=4 BENCH_CAPACITY=4 BENCH_WARM=1 (per node)
//   VESSEL_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test (a server where we may CREATE DATABASE)
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import puppeteer from "puppeteer-core";
import { ulid } from "ulid";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/client.ts";
import { createDeps, internalContext } from "../src/deps.ts";
import { createLogger } from "../src/logger.ts";
import { createApiKey } from "../src/services/api-keys/api-keys.ts";
import { createWorkspace } from "../src/services/workspaces/workspaces.ts";
import { startLoadBalancer } from "../test/support/cluster.ts";
import pg from "pg";
import { testDatabaseUrl } from "../test/support/services.ts";
import { privateRedis, spawnNode, type NodeProcess } from "../test/support/processes.ts";
import { startPageServer } from "../test/support/sessions.ts";
import { num, pct, f } from "./support.ts";

const sessions = num("BENCH_SESSIONS", 40);
const concurrency = Math.max(1, num("BENCH_CONCURRENCY", 4));
const capacity = Math.max(1, num("BENCH_CAPACITY", 4));
const warm = num("BENCH_WARM", 1);

async function withAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}
const databaseUrl = (name: string) => Object.assign(new URL(testDatabaseUrl), { pathname: `/${name}` }).toString();

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** user + system CPU of one process (not its children), in ms. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Result {
  label: string;
  created: number;
  failed: number;
  seconds: number;
  lifecycle: number[];
  create: number[];
  cpuPerSessionMs: number;
  rssMiB: number[];
  relayed: number;
}

async function run(label: string, nodeCount: number, dbUrl: string, redisUrl: string, masterKey: string, key: string, pageUrl: string): Promise<Result> {
  const lb = await startLoadBalancer();
  const nodes: NodeProcess[] = [];
  /** Each node's data folder (its audit journal and the like), removed at the end. */
  const dataDirs: string[] = [];
  try {
    for (let i = 0; i < nodeCount; i++) {
      const dataDir = `${os.tmpdir()}/vessel-bench-${ulid()}`;
      dataDirs.push(dataDir);
      nodes.push(
        await spawnNode({
          DATABASE_URL: dbUrl,
          REDIS_URL: redisUrl,
          VESSEL_MASTER_KEY: masterKey,
          VESSEL_PUBLIC_BASE_URL: lb.url,
          VESSEL_NODE_ID: `bench-${nodeCount}-${i}-${ulid()}`,
          VESSEL_DATA_DIR: dataDir,
          VESSEL_BROWSER_CAPACITY: String(capacity),
          VESSEL_BROWSER_WARM: String(warm),
          LOG_LEVEL: "warn",
        }),
      );
    }
    lb.setBackends(nodes.map((n) => n.url));
    await sleep(3_000); // warm spares launched, heartbeats recorded
    const base = lb.url;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const lifecycle: number[] = [];
    const create: number[] = [];
    let created = 0;
    let failed = 0;
    let next = 0;
    const cpuBefore = nodes.map((n) => cpuMs(n.child.pid!));
    const started = performance.now();
    const worker = async () => {
      while (next < sessions) {
        next++;
        const t0 = performance.now();
        const res = await fetch(`${base}/v1/sessions`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": randomUUID() },
          body: JSON.stringify({ region: "us-east1" }),
        });
        const body = (await res.json()) as { id: string; connect_url: string };
        create.push(performance.now() - t0);
        if (res.status !== 201) {
          failed++;
          await sleep(200);
          continue;
        }
        created++;
        const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url });
        const tab = await browser.newPage();
        await tab.goto(pageUrl);
        await browser.disconnect();
        await fetch(`${base}/v1/sessions/${body.id}`, { method: "PATCH", headers, body: JSON.stringify({ status: "REQUEST_RELEASE" }) });
        lifecycle.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    const cpu = nodes.reduce((sum, n, i) => sum + cpuMs(n.child.pid!) - cpuBefore[i]!, 0);
    const rss = nodes.map((n) => rssMiB(n.child.pid!));
    let relayed = 0;
    for (const n of nodes) {
      const text = await (await fetch(`${n.url}/metrics`)).text();
      for (const m of text.matchAll(/^vessel_forwarded_connections_total\{[^}]*\} (\d+)/gm)) relayed += Number(m[1]);
    }
    return { label, created, failed, seconds, lifecycle, create, cpuPerSessionMs: created > 0 ? cpu / created : NaN, rssMiB: rss, relayed };
  } finally {
    await lb.close();
    for (const n of nodes) await n.stop(10_000);
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dbName = `vessel_bench_${randomBytes(5).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${dbName}`));
  const dbUrl = databaseUrl(dbName);
  const redis = await privateRedis();
  const page = await startPageServer();
  const masterKey = randomBytes(32).toString("base64");
  try {
    // Migrate and seed through the ordinary code.
    const db = await openDatabase({ url: dbUrl, dataDir: "memory://", migrate: "apply" });
    const config = loadConfig(
      { DATABASE_URL: dbUrl, VESSEL_MASTER_KEY: masterKey, VESSEL_NODE_ID: "bench-seed", VESSEL_DATA_DIR: `${os.tmpdir()}/vessel-bench-seed` },
      "/nonexistent",
    );
    const { deps, close } = await createDeps(config, db, createLogger("silent"), { startBrowsers: false });
    const ctx = internalContext(deps, "bench");
    const ws = await createWorkspace(ctx, { slug: `bench-${Date.now().toString(36)}`, name: "Bench" });
    await db.prisma.workspace.update({ where: { id: ws.id }, data: { rateLimitPerMinute: 100_000 } });
    const { secret } = await createApiKey(ctx, { workspaceId: ws.id, label: "bench" });
    await close();
    await db.close();

    console.log(
      `scale: ${sessions} lifecycles (create → connect → new page → goto → release), ${concurrency} clients, per node capacity ${capacity} and ${warm} warm; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    const results: Result[] = [];
    for (const [label, count] of [
      ["one node", 1],
      ["two nodes", 2],
    ] as const) {
      const r = await run(label, count, dbUrl, redis.url, masterKey, secret, page.url);
      results.push(r);
      console.log(
        `${label.padEnd(10)} ${f(r.created / r.seconds, 2)} sessions/s (${r.created} created, ${r.failed} refused, ${f(r.seconds)} s); ` +
          `lifecycle p50 ${f(pct(r.lifecycle, 50), 0)} ms p95 ${f(pct(r.lifecycle, 95), 0)} ms; create p50 ${f(pct(r.create, 50), 0)} ms p95 ${f(pct(r.create, 95), 0)} ms; ` +
          `control-plane CPU ${f(r.cpuPerSessionMs)} ms per session; node RSS ${r.rssMiB.map((m) => `${f(m, 0)} MiB`).join(", ")}; relayed connections ${r.relayed}`,
      );
    }
    const [one, two] = results as [Result, Result];
    console.log(
      `two / one: throughput ${f(two.created / two.seconds / (one.created / one.seconds), 2)}×, lifecycle p50 ${f(pct(two.lifecycle, 50) / pct(one.lifecycle, 50), 2)}×, ` +
        `CPU per session ${f(two.cpuPerSessionMs / one.cpuPerSessionMs, 2)}× (both nodes and their browsers share the same ${os.cpus().length} cores)`,
    );
  } finally {
    await page.close();
    await redis.stop();
    await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
  }
}

if (process.argv.includes("hosts")) await (await import("./scale-hosts.ts")).scaleAcrossHosts();
else await main();
