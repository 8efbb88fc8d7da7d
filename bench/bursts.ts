// Bursts of session starts against the warm pool (issue 24, goal 3), with the adaptive pool
// (VESSEL_WARM_POOL_MAX, browser/pool/demand.ts) and, for comparison, a fixed one of VESSEL_BROWSER_WARM
// spares, each in an app of its own. One run prints, per pool:
//   idle create        POST /v1/sessions with the pool settled (a spare ready), p50
//   burst of 8         8 creates sent together, p50 over every burst after the first (the first
//                      is the pool learning the demand; shown on its own)
//   steady stream      creates at half the node's launch throughput (one every 2 × a cold launch,
//                      measured first), each session held 1 s, p50
//   back-to-back       create → connect → newPage → goto → release one after another, p50, next to
//                      the same lifecycle on an already-running Chromium (the reused limit)
//   spares' memory     the proportional set size (PSS) of every spare's processes once the burst's
//                      spares are up, and what the spares beyond VESSEL_BROWSER_WARM cost
// Goals: burst and steady p50 ≤ 2× idle; back-to-back ≤ 1.3× the reused limit. Loopback only;
// every client (creates, releases, lifecycles) runs in a child process (bench/sessions-client.ts). Never part of the tests.
//
//   npx tsx bench/bursts.ts
//   BENCH_BURSTS=4 BENCH_STEADY_N=12 BENCH_B2B_N=10 BENCH_IDLE_N=6 BENCH_WARM_MAX=8 BENCH_FIXED=1
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchChromium } from "../src/browser/launch/chromium.ts";
import { findChromium } from "../src/browser/launch/command.ts";
import { isLive, readPidFile, readProcStat } from "../src/browser/launch/processes.ts";
import { browserDataRoot } from "../src/deps-browsers.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import { atMost, reportFigure } from "./figures.ts";
import { call, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { f, median, num } from "./support.ts";

const bursts = Math.max(2, num("BENCH_BURSTS", 4));
const steadyN = num("BENCH_STEADY_N", 12);
const b2bN = num("BENCH_B2B_N", 10);
const idleN = num("BENCH_IDLE_N", 6);
const warmMax = num("BENCH_WARM_MAX", 8);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const BURST = 8;

/** A cold launch of the pool's own kind (to the first answer on its pipe), the node's launch time. */
async function coldLaunchMs(): Promise<number> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "vb-"));
  const xs: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const b = await launchChromium({ executablePath: executablePath!, dataRoot: root, id: `l${i}`, log: createLogger("silent") });
      xs.push(performance.now() - t);
      await b.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return median(xs);
}

