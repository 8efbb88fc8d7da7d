// What the browser policy costs a session (issue 11: "bench/sessions shows the CDP round trip and
// page-load time with the policy on vs off; goal: within 5%"). Two Vessel apps run side by side in
// this process, one with the policy (every Chromium's traffic through its own egress listener, and
// the CDP method filter on /cdp) and one without (`browserPolicy: false`), each with one running
// session. Measured through each session's connect_url:
//  (a) Runtime.evaluate("1+1") round trip (sequential) and pipelined throughput;
//  (b) page-load time of a loopback fixture site (an HTML page with a stylesheet, two scripts and
//      three images, ~400 KB), Page.navigate → Page.loadEventFired, the cache disabled so every load
//      goes through the network: over plain HTTP (each request forwarded by the egress listener) and,
//      when openssl is installed, HTTPS (a CONNECT tunnel; the certificate is self-signed and both
//      browsers are told to ignore certificate errors).
// The servers run in this process; every client (the raw CDP clients, REST calls and the fixture
// site) runs in a forked child (bench/sessions-policy-client.ts), so load never shares the servers'
// event loop. Rounds alternate which side goes first (ABAB / BABA); ratios are policy on / off, per
// round and overall. Loopback only; both apps and their browsers are closed at the end. Never part of
// the tests.
//
//   npx tsx bench/sessions-policy.ts
//   BENCH_POLICY_ROUNDS=8 BENCH_POLICY_SEQ=500 BENCH_POLICY_PIPE=2000 BENCH_POLICY_LOADS=10
//   BENCH_POLICY_SCHEMES=http,https   BENCH_POLICY_HOST=127.0.0.1 (the fixture site's address)
//   BENCH_CHROMIUM=/usr/lib/chromium/chromium   (default: findChromium(), the headless shell)
//
// Also importable: `benchPolicy()` prints the same section (bench/sessions.ts may call it).
import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";
import { PassThrough, type Transform } from "node:stream";
import { CdpClientFilter } from "../src/browser/cdp-filter.ts";
import { findChromium } from "../src/browser/chromium.ts";
import { EgressPolicy, parseAllowlist } from "../src/browser/egress-policy.ts";
import { openEgressListener } from "../src/browser/egress-proxy.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import type { PolicyOpName, PolicyOps, PolicyReplyMsg, PolicyRequestMsg, Scheme } from "./sessions-policy-client.ts";
import { f, median, num, pad, pct, verdict } from "./support.ts";

export interface PolicyBenchOptions {
  rounds?: number;
  /** Sequential round trips per side per round. */
  seq?: number;
  /** Pipelined messages per side per round. */
  pipe?: number;
  /** Page-load pairs (one load each side) per scheme per round. */
  loads?: number;
  schemes?: Scheme[];
  /** The fixture site's address (allowlisted for the policy-on app). */
  host?: string;
  executablePath?: string;
  print?: (line?: string) => void;
}

export interface PolicyBenchResult {
  rtt: { on: number[]; off: number[]; ratioP50: number; roundRatios: number[] };
  pipelined: { on: number[]; off: number[]; ratio: number; roundRatios: number[] };
  loads: Partial<Record<Scheme, { on: number[]; off: number[]; ratioP50: number; pairRatios: number[] }>>;
  goalMet: boolean;
}

const GOAL = 1.05;
const PIPE_PAIRS = 3;



type Side = "on" | "off";
const SIDES: Side[] = ["on", "off"];
const label: Record<Side, string> = { on: "policy on ", off: "policy off" };

