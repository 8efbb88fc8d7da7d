// Sessions' logs on vs off, paired in one app (issue 20: "lifecycle and CDP figures with logs on vs
// off, goal within 5%"). Logs are a per-session choice (`logs: false` at create), so both sides run
// in the same server, on the same warm pool, alternating which goes first; the machine's drift
// cancels within each pair or round:
//  (a) the lifecycle create → connect → newPage → goto → release of bench/sessions.ts, with the
//      session's logs on (capture channel, every page attached and enabled, entries sealed and
//      written at the end) and off;
//  (b) Runtime.evaluate("1+1") round trips and pipelined bursts through /cdp on two sessions, one
//      logging every command (no entry bound: VESSEL_LOGS_MAX_ENTRIES=1000000, so the writer seals
//      and inserts each of them every 500 ms), one not.
// The server runs in this process; clients in the forked client of bench/sessions.ts. Never part of the tests.
//
//   npx tsx bench/session-logs.ts
//   BENCH_LOGS_N=30 BENCH_CDP_ROUNDS=12 BENCH_CDP_SEQ=500 BENCH_CDP_PIPE=2000 BENCH_WARM=2 BENCH_SETTLE_MS=300
//   BENCH_POSTGRES=1   a database of its own on VESSEL_TEST_DATABASE_URL's server instead of PGlite in memory
import os from "node:os";
import { Writable } from "node:stream";
import { findChromium } from "../src/browser/launch/command.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../test/support/db.ts";
import type { Phases } from "./sessions-client.ts";
import { call, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { f, jailOf, median, num, pad, pct } from "./support.ts";

const pairs = num("BENCH_LOGS_N", 30);
const rounds = num("BENCH_CDP_ROUNDS", 12);
const seq = num("BENCH_CDP_SEQ", 500);
const pipe = num("BENCH_CDP_PIPE", 2000);
const warm = num("BENCH_WARM", 2);
const settleMs = num("BENCH_SETTLE_MS", 300);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");

const warnings: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split("\n")) if (line.trim() && !line.includes("VESSEL_MASTER_KEY is not set")) warnings.push(line);
    done();
  },
});
const print = (line = "") => console.log(line);
const sides = ["on", "off"] as const;
type Side = (typeof sides)[number];
const bodyOf = (side: Side) => (side === "on" ? {} : { logs: false });

let t: TestApp | undefined;
let tdb: TestDatabase | undefined;
async function settle(): Promise<void> {
  const pool = t!.app.deps.browsers;
  const deadline = Date.now() + 60_000;
  while (pool.report().warm < warm) {
    if (Date.now() > deadline) throw new Error("the pool did not refill");
    await sleep(10);
  }
  await sleep(settleMs);
}