/** PSS (KiB) of every browser the pool has in `dataRoot` (pid files): each one's process group and the processes that left it. */
function pssKiB(dataRoot: string): number {
  const leaders = new Set<number>();
  for (const dir of fs.readdirSync(dataRoot)) {
    const pid = readPidFile(path.join(dataRoot, dir))?.pid;
    if (pid) leaders.add(pid);
  }
  const all = fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map((e) => readProcStat(Number(e)))
    .filter(isLive);
  const tree = new Set(all.filter((s) => leaders.has(s.pgrp)).map((s) => s.pid));
  for (let grown = true; grown; ) {
    grown = false;
    for (const s of all) if (!tree.has(s.pid) && tree.has(s.ppid)) tree.add(s.pid), (grown = true);
  }
  let total = 0;
  for (const pid of tree) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      if (m) total += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface PoolFigures {
  idle: number[];
  firstBurst: number[];
  burst: number[];
  steady: number[];
  b2b: number[];
  running: number[];
  spares: number;
  sparesPssMiB: number;
}

async function runPool(max: number, launchMs: number): Promise<PoolFigures> {
  const t: TestApp = await startTestApp({
    env: { VESSEL_BROWSER_WARM: "1", VESSEL_WARM_POOL_MAX: String(max), VESSEL_BROWSER_CAPACITY: "12", VESSEL_CHROMIUM_PATH: executablePath! },
    checkResponses: false,
  });
  try {
    const ws = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
    const api = { baseUrl: t.url, key: ws.key };
    const pool = t.app.deps.browsers;
    // Sent and timed in the client process, as remote clients would: the server's event loop serves only the server.
    const createMany = (n: number) => call("createTimed", { ...api, n });
    const create = async () => (await createMany(1))[0]!;
    const release = (id: string) => call("releaseSession", { ...api, id });
    /** Until `want` spares are ready (at most 60 s), then until they stop changing for 1.5 s. */
    const settle = async (want = 1) => {
      for (let i = 0; i < 600 && pool.report().warm < want; i++) await sleep(100);
      let last = -1;
      for (let stable = 0, i = 0; stable < 15 && i < 300; i++) {
        const now = pool.report().warm;
        stable = now === last ? stable + 1 : 0;
        last = now;
        await sleep(100);
      }
    };
    // What the adaptive pool should reach once it has seen a burst.
    const raised = max > 1 ? Math.min(BURST, max) : 1;
    const out: PoolFigures = { idle: [], firstBurst: [], burst: [], steady: [], b2b: [], running: [], spares: 0, sparesPssMiB: 0 };
    for (let i = 0; i < idleN; i++) {
      await settle();
      const s = await create();
      out.idle.push(s.ms);
      await release(s.id);
    }
    for (let b = 0; b < bursts; b++) {
      await settle(b === 0 ? 1 : raised);
      if (b === 1) {
        // The spares the first burst asked for, up now: what they cost.
        out.spares = pool.report().warm;
        out.sparesPssMiB = pssKiB(browserDataRoot(t.app.deps.config)) / 1024;
      }
      const made = await createMany(BURST);
      (b === 0 ? out.firstBurst : out.burst).push(...made.map((s) => s.ms));
      await Promise.all(made.map((s) => release(s.id)));
    }
    await settle();
    const held: Promise<unknown>[] = [];
    for (let i = 0; i < steadyN; i++) {
      const next = sleep(2 * launchMs);
      const s = await create();
      out.steady.push(s.ms);
      held.push(sleep(1_000).then(() => release(s.id)));
      await next;
    }
    await Promise.all(held);
    await settle();
    for (let i = 0; i < b2bN; i++) {
      // Alternating with the reused limit, which needs no pool.
      out.b2b.push((await call("lifecycleVessel", api)).total);
      out.running.push((await call("lifecycleRunning", {})).total);
    }
    return out;
  } finally {
    await t.stop();
  }
}

async function main() {
  const launchMs = await coldLaunchMs();
  startClient();
  await call("init", { executablePath: executablePath! });
  console.log(
    `bursts bench — ${executablePath}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}; cold launch ${f(launchMs)} ms → steady stream one create every ${f(2 * launchMs)} ms`,
  );
  const pools: Array<[string, number]> = [["adaptive", warmMax]];
  if (num("BENCH_FIXED", 1) !== 0) pools.push(["fixed (1 spare)", 0]);
  const results = new Map<string, PoolFigures>();
  for (const [name, max] of pools) results.set(name, await runPool(max, launchMs));
  for (const [name, r] of results) {
    const idle = median(r.idle);
    console.log(`\n${name} pool (VESSEL_BROWSER_WARM=1, VESSEL_WARM_POOL_MAX=${name === "adaptive" ? warmMax : 0})`);
    console.log(`  idle create p50             ${f(idle)} ms (n=${r.idle.length})`);
    console.log(`  burst of ${BURST}, first        p50 ${f(median(r.firstBurst))} ms`);
    console.log(`  burst of ${BURST}, later ones   p50 ${f(median(r.burst))} ms (${f(median(r.burst) / idle, 2)}× idle; n=${r.burst.length})`);
    console.log(`  steady stream               p50 ${f(median(r.steady))} ms (${f(median(r.steady) / idle, 2)}× idle; n=${r.steady.length})`);
    console.log(
      `  back-to-back lifecycle      p50 ${f(median(r.b2b))} ms vs already running ${f(median(r.running))} ms (${f(median(r.b2b) / median(r.running), 2)}×)`,
    );
    console.log(
      `  spares after the first burst: ${r.spares}, their processes' PSS ${f(r.sparesPssMiB)} MiB (${f(r.sparesPssMiB / Math.max(1, r.spares))} MiB each)`,
    );
  }
  const a = results.get("adaptive")!;
  const fixed = results.get("fixed (1 spare)");
  const idle = median(a.idle);
  const vs = (xs: number[], ys?: number[]) =>
    `${f(median(xs))} vs ${f(ys ? median(ys) : idle)} ms` +
    (fixed
      ? `; fixed pool ${f(median(xs === a.burst ? fixed.burst : xs === a.steady ? fixed.steady : fixed.b2b) / (xs === a.b2b ? median(fixed.running) : median(fixed.idle)), 2)}×`
      : "");
  const group = "Bursts";
  atMost(group, `burst of ${BURST} creates p50 ÷ idle create`, median(a.burst) / idle, 2, "×", vs(a.burst));
  atMost(group, "steady stream at half the launch rate, create p50 ÷ idle create", median(a.steady) / idle, 2, "×", vs(a.steady));
  atMost(group, "lifecycle back-to-back p50 ÷ already-running Chromium", median(a.b2b) / median(a.running), 1.3, "×", vs(a.b2b, a.running));
  const perSpare = a.sparesPssMiB / Math.max(1, a.spares);
  reportFigure({
    group,
    name: "memory of the spares beyond VESSEL_BROWSER_WARM (PSS)",
    value: perSpare * Math.max(0, a.spares - 1),
    unit: "MiB",
    detail: `${a.spares} spares, ${f(perSpare)} MiB each`,
  });
}

main().then(
  async () => {
    await stopClient();
    process.exit(0);
  },
  async (err: unknown) => {
    console.error(err);
    await stopClient();
    process.exit(1);
  },
);