/** Server CPU per client message: the CDP method filter vs a plain stream, µs (best of 5 runs). */
async function filterCost(): Promise<{ filter: number; plain: number }> {
  const frame = (text: string) => {
    const payload = Buffer.from(text);
    const key = randomBytes(4);
    const n = payload.length;
    const header = n < 126 ? Buffer.from([0x81, 0x80 | n]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 255]);
    const masked = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) masked[i] = payload[i]! ^ key[i & 3]!;
    return Buffer.concat([header, key, masked]);
  };
  const frames = Array.from({ length: 2000 }, (_, id) =>
    frame(JSON.stringify({ id, method: "Runtime.evaluate", params: { expression: "1+1" }, sessionId: randomBytes(16).toString("hex").toUpperCase() })));
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const run = async (make: () => Transform) => {
    let best = Infinity;
    for (let rep = 0; rep < 6; rep++) {
      const stream = make();
      let bytes = 0;
      stream.on("data", (d: Buffer) => (bytes += d.length));
      await tick(); // flowing
      const t = performance.now();
      for (let k = 0; k < 10; k++) for (const fr of frames) stream.write(fr);
      await tick();
      const us = ((performance.now() - t) * 1000) / (10 * frames.length);
      if (bytes !== 10 * frames.reduce((n, fr) => n + fr.length, 0)) throw new Error("the stream did not pass every frame unchanged");
      if (rep > 0) best = Math.min(best, us); // the first is the warm-up
    }
    return best;
  };
  return {
    filter: await run(() => new CdpClientFilter({ downloads: os.tmpdir(), onRefused: () => { throw new Error("refused a harmless frame"); } })),
    plain: await run(() => new PassThrough()),
  };
}

