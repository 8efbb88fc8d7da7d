import { fork } from "node:child_process";
import net from "node:net";
import os from "node:os";
import { Writable } from "node:stream";
import { findChromium } from "../src/browser/chromium-command.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import type { Phases } from "./sessions-client.ts";
import { call, gcHow, memory, memoryPerSession, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { benchPolicy } from "./sessions-policy.ts";
import { bareRelay, f, jailOf, median, num, pad, pct, pipeRelay, verdict } from "./support.ts";

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
      VESSEL_BROWSER_CAPACITY: String(Math.max(8, memSessions + 3)),
      VESSEL_CHROMIUM_PATH: executablePath,
      ...(process.env.BENCH_JAIL ? { VESSEL_BROWSER_JAIL: process.env.BENCH_JAIL } : {}),
    },
    checkResponses: false,
    log: createLogger("warn", warnSink),
  });
  const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
  const api = { baseUrl: t.url, key: seeded.key };
  startClient();
  await call("init", { executablePath });

  print(`Vessel sessions bench — ${executablePath}, node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore.map((x) => x.toFixed(2)).join(" ")}`);
  print(`server in-process (PGlite in memory, warm spares ${warm}); clients in a child process; loopback`);
  {
    // What a session's browser is, read from /proc rather than from the configuration.
    const probe = await call("createSession", api);
    const probeLease = t.app.deps.runtime.endpoint(probe.id);
    const pool = t.app.deps.browsers;
    print(`Vessel's browsers: CDP policy ${pool.enforcesCdpPolicy ? "on" : "OFF"}, egress listener ${probeLease?.egress ? "on" : "OFF"}, ${probeLease ? jailOf(probeLease.pid) : "no lease"}`);
    print(`references: Chromium with the same flags plus --remote-debugging-port=0, driven over its DevTools WebSocket; unjailed, no egress listener`);
    await call("releaseSession", { ...api, id: probe.id });
  }
  print();

  // ---------------------------------------------------------------------------------------------
  // (a) lifecycle

  type Variant = "vessel" | "onDemand" | "running" | "fresh";
  const runVariant = (v: Variant): Promise<Phases> =>
    v === "vessel" ? call("lifecycleVessel", api)
    : v === "onDemand" ? call("lifecycleOnDemand", {})
    : v === "fresh" ? call("lifecycleFresh", { settleMs })
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
  // The running browser is reused, so it has a renderer, a connection to the page's server and
  // caches from earlier iterations, which a session's fresh, isolated browser cannot have. A fresh
  // browser launched and warmed up before the clock is the limit for a browser per session.
  const freshRatio = p50(lifecycle.vessel) / p50(lifecycle.fresh);
  const pairedFresh = lifecycle.vessel.map((p, i) => p.total / lifecycle.fresh[i]!.total);
  print(`  ratio Vessel (warm) / fresh browser launched before, p50: ${f(freshRatio, 2)}× (per-iteration median ${f(median(pairedFresh), 2)}×)`);
  print(`  ratio Vessel (back-to-back) / already running, p50: ${f(p50(backToBack) / limit, 2)}×; Vessel (warm) / launched on demand: ${f(p50(lifecycle.vessel) / p50(lifecycle.onDemand), 2)}×`);
  print(
    `  without the release step (until the page has loaded), p50: Vessel warm ${f(median(lifecycle.vessel.map(untilLoaded)))}, ` +
      `on demand ${f(median(lifecycle.onDemand.map(untilLoaded)))}, already running ${f(median(lifecycle.running.map(untilLoaded)))} ms ` +
      `→ ratio Vessel/running ${f(median(lifecycle.vessel.map(untilLoaded)) / median(lifecycle.running.map(untilLoaded)), 2)}×`,
  );
  print();

  // ---------------------------------------------------------------------------------------------
  // (b) CDP round trip and pipelined throughput: one client on each path

  await settle();
  const cdpSession = await call("createSession", api);
  const lease = t.app.deps.runtime.endpoint(cdpSession.id);
  if (!lease) throw new Error(`session ${cdpSession.id} has no browser in the runtime`);
  // "Direct": a reference Chromium's own DevTools WebSocket (a session's browser has no port).
  const reference = await call("referenceLaunch", {});
  await settle(); // the spare launched to replace this session's browser is up before anything is timed
  const refPath = new URL(reference.wsEndpoint).pathname;
  // The floor for any hop in this process: a bare TCP relay to the reference's port, bytes piped both ways.
  const relay = bareRelay(reference.port);
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", () => resolve()));
  const relayUrl = `ws://127.0.0.1:${(relay.address() as net.AddressInfo).port}${refPath}`;
  // The same bare relay in a process of its own: what the hop costs when nothing else shares its event loop.
  const relayChild = fork(new URL("./relay-process.ts", import.meta.url), [String(reference.port)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const relayChildPort = await new Promise<number>((resolve) => relayChild.once("message", (m) => resolve(Number(m))));
  const soloUrl = `ws://127.0.0.1:${relayChildPort}${refPath}`;
  // The floor for a relay to a browser without a port: a bare WebSocket→pipe relay to the session's own browser.
  const toPipe = await pipeRelay(lease.cdp);
  await call("cdpOpen", { name: "direct", url: reference.wsEndpoint });
  await call("cdpOpen", { name: "ownPipe", url: "pipe:reference" });
  await call("cdpOpen", { name: "relay", url: relayUrl });
  await call("cdpOpen", { name: "solo", url: soloUrl });
  await call("cdpOpen", { name: "wsPipe", url: toPipe.url });
  await call("cdpOpen", { name: "proxy", url: cdpSession.connectUrl });
  const sides = ["direct", "ownPipe", "relay", "solo", "wsPipe", "proxy"] as const;
  type Side = (typeof sides)[number];
  const label: Record<Side, string> = {
    direct: "direct to a Chromium",
    ownPipe: "its pipe, no hop",
    relay: "bare TCP relay here",
    solo: "bare relay, own process",
    wsPipe: "bare ws→pipe relay here",
    proxy: "through Vessel /cdp",
  };
  const perSide = <T>(make: () => T) => Object.fromEntries(sides.map((side) => [side, make()])) as Record<Side, T>;
  const rtt = perSide<number[]>(() => []);
  const rate = perSide<number[]>(() => []);
  /** Per round, x median / direct median and x rate / direct rate: drift in the machine's load cancels within a round. */
  const rttRatios = perSide<number[]>(() => []);
  const rateRatios = perSide<number[]>(() => []);
  for (const side of sides) {
    await call("cdpSeq", { name: side, n: 300 });
    await call("cdpPipe", { name: side, n: cdpPipe });
  }
  for (let r = 0; r < cdpRounds; r++) {
    // Each side takes each place in the order equally often across rounds.
    const order: Side[] = [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)];
    if (r % 2 === 1) order.reverse();
    const roundRtt = perSide<number[]>(() => []);
    const roundRate = perSide<number>(() => 0);
    for (const side of order) roundRtt[side] = await call("cdpSeq", { name: side, n: cdpSeq });
    for (const side of order) roundRate[side] = cdpPipe / ((await call("cdpPipe", { name: side, n: cdpPipe })) / 1000);
    for (const side of sides) {
      rtt[side].push(...roundRtt[side]);
      rate[side].push(roundRate[side]);
      rttRatios[side].push(median(roundRtt[side]) / median(roundRtt.direct));
      rateRatios[side].push(roundRate[side] / roundRate.direct);
    }
  }
  await call("cdpClose", {}); // the clients, and the reference browser
  relay.close();
  relayChild.kill();
  await toPipe.close();
  await call("releaseSession", { ...api, id: cdpSession.id });

  const ms3 = (x: number) => f(x, 3);
  const vs = (a: Side, b: Side) => median(rtt[a]) / median(rtt[b]);
  print(`(b) CDP Runtime.evaluate("1+1") on a page session (flat), raw ws client; ${cdpRounds} alternating rounds of ${cdpSeq} sequential + ${cdpPipe} pipelined`);
  print(`    direct = a reference Chromium's own DevTools WebSocket (same flags as the pool's); "its pipe" = the same browser over its`);
  print(`    pipe, from the client process that launched it; the bare TCP relays lead to its port; the ws→pipe relay and /cdp lead`);
  print(`    to the session's browser over its pipe`);
  for (const side of sides) {
    print(`  ${pad(label[side], 24)} round trip n=${rtt[side].length}: p50 ${ms3(median(rtt[side]))} p95 ${ms3(pct(rtt[side], 95))} p99 ${ms3(pct(rtt[side], 99))} ms` +
      (side === "direct" ? "" : `; ×direct p50 ${f(vs(side, "direct"), 2)} (per-round median ${f(median(rttRatios[side]), 2)})`));
  }
  const rttRatio = vs("proxy", "direct");
  print(`  ratio proxy/direct round trip: p50 ${f(rttRatio, 2)}× (goal ≤ 1.2×: ${verdict(rttRatio <= 1.2)}), p99 ${f(pct(rtt.proxy, 99) / pct(rtt.direct, 99), 2)}×; added p50 ${f((median(rtt.proxy) - median(rtt.direct)) * 1000, 0)} µs`);
  print(`  per-round proxy/direct p50 ratios: ${rttRatios.proxy.map((x) => f(x, 2)).join(", ")}; median ${f(median(rttRatios.proxy), 2)}×`);
  print(`  proxy over its floors, p50: /cdp ÷ bare ws→pipe relay ${f(vs("proxy", "wsPipe"), 2)}× (+${f((median(rtt.proxy) - median(rtt.wsPipe)) * 1000, 0)} µs: shape checks, policy, tracking);` +
    ` ÷ bare TCP relay here ${f(vs("proxy", "relay"), 2)}×; a pipe instead of a WebSocket at Chromium, no hop: ${f(vs("ownPipe", "direct"), 2)}×`);
  for (const side of sides) {
    print(`  ${pad(label[side], 24)} pipelined msgs/s per round: ${rate[side].map((x) => Math.round(x)).join(", ")}; median ${Math.round(median(rate[side]))}` +
      (side === "direct" ? "" : `; ${f((median(rate[side]) / median(rate.direct)) * 100, 0)}% of direct (per-round median ${f(median(rateRatios[side]) * 100, 0)}%)`));
  }
  const rateRatio = median(rate.proxy) / median(rate.direct);
  print(`  ratio proxy/direct pipelined throughput: ${f(rateRatio * 100, 1)}% (goal ≥ 90%: ${verdict(rateRatio >= 0.9)})`);
  print(`  per-round proxy/direct ratios: ${rateRatios.proxy.map((x) => f(x * 100, 0) + "%").join(", ")}; median ${f(median(rateRatios.proxy) * 100, 1)}%`);
  print(`  proxy ÷ bare ws→pipe relay, pipelined: ${f((median(rate.proxy) / median(rate.wsPipe)) * 100, 1)}%`);
  print();

  // ---------------------------------------------------------------------------------------------
  // (c) memory of the Vessel process per running session

  const deltas = await memoryPerSession({ api, sessions: memSessions, rounds: memRounds, settle });
  const after = await memory();
  print(`(c) Vessel process memory per running session (${memSessions} sessions, each with a CDP client on /cdp and a page loaded), ${memRounds} rounds after a warm-up round`);
  print(`    process.memoryUsage() after GC (${gcHow}); Chromium's own memory is in other processes and not counted`);
  for (const key of ["rss", "heapUsed", "external", "arrayBuffers"] as const) {
    const xs = deltas.map((d) => d[key]);
    print(`  ${pad(key, 13)} Δ per session: ${xs.map((x) => f(kib(x), 1)).join(", ")} KiB; median ${f(kib(median(xs)), 1)} KiB`);
  }
  print(`  (RSS moves in allocator-sized steps and can shrink; at this size heapUsed is the figure to read)`);
  print(`  process now: rss ${f(mib(after.rss))} MiB, heapUsed ${f(mib(after.heapUsed))} MiB, external ${f(mib(after.external))} MiB (PGlite's WASM heap lives in this process too)`);
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
