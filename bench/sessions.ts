// Sessions against the physical limits (issue: bench/sessions). One run prints:
//  (a) the create→connect→newPage→goto→release lifecycle through Vessel with a warm pool (refilled
//      between iterations, and back-to-back), next to the same lifecycle done directly with
//      puppeteer-core on a reference Chromium launched on demand, on one already running and reused
//      (the limit the goal names: ≤ 1.3×), and on a fresh one launched and warmed up before the
//      clock (the limit for a fresh, isolated browser per session, which is what a session gets);
//  (b) Runtime.evaluate("1+1") round trip and pipelined throughput through the /cdp proxy (a channel
//      on the session browser's pipe, every message judged by the CDP policy) vs straight to a
//      reference Chromium's DevTools WebSocket, with the floors: the same reference driven over its
//      own pipe by the client process that launched it (Chromium's pipe transport, no hop); a bare
//      TCP relay to the reference's port in this process and in a process of its own (what any hop
//      costs here); and a bare WebSocket→pipe relay in this process to the session's own browser
//      (what any relay to a browser without a port costs: parse, route; no token, no policy);
//  (c) the Vessel process's memory growth per running session (Chromium's own memory is not in it);
//  (d) the CDP policy's cost: CDP round trip, pipelined rate and page loads with it on vs off, egress
//      listener on both sides (bench/sessions-policy.ts, also runnable alone as `npm run bench:policy`;
//      BENCH_POLICY=0 skips it).
//
// The references. Vessel's browsers have no DevTools port (--remote-debugging-pipe), so each reference
// is a Chromium launched by bench/reference-chromium.ts with the pool's own flags (chromiumArgs) plus
// `--remote-debugging-port=0`, and driven by puppeteer-core over its DevTools WebSocket. That is the
// fairer reference of the two possible: it is how users drive "an already-running Chromium", and
// Vessel's clients speak CDP over a WebSocket too, so both sides pay the same framing and the same
// client work, and the ratio is what Vessel adds (REST create and release, its hop, the pipe behind
// it). Driving the reference over its pipe instead (test/support/pipe-transport.ts) would need the
// client to be the browser's parent and would measure a transport no remote user has. The references
// run unjailed and without an egress listener (a plain Chromium); Vessel's browsers run as the pool
// runs them (the header line says whether they are jailed).
// The server runs in this process; every client (puppeteer, raw CDP, REST calls, the page server)
// runs in a forked child (bench/sessions-client.ts), so load never shares the server's event loop.
// Comparisons alternate which side goes first. Loopback only; every browser is closed at the end.
// Never part of the tests.
//
//   npm run bench:sessions
//   BENCH_LIFECYCLE_N=20 BENCH_B2B_N=20 BENCH_WARM=2 BENCH_WARM_MAX=8 BENCH_SETTLE_MS=300     (a)
//   BENCH_CDP_ROUNDS=12 BENCH_CDP_SEQ=500 BENCH_CDP_PIPE=2000                 (b)
//   BENCH_MEM_SESSIONS=5 BENCH_MEM_ROUNDS=5                                   (c)
//   BENCH_CHROMIUM=/usr/lib/chromium/chromium   (default: findChromium(), the headless shell)
//   BENCH_JAIL=off                              (VESSEL_BROWSER_JAIL for the apps; default: the default, auto)
//   BENCH_SCHEDULING=normal                     (VESSEL_BROWSER_SCHEDULING for the apps; default: the default, batch)
//   BENCH_RELAY=inline                          (VESSEL_CDP_RELAY for the apps; default: the default, process)
//   BENCH_LOGS=0|1                              sessions' logs off | on with no entry bound, so every CDP command is logged (default: the default, on)
import os from "node:os";
import { Writable } from "node:stream";
import { findChromium } from "../src/browser/launch/command.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import type { Phases } from "./sessions-client.ts";
import { benchCdp } from "./sessions-cdp.ts";
import { call, gcHow, memory, memoryPerSession, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { atMost, reportFigure } from "./figures.ts";
import { benchPolicy } from "./sessions-policy.ts";
import { f, jailOf, median, num, pad, pct, verdict } from "./support.ts";

const lifecycleN = num("BENCH_LIFECYCLE_N", 20);
const backToBackN = num("BENCH_B2B_N", 20);
const warm = num("BENCH_WARM", 2);
const settleMs = num("BENCH_SETTLE_MS", 300);
const cdpRounds = num("BENCH_CDP_ROUNDS", 12);
const cdpSeq = num("BENCH_CDP_SEQ", 500);
const cdpPipe = num("BENCH_CDP_PIPE", 2000);
const memSessions = Math.max(1, num("BENCH_MEM_SESSIONS", 5));
const memRounds = num("BENCH_MEM_ROUNDS", 5);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");

// ---------------------------------------------------------------------------------------------
// Statistics and printing

const mib = (bytes: number) => bytes / (1024 * 1024);
const kib = (bytes: number) => bytes / 1024;

// ---------------------------------------------------------------------------------------------
// The server: in this process, silent except for warnings, which are kept and shown at the end.

const serverWarnings: string[] = [];
const warnSink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split("\n")) if (line.trim()) serverWarnings.push(line);
    done();
  },
});

