// Issue 44, where the relay's extra 0.1–0.3 ms goes: the parts below the relay, side by side in one
// run, in this one process (no relay host, no app):
//  (a) Chromium's own two ends: Runtime.evaluate("1+1") round trips on its pipe (what Vessel's relay
//      host talks to) against its DevTools WebSocket (--remote-debugging-port on loopback, the
//      reference of bench/reference-chromium.ts: for this bench only), the same browser, a page
//      each, rounds alternating the order;
//  (b) the relay host's own work per command, without the wire: reading, checking and judging a
//      client's message and serialising it again for the pipe (relay.ts, policy/command.ts), policy on
//      and off, against forwarding its bytes as they came; and the session logs' command log
//      (command-log.ts: sent + the answer's look-up) per command.
// Never part of the tests.
//
//   npx tsx bench/wire-floor.ts   BENCH_WIRE_ROUNDS=6 BENCH_WIRE_SEQ=300 BENCH_WIRE_CALLS=100000
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { commandOutcome } from "../src/browser/cdp/policy/command.ts";
import { CommandLog } from "../src/browser/cdp/relay/command-log.ts";
import { findChromium } from "../src/browser/launch/command.ts";
import { reportFigure } from "./figures.ts";
import { launchReference } from "./reference-chromium.ts";
import { BenchCdp, f, median, num, pct } from "./support.ts";

const rounds = num("BENCH_WIRE_ROUNDS", 6);
const seq = num("BENCH_WIRE_SEQ", 300);
const calls = num("BENCH_WIRE_CALLS", 100_000);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const GROUP = "CDP relay";
const load = () => os.loadavg()[0]!.toFixed(1);

// (a) pipe against WebSocket, one browser.
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-wire-"));
const reference = await launchReference({ executablePath, dataRoot, id: "reference" });
const loadStart = load();
const page = async (cdp: BenchCdp) => {
  const { targetId } = await cdp.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
  cdp.sessionId = sessionId;
  return cdp;
};
const clients = { pipe: await page(await BenchCdp.onPipe(reference.cdp)), ws: await page(await BenchCdp.open(reference.wsEndpoint)) };
const samples: Record<keyof typeof clients, number[]> = { pipe: [], ws: [] };
const roundMedians: Record<keyof typeof clients, number[]> = { pipe: [], ws: [] };
async function roundTrips(side: keyof typeof clients, n: number): Promise<number[]> {
  const cdp = clients[side];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await cdp.send("Runtime.evaluate", { expression: "1+1", returnByValue: true }, cdp.sessionId);
    out.push(performance.now() - t0);
  }
  return out;
}
await roundTrips("pipe", 100);
await roundTrips("ws", 100);
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? (["pipe", "ws"] as const) : (["ws", "pipe"] as const)) {
    const xs = await roundTrips(side, seq);
    samples[side].push(...xs);
    roundMedians[side].push(median(xs));
  }
}
await clients.pipe.close();
await clients.ws.close();
await reference.close();
fs.rmSync(dataRoot, { recursive: true, force: true });
const p50 = { pipe: median(samples.pipe), ws: median(samples.ws) };
console.log(`(a) Chromium's pipe vs its WebSocket endpoint, no relay: ${rounds} rounds × ${seq} round trips, load average ${loadStart} → ${load()}`);
console.log(`    pipe p50 ${f(p50.pipe, 3)} ms p99 ${f(pct(samples.pipe, 99), 3)} ms; WebSocket p50 ${f(p50.ws, 3)} ms p99 ${f(pct(samples.ws, 99), 3)} ms`);
console.log(`    per-round medians pipe ÷ ws: ${roundMedians.pipe.map((x, i) => f(x / roundMedians.ws[i]!, 2)).join(", ")}`);
reportFigure({
  group: GROUP,
  name: "Chromium's pipe ÷ its own WebSocket endpoint, round trip p50 (no relay)",
  value: p50.pipe / p50.ws,
  unit: "×",
  detail: `${f(p50.pipe, 3)} vs ${f(p50.ws, 3)} ms; load average ${loadStart}`,
});

// (b) the relay host's per-command work, without the wire.
const message = Buffer.from(
  JSON.stringify({ id: 12345, method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true }, sessionId: "A".repeat(32) }),
);
const answer = Buffer.from(`{"id":12345,"result":{"result":{"type":"number","value":2,"description":"2"}},"sessionId":"${"A".repeat(32)}"}`);
let sink = 0;
function perCall(work: () => void): number {
  for (let i = 0; i < 10_000; i++) work();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) work();
  return Number(process.hrtime.bigint() - t0) / calls / 1000;
}
const judged = (policy: boolean) => () => {
  const outcome = commandOutcome(message, policy, "/tmp/downloads");
  if (outcome.kind !== "send") throw new Error("refused");
  const c = outcome.command;
  sink += JSON.stringify({ id: c.id, method: c.method, params: c.params ?? {}, sessionId: c.sessionId ?? "root" }).length;
};
const log = new CommandLog(() => {
  sink++;
});
const work = {
  "parse, judge (policy on), serialise again": judged(true),
  "parse, shape checks (policy off), serialise again": judged(false),
  "bytes forwarded as they came": () => {
    sink += message.length;
  },
  "session logs' command log (sent + answer looked up)": () => {
    log.sent(12345, "Runtime.evaluate");
    log.received(answer);
  },
};
console.log(`(b) the relay host's work per command, ${calls} calls each after warm-up (µs per command):`);
const micros: Record<string, number[]> = {};
for (let r = 0; r < 3; r++) for (const [name, fn] of Object.entries(work)) (micros[name] ??= []).push(perCall(fn));
log.close();
for (const [name, xs] of Object.entries(micros)) {
  console.log(`    ${name}: ${xs.map((x) => f(x, 2)).join(", ")} µs`);
  reportFigure({ group: GROUP, name: `relay host work per command: ${name}`, value: median(xs), unit: "µs", detail: `median of 3; load average ${load()}` });
}
if (sink < 0) console.log(sink);
process.exit(0);