try {
  if (process.env.BENCH_POSTGRES === "1") tdb = await createTestDatabase("postgres");
  t = await startTestApp({
    ...(tdb ? { db: tdb.db } : {}),
    env: { VESSEL_BROWSER_WARM: String(warm), VESSEL_BROWSER_CAPACITY: "8", VESSEL_CHROMIUM_PATH: executablePath, VESSEL_LOGS_MAX_ENTRIES: "1000000" },
    checkResponses: false,
    log: createLogger("warn", sink),
  });
  const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
  const api = { baseUrl: t.url, key: seeded.key };
  startClient();
  await call("init", { executablePath });
  const probe = await call("createSession", api);
  print(
    `Session logs on vs off — ${executablePath}, node ${process.version}, ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  print(
    `server in-process (${tdb ? "PostgreSQL" : "PGlite in memory"}, warm spares ${warm}), ${jailOf(t.app.deps.runtime.endpoint(probe.id)!.pid)}; clients in a child process; same app, alternating`,
  );
  await call("releaseSession", { ...api, id: probe.id });

  // (a) lifecycle, in pairs
  const lifecycle: Record<Side, Phases[]> = { on: [], off: [] };
  /** This process's CPU (the server's: the clients run in another process) from the create to 100 ms after the release's answer. */
  const cpu: Record<Side, number[]> = { on: [], off: [] };
  const measured = async (side: Side) => {
    const before = process.cpuUsage();
    const phases = await call("lifecycleVessel", { ...api, body: bodyOf(side) });
    await sleep(100);
    const used = process.cpuUsage(before);
    cpu[side].push((used.user + used.system) / 1000);
    return phases;
  };
  for (const side of sides) {
    await settle();
    await call("lifecycleVessel", { ...api, body: bodyOf(side) });
  }
  for (let i = 0; i < pairs; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      await settle();
      lifecycle[side].push(await measured(side));
    }
  }
  print();
  print(`(a) lifecycle create→connect→newPage→goto→release, ${pairs} pairs, ms`);
  const keys = ["obtain", "connect", "newPage", "goto", "release"] as const;
  for (const side of sides) {
    const xs = lifecycle[side];
    const totals = xs.map((p) => p.total);
    print(
      `  logs ${pad(side, 4)} p50 ${pad(f(median(totals)), 7)} p95 ${pad(f(pct(totals, 95)), 7)} | ${keys.map((k) => `${k} ${f(median(xs.map((p) => p[k])))}`).join(", ")}`,
    );
  }
  const paired = lifecycle.on.map((p, i) => p.total / lifecycle.off[i]!.total);
  const p50 = (side: Side) => median(lifecycle[side].map((p) => p.total));
  print(`  on ÷ off: p50 ${f(p50("on") / p50("off"), 3)}×; median of the per-pair ratios ${f(median(paired), 3)}× (goal within 5%)`);
  print(`  server CPU per lifecycle (create to 100 ms after the release), ms: on ${f(median(cpu.on))}, off ${f(median(cpu.off))} (medians)`);

  // (b) CDP through /cdp, a session with logs and one without
  await settle();
  const sessions = { on: await call("createSession", { ...api, body: bodyOf("on") }), off: await call("createSession", { ...api, body: bodyOf("off") }) };
  await settle();
  for (const side of sides) {
    await call("cdpOpen", { name: side, url: sessions[side].connectUrl });
    await call("cdpSeq", { name: side, n: 300 });
    await call("cdpPipe", { name: side, n: pipe });
  }
  const rtt: Record<Side, number[]> = { on: [], off: [] };
  const rate: Record<Side, number[]> = { on: [], off: [] };
  const rttRatio: number[] = [];
  const rateRatio: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    const roundRtt: Record<Side, number[]> = { on: [], off: [] };
    const roundRate: Record<Side, number> = { on: 0, off: 0 };
    for (const side of order) roundRtt[side] = await call("cdpSeq", { name: side, n: seq });
    for (const side of order) roundRate[side] = pipe / ((await call("cdpPipe", { name: side, n: pipe })) / 1000);
    for (const side of sides) {
      rtt[side].push(...roundRtt[side]);
      rate[side].push(roundRate[side]);
    }
    rttRatio.push(median(roundRtt.on) / median(roundRtt.off));
    rateRatio.push(roundRate.on / roundRate.off);
  }
  await sleep(700); // the last batch written
  const logged = await t.app.deps.db.prisma.sessionLogKey.findUnique({ where: { sessionId: sessions.on.id } });
  print();
  print(
    `(b) CDP Runtime.evaluate("1+1") through /cdp, ${rounds} alternating rounds of ${seq} sequential + ${pipe} pipelined; the logging session wrote ${logged?.entries ?? 0} entries (${f((logged?.bytes ?? 0) / 1024 / 1024, 2)} MiB as JSON)`,
  );
  for (const side of sides) {
    print(
      `  logs ${pad(side, 4)} round trip p50 ${f(median(rtt[side]), 3)} p95 ${f(pct(rtt[side], 95), 3)} p99 ${f(pct(rtt[side], 99), 3)} ms; pipelined msgs/s median ${f(median(rate[side]), 0)}`,
    );
  }
  print(
    `  on ÷ off round trip: p50 ${f(median(rtt.on) / median(rtt.off), 3)}×, per-round median ${f(median(rttRatio), 3)}× (${rttRatio.map((x) => f(x, 2)).join(", ")})`,
  );
  print(
    `  on ÷ off pipelined rate: ${f(median(rate.on) / median(rate.off), 3)}×, per-round median ${f(median(rateRatio), 3)}× (${rateRatio.map((x) => f(x, 2)).join(", ")})`,
  );
  await call("cdpClose", {});
  for (const side of sides) await call("releaseSession", { ...api, id: sessions[side].id });
  print();
  print(
    warnings.length === 0
      ? "server logged no warnings or errors"
      : `server warnings (${warnings.length}):\n${warnings
          .slice(0, 10)
          .map((l) => `  ${l.slice(0, 300)}`)
          .join("\n")}`,
  );
} finally {
  await stopClient();
  await t?.stop();
  await tdb?.dispose();
}
process.exit(0);
