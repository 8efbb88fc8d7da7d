// What the CDP policy costs a session (issue 17: "bench/sessions (d): policy on vs off, CDP round
// trip and pipelined rate within 5%, page loads within 5%"). Two Vessel apps run side by side in this
// process, each with one running session: one with the CDP policy (every client message parsed and
// judged by src/browser/cdp/policy/policy.ts's judgeCommand on its way from /cdp to the browser's pipe), one with
// `VESSEL_CDP_POLICY=off` (the same relay, nothing judged). Everything else is the same on both sides:
// each browser's traffic leaves through its own egress listener (a jailed browser has no other way
// out), and the pool jails both alike when it jails at all (the header line says, read from /proc).
// Measured through each session's connect_url:
//  (a) Runtime.evaluate("1+1") round trip (sequential) and pipelined throughput;
//  (b) page-load time of a loopback fixture site (an HTML page with a stylesheet, two scripts and
//      three images, ~400 KB), Page.navigate → Page.loadEventFired, the cache disabled so every load
//      goes through the network (and the egress listener): over plain HTTP and, when openssl is
//      installed, HTTPS (the certificate is self-signed and both browsers are told to ignore
//      certificate errors);
// judgeCommand on its own, without a browser (CPU per client message, small, large and hostile
// messages), is bench/cdp-policy.ts (`npm run bench:cdp-policy`); this one measures it in place.
// The servers run in this process; every client (the raw CDP clients, REST calls and the fixture
// site) runs in a forked child (bench/sessions-policy-client.ts), so load never shares the servers'
// event loop. Rounds alternate which side goes first (ABAB / BABA); ratios are policy on / off, per
// round and overall (printed and judged by bench/sessions-policy-report.ts). Loopback only; both apps
// and their browsers are closed at the end. Never part of the tests.
//
//   npm run bench:policy
//   BENCH_POLICY_ROUNDS=8 BENCH_POLICY_SEQ=500 BENCH_POLICY_PIPE=2000 BENCH_POLICY_LOADS=10
//   BENCH_POLICY_SCHEMES=http,https   BENCH_POLICY_HOST=127.0.0.1 (the fixture site's address)
//   BENCH_CHROMIUM=/usr/lib/chromium/chromium   (default: findChromium(), the headless shell)
//   BENCH_JAIL=off                              (VESSEL_BROWSER_JAIL for both apps; default: the default, auto)
//
// Also importable: `benchPolicy()` prints the same section (bench/sessions.ts calls it for (d)).
import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { findChromium } from "../src/browser/launch/command.ts";
import { commaList } from "../src/comma-list.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import type { PolicyOpName, PolicyOps, PolicyReplyMsg, PolicyRequestMsg, Scheme } from "./sessions-policy-client.ts";
import { label, reportPolicy, SIDES, type PolicyBenchResult, type Side } from "./sessions-policy-report.ts";
import { f, jailOf, median, num } from "./support.ts";

export interface PolicyBenchOptions {
  rounds?: number;
  /** Sequential round trips per side per round. */
  seq?: number;
  /** Pipelined messages per side per round. */
  pipe?: number;
  /** Page-load pairs (one load each side) per scheme per round. */
  loads?: number;
  schemes?: Scheme[];
  /** The fixture site's address (allowlisted for both apps' egress listeners). */
  host?: string;
  executablePath?: string;
  print?: (line?: string) => void;
}

/** Pipelined bursts per side per round, in pairs of alternating order. */
const PIPE_PAIRS = 3;

export async function benchPolicy(options: PolicyBenchOptions = {}): Promise<PolicyBenchResult> {
  const rounds = Math.max(1, options.rounds ?? num("BENCH_POLICY_ROUNDS", 8));
  const seq = Math.max(1, options.seq ?? num("BENCH_POLICY_SEQ", 500));
  const pipe = Math.max(1, options.pipe ?? num("BENCH_POLICY_PIPE", 2000));
  const loads = Math.max(1, options.loads ?? num("BENCH_POLICY_LOADS", 10));
  const schemes = options.schemes ?? (commaList(process.env.BENCH_POLICY_SCHEMES ?? "http,https", { dropEmpty: true }) as Scheme[]);
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
  /** Said once by the policy-off app at start (at error level), by design. */
  const expectedOff = "the CDP method policy is OFF";
  let expected = 0;
  const sink = (side: Side) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split("\n")) {
          if (!line.trim()) continue;
          if (expectedWarnings.some((w) => line.includes(w)) || (side === "off" && line.includes(expectedOff))) expected++;
          else warnings.push(`[${side}] ${line}`);
        }
        done();
      },
    });
  const apps: Partial<Record<Side, TestApp>> = {};
  const sessions: Partial<Record<Side, { id: string; api: { baseUrl: string; key: string } }>> = {};
  const isolation: Partial<Record<Side, string>> = {};
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
          // The only difference between the two apps.
          VESSEL_CDP_POLICY: side,
          ...(process.env.BENCH_JAIL ? { VESSEL_BROWSER_JAIL: process.env.BENCH_JAIL } : {}),
        },
        checkResponses: false,
        log: createLogger("warn", sink(side)),
      });
      if (apps[side]!.app.deps.browsers.enforcesCdpPolicy !== (side === "on")) throw new Error(`the ${side} app's CDP policy is not ${side}`);
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
      const lease = t.app.deps.runtime.endpoint(s.id);
      if (!lease?.egress) throw new Error(`the ${side} app's browser has no egress listener: the two sides would differ in more than the CDP policy`);
      isolation[side] = jailOf(lease.pid);
      await call("cdpOpen", { name: side, url: s.connectUrl });
    }

    print(
      `Vessel CDP policy on vs off — ${executablePath}, node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore.map((x) => x.toFixed(2)).join(" ")}`,
    );
    print(`two apps in-process (PGlite in memory, no spares), one running session each; clients in a child process; loopback`);
    print(
      `policy on = every client message judged by the CDP allow-list (judgeCommand); off = VESSEL_CDP_POLICY=off; both: an egress listener per browser (allowlist ${hostInAllow})`,
    );
    for (const side of SIDES) print(`${label[side]} browser: ${isolation[side]}`);
    print(
      `fixture site: ${site.resources} resources, ${f(site.bytes / 1024, 0)} KiB, cache disabled; ${activeSchemes.map((s) => site.urls[s]).join(", ")}${site.httpsSkipped && schemes.includes("https") ? ` (${site.httpsSkipped})` : ""}`,
    );
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
    const load = Object.fromEntries(activeSchemes.map((s) => [s, { on: [] as number[], off: [] as number[], ratios: [] as number[] }])) as Record<
      Scheme,
      { on: number[]; off: number[]; ratios: number[] }
    >;

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

    const result = reportPolicy({ rtt, rate, rttRatios, rateRatios, load }, { rounds, seq, pipe, pipePairs: PIPE_PAIRS, loads, activeSchemes }, print);

    print(`judgeCommand's own CPU per message, without a browser: npm run bench:cdp-policy`);
    print();

    const loadAfter = os.loadavg();
    print(`done in ${f((performance.now() - started) / 1000)} s; load average now ${loadAfter.map((x) => x.toFixed(2)).join(" ")}`);
    if (warnings.length > 0) {
      print(`server warnings and errors (${warnings.length}):`);
      for (const line of warnings.slice(0, 20)) print(`  ${line.slice(0, 400)}`);
    } else {
      print(`servers logged no warnings or errors beyond ${expected} expected ones (start-up; the policy-off app's "CDP method policy is OFF")`);
    }
    return result;
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