let t: TestApp | undefined;
let stopping: Promise<void> | undefined;
async function stopAll(): Promise<void> {
  stopping ??= (async () => {
    await stopClient();
    await t?.stop();
  })();
  return stopping;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: closing every browser…`);
    void stopAll().finally(() => process.exit(130));
  });
}

/** The pool is back to its warm spares and the machine has had a moment to settle. */
async function settle(): Promise<void> {
  const pool = t!.app.deps.browsers;
  const deadline = Date.now() + 60_000;
  while (pool.report().warm < warm) {
    if (Date.now() > deadline) throw new Error(`the pool did not refill to ${warm} spares within 60 s: ${JSON.stringify(pool.report())}`);
    await sleep(10);
  }
  await sleep(settleMs);
}

const started = performance.now();
const loadBefore = os.loadavg();
const print = (line = "") => console.log(line);

try {
  t = await startTestApp({
    env: {
      VESSEL_BROWSER_WARM: String(warm),
      // The product's adaptive pool (test support fixes it at VESSEL_BROWSER_WARM for the tests).
      VESSEL_WARM_POOL_MAX: process.env.BENCH_WARM_MAX ?? "8",
      VESSEL_BROWSER_CAPACITY: String(Math.max(8, memSessions + 3)),
      VESSEL_CHROMIUM_PATH: executablePath,
      ...(process.env.BENCH_JAIL ? { VESSEL_BROWSER_JAIL: process.env.BENCH_JAIL } : {}),
      ...(process.env.BENCH_SCHEDULING ? { VESSEL_BROWSER_SCHEDULING: process.env.BENCH_SCHEDULING } : {}),
      ...(process.env.BENCH_RELAY ? { VESSEL_CDP_RELAY: process.env.BENCH_RELAY } : {}),
      ...(process.env.BENCH_LOGS === "0"
        ? { VESSEL_LOGS: "false" }
        : process.env.BENCH_LOGS === "1"
          ? { VESSEL_LOGS: "true", VESSEL_LOGS_MAX_ENTRIES: "1000000" }
          : {}),
    },
    checkResponses: false,
    log: createLogger("warn", warnSink),
  });
  const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
  const api = { baseUrl: t.url, key: seeded.key };
  startClient();
  await call("init", { executablePath });

  print(
    `Vessel sessions bench — ${executablePath}, node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore.map((x) => x.toFixed(2)).join(" ")}`,
  );
  print(`server in-process (PGlite in memory, warm spares ${warm}); clients in a child process; loopback`);
  {
    // What a session's browser is, read from /proc rather than from the configuration.
    const probe = await call("createSession", api);
    const probeLease = t.app.deps.runtime.endpoint(probe.id);
    const pool = t.app.deps.browsers;
    print(
      `Vessel's browsers: CDP policy ${pool.enforcesCdpPolicy ? "on" : "OFF"}, egress listener ${probeLease?.egress ? "on" : "OFF"}, ${probeLease ? jailOf(probeLease.pid) : "no lease"}, ` +
        `session logs ${t.app.deps.config.logs.enabled ? `on (at most ${t.app.deps.config.logs.maxEntries} entries)` : "off"}`,
    );
    print(`references: Chromium with the same flags plus --remote-debugging-port=0, driven over its DevTools WebSocket; unjailed, no egress listener`);
    await call("releaseSession", { ...api, id: probe.id });
  }
  print();

  // ---------------------------------------------------------------------------------------------
  // (a) lifecycle

  type Variant = "vessel" | "onDemand" | "running" | "fresh";
  const runVariant = (v: Variant): Promise<Phases> =>
    v === "vessel"
      ? call("lifecycleVessel", api)
      : v === "onDemand"
        ? call("lifecycleOnDemand", {})
        : v === "fresh"
          ? call("lifecycleFresh", { settleMs })
          : call("lifecycleRunning", {});
  const variants: Variant[] = ["vessel", "onDemand", "running", "fresh"];
  const lifecycle: Record<Variant, Phases[]> = { vessel: [], onDemand: [], running: [], fresh: [] };
  // Warm-up: JIT, puppeteer, the first launch from disk; discarded.
  for (const v of variants) {
    await settle();
    await runVariant(v);
  }
  // Each iteration runs all four, each variant first in turn, each on a refilled pool and a quiet machine.
  for (let i = 0; i < lifecycleN; i++) {
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(i + j) % variants.length]!;
      await settle();
      lifecycle[v].push(await runVariant(v));
    }
  }
  // Back-to-back: no waiting for the pool, so refill launches compete with the sessions.
  await settle();
  const backToBack: Phases[] = [];
  const sparesAtStart: number[] = [];
  for (let i = 0; i < backToBackN; i++) {
    sparesAtStart.push(t.app.deps.browsers.report().warm);
    backToBack.push(await call("lifecycleVessel", api));
  }

  const phaseKeys = ["obtain", "connect", "newPage", "goto", "release"] as const;
  const row = (label: string, xs: Phases[]) => {
    const totals = xs.map((p) => p.total);
    const parts = phaseKeys.map((k) => `${k} ${f(median(xs.map((p) => p[k])))}`).join(", ");
    print(`  ${pad(label, 40)} n=${pad(String(xs.length), 3)} p50 ${pad(f(median(totals)), 7)} p95 ${pad(f(pct(totals, 95)), 7)} | p50 by step: ${parts}`);
  };
  print(`(a) lifecycle obtain→connect→newPage→goto→release, ms (puppeteer-core; obtain = POST /v1/sessions | launch a reference | – | –;`);
  print(`    release = disconnect + PATCH REQUEST_RELEASE | disconnect + close the browser | close the page + disconnect | disconnect)`);
  row("Vessel, warm pool refilled between", lifecycle.vessel);
  row("Vessel, back-to-back", backToBack);
  print(`  ${pad("", 40)} spares ready at start of back-to-back iterations: ${sparesAtStart.join(" ")}`);
  row("reference launched on demand", lifecycle.onDemand);
  row("reference already running (limit)", lifecycle.running);
  row("fresh reference launched, warmed before", lifecycle.fresh);
  const p50 = (xs: Phases[]) => median(xs.map((p) => p.total));
  const limit = p50(lifecycle.running);
  const ratioWarm = p50(lifecycle.vessel) / limit;
  const untilLoaded = (p: Phases) => p.total - p.release;
  print(`  ratio Vessel (warm) / already running, p50: ${f(ratioWarm, 2)}×  (goal ≤ 1.3×: ${verdict(ratioWarm <= 1.3)})`);
  const paired = lifecycle.vessel.map((p, i) => p.total / lifecycle.running[i]!.total);
  print(`  same, median of the ${paired.length} per-iteration ratios (each iteration ran all four variants): ${f(median(paired), 2)}×`);
  atMost(
    "Lifecycle",
    "create → connect → newPage → goto → release p50 ÷ already-running Chromium",
    ratioWarm,
    1.3,
    "×",
    `${f(p50(lifecycle.vessel))} vs ${f(limit)} ms; per-iteration median ${f(median(paired), 2)}×`,
  );
  // The running browser is reused, so it has a renderer, a connection to the page's server and
  // caches from earlier iterations, which a session's fresh, isolated browser cannot have. A fresh
  // browser launched and warmed up before the clock is the limit for a browser per session.
  const freshRatio = p50(lifecycle.vessel) / p50(lifecycle.fresh);
  const pairedFresh = lifecycle.vessel.map((p, i) => p.total / lifecycle.fresh[i]!.total);
  print(`  ratio Vessel (warm) / fresh browser launched before, p50: ${f(freshRatio, 2)}× (per-iteration median ${f(median(pairedFresh), 2)}×)`);
  print(
    `  ratio Vessel (back-to-back) / already running, p50: ${f(p50(backToBack) / limit, 2)}×; Vessel (warm) / launched on demand: ${f(p50(lifecycle.vessel) / p50(lifecycle.onDemand), 2)}×`,
  );
  print(
    `  without the release step (until the page has loaded), p50: Vessel warm ${f(median(lifecycle.vessel.map(untilLoaded)))}, ` +
      `on demand ${f(median(lifecycle.onDemand.map(untilLoaded)))}, already running ${f(median(lifecycle.running.map(untilLoaded)))} ms ` +
      `→ ratio Vessel/running ${f(median(lifecycle.vessel.map(untilLoaded)) / median(lifecycle.running.map(untilLoaded)), 2)}×`,
  );
  print();

  // (b) CDP round trip and pipelined throughput: one client on each path (sessions-cdp.ts)
  await benchCdp({ t, api, settle, print, rounds: cdpRounds, seq: cdpSeq, pipe: cdpPipe });

  // ---------------------------------------------------------------------------------------------
  // (c) memory of the Vessel process per running session

  const deltas = await memoryPerSession({ api, sessions: memSessions, rounds: memRounds, settle });
  const after = await memory();
  print(
    `(c) Vessel process memory per running session (${memSessions} sessions, each with a CDP client on /cdp and a page loaded), ${memRounds} rounds after a warm-up round`,
  );
  print(`    process.memoryUsage() after GC (${gcHow}); Chromium's own memory is in other processes and not counted`);
  for (const key of ["rss", "heapUsed", "external", "arrayBuffers"] as const) {
    const xs = deltas.map((d) => d[key]);
    print(`  ${pad(key, 13)} Δ per session: ${xs.map((x) => f(kib(x), 1)).join(", ")} KiB; median ${f(kib(median(xs)), 1)} KiB`);
  }
  print(`  (RSS moves in allocator-sized steps and can shrink; at this size heapUsed is the figure to read)`);
  reportFigure({
    group: "Per session",
    name: "node heap per running session (a /cdp client, a page loaded)",
    value: kib(median(deltas.map((d) => d.heapUsed))),
    unit: "KiB",
  });
  print(
    `  process now: rss ${f(mib(after.rss))} MiB, heapUsed ${f(mib(after.heapUsed))} MiB, external ${f(mib(after.external))} MiB (PGlite's WASM heap lives in this process too)`,
  );
  print();

  // (d) the browser policy's cost, on vs off, in two apps of its own (bench/sessions-policy.ts).
  if (num("BENCH_POLICY", 1) !== 0) {
    print("(d) the CDP policy on vs off");
    await benchPolicy();
    print();
  }

  const loadAfter = os.loadavg();
  print(`done in ${f((performance.now() - started) / 1000)} s; load average now ${loadAfter.map((x) => x.toFixed(2)).join(" ")}`);
  if (serverWarnings.length > 0) {
    print(`server warnings and errors (${serverWarnings.length}):`);
    for (const line of serverWarnings.slice(0, 20)) print(`  ${line.slice(0, 400)}`);
  } else {
    print("server logged no warnings or errors");
  }
} finally {
  await stopAll();
}
process.exit(0);