export async function benchPolicy(options: PolicyBenchOptions = {}): Promise<PolicyBenchResult> {
  const rounds = Math.max(1, options.rounds ?? num("BENCH_POLICY_ROUNDS", 8));
  const seq = Math.max(1, options.seq ?? num("BENCH_POLICY_SEQ", 500));
  const pipe = Math.max(1, options.pipe ?? num("BENCH_POLICY_PIPE", 2000));
  const loads = Math.max(1, options.loads ?? num("BENCH_POLICY_LOADS", 10));
  const schemes = options.schemes ?? ((process.env.BENCH_POLICY_SCHEMES ?? "http,https").split(",").map((s) => s.trim()).filter(Boolean) as Scheme[]);
  for (const s of schemes) if (s !== "http" && s !== "https") throw new Error(`BENCH_POLICY_SCHEMES: unknown scheme ${s}`);
  const host = options.host ?? process.env.BENCH_POLICY_HOST ?? "127.0.0.1";
  const executablePath = options.executablePath ?? findChromium(process.env.BENCH_CHROMIUM);
  if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
  const print = options.print ?? ((line = "") => console.log(line));

  // The client process -------------------------------------------------------------------------
  let child: ChildProcess | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; op: string }>();
  const call = <K extends PolicyOpName>(op: K, args: PolicyOps[K]["args"]): Promise<PolicyOps[K]["result"]> => {
    const c = child;
    if (!c?.connected) return Promise.reject(new Error(`the client process is not running (${op})`));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, op });
      c.send({ id, op, args } satisfies PolicyRequestMsg);
    });
  };

  // The servers: silent except for warnings, kept and shown at the end ------------------------
  const warnings: string[] = [];
  /** Start-up warnings of a test app (a generated master key; Chromium without its sandbox as root). */
  const expectedWarnings = ["VESSEL_MASTER_KEY is not set", "Chromium runs WITHOUT its sandbox"];
  let expected = 0;
  const sink = (side: Side) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split("\n")) {
          if (!line.trim()) continue;
          if (expectedWarnings.some((w) => line.includes(w)) || (side === "off" && line.includes("the browser policy is off"))) expected++;
          else warnings.push(`[${side}] ${line}`);
        }
        done();
      },
    });
  const apps: Partial<Record<Side, TestApp>> = {};
  const sessions: Partial<Record<Side, { id: string; api: { baseUrl: string; key: string } }>> = {};
  const hostInAllow = host.includes(":") ? `${host}/128` : /^[\d.]+$/.test(host) ? `${host}/32` : host;

  const stopAll = async () => {
    if (child?.connected) {
      await call("cdpClose", {}).catch(() => {});
      for (const side of SIDES) {
        const s = sessions[side];
        if (s) await call("releaseSession", { ...s.api, id: s.id }).catch(() => {});
      }
      await call("shutdown", {}).catch(() => {});
    }
    child?.disconnect?.();
    await Promise.allSettled(SIDES.map((side) => apps[side]?.stop()));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: closing both apps and their browsers…`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  const started = performance.now();
  const loadBefore = os.loadavg();
  try {
    for (const side of SIDES) {
      apps[side] = await startTestApp({
        env: {
          VESSEL_BROWSER_WARM: "0", // no idle spare browsers beside the two under test
          VESSEL_CHROMIUM_PATH: executablePath,
          VESSEL_EGRESS_ALLOW: hostInAllow,
        },
        checkResponses: false,
        browserPolicy: side === "on",
        log: createLogger("warn", sink(side)),
      });
      if (apps[side]!.app.deps.browsers.enforcesPolicy !== (side === "on")) throw new Error(`the ${side} app's policy is not ${side}`);
    }
    child = fork(new URL("./sessions-policy-client.ts", import.meta.url), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.on("message", (msg: PolicyReplyMsg) => {
      const waiter = pending.get(msg.id);
      if (!waiter) return;
      pending.delete(msg.id);
      if (msg.ok) waiter.resolve(msg.result);
      else waiter.reject(new Error(`client ${waiter.op} failed: ${msg.error}`));
    });
    child.on("exit", (code, signal) => {
      for (const w of pending.values()) w.reject(new Error(`the client process exited (code ${code}, signal ${signal}) during ${w.op}`));
      pending.clear();
    });
    const site = await call("init", { host });
    const activeSchemes = schemes.filter((s) => site.urls[s]);

    for (const side of SIDES) {
      const t = apps[side]!;
      const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
      const api = { baseUrl: t.url, key: seeded.key };
      const s = await call("createSession", api);
      sessions[side] = { id: s.id, api };
      await call("cdpOpen", { name: side, url: s.connectUrl });
    }

    print(`Vessel browser policy on vs off — ${executablePath}, node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore.map((x) => x.toFixed(2)).join(" ")}`);
    print(`two apps in-process (PGlite in memory, no spares), one running session each; clients in a child process; loopback`);
    print(`policy on = egress listener per browser (allowlist ${hostInAllow}) + CDP method filter on /cdp; off = browserPolicy: false`);
    print(`fixture site: ${site.resources} resources, ${f(site.bytes / 1024, 0)} KiB, cache disabled; ${activeSchemes.map((s) => site.urls[s]).join(", ")}${site.httpsSkipped && schemes.includes("https") ? ` (${site.httpsSkipped})` : ""}`);
    print();

    // Warm-up, discarded: JIT on both sides, the fixture's first connections, Chromium's first loads.
    for (const side of SIDES) {
      await call("cdpSeq", { name: side, n: 300 });
      await call("cdpPipe", { name: side, n: pipe });
      for (const scheme of activeSchemes) await call("pageLoads", { name: side, scheme, n: 3 });
    }

    const rtt: Record<Side, number[]> = { on: [], off: [] };
    const rate: Record<Side, number[]> = { on: [], off: [] };
    const rttRatios: number[] = [];
    const rateRatios: number[] = [];
    const load = Object.fromEntries(activeSchemes.map((s) => [s, { on: [] as number[], off: [] as number[], ratios: [] as number[] }])) as Record<Scheme, { on: number[]; off: number[]; ratios: number[] }>;

    for (let r = 0; r < rounds; r++) {
      const order: Side[] = r % 2 === 0 ? ["on", "off"] : ["off", "on"];
      const roundRtt: Record<Side, number[]> = { on: [], off: [] };
      const roundRate: Record<Side, number> = { on: 0, off: 0 };
      for (const side of order) roundRtt[side] = await call("cdpSeq", { name: side, n: seq });
      for (const side of SIDES) rtt[side].push(...roundRtt[side]);
      rttRatios.push(median(roundRtt.on) / median(roundRtt.off));
      // Pipelined bursts in pairs too (a burst is a few hundred ms): three pairs a round, order alternating.
      for (let k = 0; k < PIPE_PAIRS; k++) {
        for (const side of k % 2 === 0 ? order : [...order].reverse()) roundRate[side] = pipe / ((await call("cdpPipe", { name: side, n: pipe })) / 1000);
        for (const side of SIDES) rate[side].push(roundRate[side]);
        rateRatios.push(roundRate.on / roundRate.off);
      }
      // Page loads in pairs, one each side, the pair's order alternating too: load drifts in seconds
      // on a shared machine, and a pair's two loads are a few tens of milliseconds apart.
      for (const scheme of activeSchemes) {
        for (let i = 0; i < loads; i++) {
          const pair: Record<Side, number> = { on: 0, off: 0 };
          for (const side of (i + r) % 2 === 0 ? order : [...order].reverse()) {
            pair[side] = (await call("pageLoads", { name: side, scheme, n: 1 }))[0]!;
          }
          for (const side of SIDES) load[scheme][side].push(pair[side]);
          load[scheme].ratios.push(pair.on / pair.off);
        }
      }
    }

    const ms3 = (x: number) => f(x, 3);
    const list = (xs: number[], digits = 2) => xs.map((x) => f(x, digits)).join(", ");
    print(`(a) CDP Runtime.evaluate("1+1") through /cdp on a page session (flat), raw ws client; ${rounds} alternating rounds of ${seq} sequential + ${PIPE_PAIRS}× ${pipe} pipelined`);
    for (const side of SIDES) {
      print(`  ${label[side]}  round trip n=${rtt[side].length}: p50 ${ms3(median(rtt[side]))} p95 ${ms3(pct(rtt[side], 95))} p99 ${ms3(pct(rtt[side], 99))} ms`);
    }
    const rttRatio = median(rtt.on) / median(rtt.off);
    print(`  ratio on/off round trip: p50 ${f(rttRatio, 3)}× (goal ≤ ${GOAL}×: ${verdict(rttRatio <= GOAL)}), p99 ${f(pct(rtt.on, 99) / pct(rtt.off, 99), 2)}×; added p50 ${f((median(rtt.on) - median(rtt.off)) * 1000, 0)} µs`);
    print(`  per-round p50 ratios: ${list(rttRatios)}; median ${f(median(rttRatios), 3)}×`);
    for (const side of SIDES) {
      print(`  ${label[side]}  pipelined msgs/s, ${rate[side].length} bursts: p50 ${Math.round(median(rate[side]))}, quartiles ${Math.round(pct(rate[side], 25))}–${Math.round(pct(rate[side], 75))}`);
    }
    const rateRatio = median(rate.on) / median(rate.off);
    print(`  ratio on/off pipelined throughput: ${f(rateRatio * 100, 1)}% (goal ≥ ${f(100 / GOAL, 1)}%: ${verdict(rateRatio * GOAL >= 1)})`);
    print(`  per-pair ratios on/off: median ${f(median(rateRatios) * 100, 1)}%, quartiles ${f(pct(rateRatios, 25) * 100, 0)}–${f(pct(rateRatios, 75) * 100, 0)}%`);
    print();

    print(`(b) page load (Page.navigate → Page.loadEventFired, cache disabled), ms; ${rounds} rounds of ${loads} pairs (one load each side, order alternating)`);
    const loadResults: PolicyBenchResult["loads"] = {};
    let loadsMet = true;
    for (const scheme of activeSchemes) {
      const l = load[scheme];
      const via = scheme === "http" ? "plain HTTP: each request forwarded by the egress listener" : "HTTPS: CONNECT tunnels through the egress listener";
      print(`  ${scheme} (${via})`);
      for (const side of SIDES) {
        print(`    ${label[side]}  n=${l[side].length}: p50 ${f(median(l[side]), 2)} p95 ${f(pct(l[side], 95), 2)} min ${f(Math.min(...l[side]), 2)} ms`);
      }
      const ratio = median(l.on) / median(l.off);
      loadsMet &&= ratio <= GOAL;
      print(`    ratio on/off p50 ${f(ratio, 3)}× (goal ≤ ${GOAL}×: ${verdict(ratio <= GOAL)}), p95 ${f(pct(l.on, 95) / pct(l.off, 95), 2)}×; added p50 ${f(median(l.on) - median(l.off), 2)} ms`);
      print(`    per-pair ratios on/off: median ${f(median(l.ratios), 3)}×, quartiles ${f(pct(l.ratios, 25), 2)}–${f(pct(l.ratios, 75), 2)}×`);
      loadResults[scheme] = { on: l.on, off: l.off, ratioP50: ratio, pairRatios: l.ratios };
    }
    const goalMet = rttRatio <= GOAL && rateRatio * GOAL >= 1 && loadsMet;
    print(`  overall (round trip p50, pipelined rate, page-load p50 within ${f((GOAL - 1) * 100, 0)}%): ${verdict(goalMet)}`);
    print();

    // (c) The two parts on their own, without a browser, so the machine's noise matters less.
    print(`(c) the parts on their own (no browser)`);
    const filterUs = await filterCost();
    print(`  CDP method filter, server CPU per client message (2000 masked Runtime.evaluate frames, best of 5): ` +
      `${f(filterUs.filter, 2)} µs vs ${f(filterUs.plain, 2)} µs through a plain stream (+${f(filterUs.filter - filterUs.plain, 2)} µs; ` +
      `${f(((filterUs.filter - filterUs.plain) / 1000 / median(rtt.off)) * 100, 2)}% of a round trip)`);
    if (site.urls.http) {
      const listener = await openEgressListener({ policy: new EgressPolicy(parseAllowlist([hostInAllow])), log: createLogger("silent") });
      try {
        const fetches: Record<Side, number[]> = { on: [], off: [] };
        await call("fetchSite", { proxyPort: listener.port, n: 20 });
        await call("fetchSite", { n: 20 });
        for (let r = 0; r < rounds; r++) {
          for (const side of r % 2 === 0 ? SIDES : [...SIDES].reverse()) {
            fetches[side].push(...(await call("fetchSite", side === "on" ? { proxyPort: listener.port, n: 20 } : { n: 20 })));
          }
        }
        const added = (median(fetches.on) - median(fetches.off)) / site.resources;
        print(`  the site (${site.resources} requests, ${f(site.bytes / 1024, 0)} KiB) fetched by a kept-alive Node client, p50 per site: ` +
          `${f(median(fetches.on), 2)} ms through an egress listener vs ${f(median(fetches.off), 2)} ms straight ` +
          `(n=${fetches.on.length}; +${f(added * 1000, 0)} µs per plain-HTTP request: the check, a new connection to the origin, the relay)`);
      } finally {
        await listener.close();
      }
    }
    print();

    const loadAfter = os.loadavg();
    print(`done in ${f((performance.now() - started) / 1000)} s; load average now ${loadAfter.map((x) => x.toFixed(2)).join(" ")}`);
    if (warnings.length > 0) {
      print(`server warnings and errors (${warnings.length}):`);
      for (const line of warnings.slice(0, 20)) print(`  ${line.slice(0, 400)}`);
    } else {
      print(`servers logged no warnings or errors beyond ${expected} expected ones (start-up; the policy-off app's "policy is off")`);
    }
    return {
      rtt: { on: rtt.on, off: rtt.off, ratioP50: rttRatio, roundRatios: rttRatios },
      pipelined: { on: rate.on, off: rate.off, ratio: rateRatio, roundRatios: rateRatios },
      loads: loadResults,
      goalMet,
    };
  } finally {
    await stopAll();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchPolicy();
  process.exit(0);
}
