// Decision record 0270 (docs/decisions/0270-own-launcher-and-cdp-client.md): a browser started the
// node's way (src/browser/launch/chromium.ts: the launcher process spawns it, the CDP pipe, a CdpClient on
// a channel of its own) against puppeteer-core's launch over the same pipe, for the same Chromium with
// the same flags (chromiumArgs: the closed-network flags --disable-background-networking
// --disable-component-update --disable-sync --no-first-run and the rest; puppeteer's own defaults
// switched off). Side by side in one process, interleaved rounds, medians:
//   ready     launch until the browser has answered a first command (ours: Browser.getVersion on
//             the pipe, then a CdpClient channel opened; puppeteer: launch() resolved, which attaches)
//   loop      the longest the launching process's event loop was held during the launch: the
//             node holds hundreds of MB, and a spawn() from it forks (copies) its page tables;
//             BENCH_BALLAST_MB of touched memory stands in for them (default 384)
//   rtt       a CDP round trip on the browser target once it has settled (1 s after ready), median
//             of 50 (ours: CdpClient.send; puppeteer: a CDPSession of the browser target)
// Also the cost of loading puppeteer-core into a process (heap, time), measured first.
//
//   npx tsx bench/decision-launcher.ts      BENCH_ROUNDS=5 BENCH_N=3 BENCH_BALLAST_MB=384 VESSEL_CHROMIUM_PATH=…
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CdpClient } from "../src/browser/cdp/pipe/client.ts";
import { launchChromium } from "../src/browser/launch/chromium.ts";
import { chromiumArgs, chromiumEnv, findChromium } from "../src/browser/launch/command.ts";
import { createLogger } from "../src/logger.ts";
import { f, median, num } from "./support.ts";

const rounds = num("BENCH_ROUNDS", 5);
const perRound = num("BENCH_N", 3);
const ballastMb = num("BENCH_BALLAST_MB", 384);
const executablePath = findChromium(process.env.VESSEL_CHROMIUM_PATH);
if (!executablePath) throw new Error("no Chromium: install chromium-headless-shell or chromium, or set VESSEL_CHROMIUM_PATH");
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vd-"));
const log = createLogger("silent");
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/**
 * Before the round trips, both browsers are left to finish starting up: ours is "ready" earlier in
 * Chromium's start (its first answer) than puppeteer's (which waits for the first page's target),
 * and round trips measured during the rest of the start measure Chromium's start, not the client.
 */
const SETTLE_MS = 1_000;

// Loading puppeteer-core, measured before anything else is loaded with it.
global.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const t0 = performance.now();
const { default: puppeteer } = await import("puppeteer-core");
const importMs = performance.now() - t0;
const importHeapMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;

// Touched memory, so that the fork of a spawn() has page tables to copy, as the node's would.
const ballast = Buffer.alloc(ballastMb * 2 ** 20);
for (let i = 0; i < ballast.length; i += 4096) ballast[i] = 1;
const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);

/** Runs `fn` while a 1 ms timer watches the loop; answers its result and the longest gap between ticks. */
async function watched<T>(fn: () => Promise<T>): Promise<{ value: T; loopMax: number }> {
  let last = performance.now();
  let loopMax = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    loopMax = Math.max(loopMax, now - last);
    last = now;
  }, 1);
  try {
    const value = await fn();
    await sleep(3);
    return { value, loopMax };
  } finally {
    clearInterval(probe);
  }
}

interface Measured {
  ready: number;
  loopMax: number;
  rtt: number;
}

let n = 0;
async function ours(): Promise<Measured> {
  const id = `o${n++}`;
  const t = performance.now();
  const { value: browser, loopMax } = await watched(async () => {
    const browser = await launchChromium({ executablePath: executablePath!, dataRoot, id, log });
    return { browser, client: await CdpClient.open(browser.cdp) };
  });
  const ready = performance.now() - t;
  await sleep(SETTLE_MS);
  const rtts: number[] = [];
  for (let i = 0; i < 50; i++) {
    const r0 = performance.now();
    await browser.client.send("Browser.getVersion");
    rtts.push(performance.now() - r0);
  }
  browser.client.close();
  await browser.browser.close();
  return { ready, loopMax, rtt: median(rtts) };
}

async function viaPuppeteer(): Promise<Measured> {
  const dir = path.join(dataRoot, `p${n++}`);
  for (const sub of ["profile", "home", "config", "cache", "data", "tmp"]) fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
  // The node's own flags and environment; puppeteer adds --remote-debugging-pipe itself with pipe: true.
  const args = chromiumArgs(executablePath!, path.join(dir, "profile")).filter((a) => a !== "--remote-debugging-pipe" && a !== "about:blank");
  const t = performance.now();
  const { value: browser, loopMax } = await watched(() =>
    puppeteer.launch({
      executablePath,
      pipe: true,
      ignoreDefaultArgs: true,
      args: [...args, "about:blank"],
      env: chromiumEnv(dir),
      defaultViewport: null,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    }),
  );
  const ready = performance.now() - t;
  await sleep(SETTLE_MS);
  const session = await browser.target().createCDPSession();
  const rtts: number[] = [];
  for (let i = 0; i < 50; i++) {
    const r0 = performance.now();
    await session.send("Browser.getVersion");
    rtts.push(performance.now() - r0);
  }
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { ready, loopMax, rtt: median(rtts) };
}

const variants = { "ours (launcher + pipe + CdpClient)": ours, "puppeteer-core launch({ pipe: true })": viaPuppeteer } as const;
type Name = keyof typeof variants;
const results = new Map<Name, Measured[]>(Object.keys(variants).map((k) => [k as Name, []]));
/** Per round, the loop's longest gap over 500 ms of no launch: this (shared) machine's own noise. */
const idle: number[] = [];

try {
  for (const fn of Object.values(variants)) await fn(); // warm: the launcher process, the binary's pages, JIT
  for (let r = 0; r < rounds; r++) {
    idle.push((await watched(() => sleep(500))).loopMax);
    const names = Object.keys(variants) as Name[];
    for (const name of r % 2 ? names.reverse() : names) {
      const round: Measured[] = [];
      for (let i = 0; i < perRound; i++) round.push(await variants[name]());
      results.get(name)!.push({ ready: median(round.map((m) => m.ready)), loopMax: median(round.map((m) => m.loopMax)), rtt: median(round.map((m) => m.rtt)) });
    }
  }
} finally {
  fs.rmSync(dataRoot, { recursive: true, force: true });
}

const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
console.log(`node ${process.version}, ${os.cpus().length} CPUs, load average ${load} (machine shared with other work)`);
// The ballast is read here so that it lives until the end; RSS as it was before the launches (and now).
const rssAfter = Math.round(process.memoryUsage().rss / 2 ** 20);
console.log(`${executablePath}; ballast ${ballast.length / 2 ** 20} MiB touched (process RSS ${rssMb} MiB before the launches, ${rssAfter} MiB after)`);
console.log(`import("puppeteer-core"): ${f(importMs)} ms, +${f(importHeapMb)} MiB of heap`);
console.log(`${rounds} interleaved rounds of ${perRound} launches per variant; medians of the rounds' medians`);
console.log(`${"variant".padEnd(40)} ${"ready ms".padStart(9)} ${"loop max ms".padStart(12)} ${"rtt ms".padStart(8)}`);
for (const [name, ms] of results) {
  const m = (k: keyof Measured) => median(ms.map((x) => x[k]));
  const each = ms.map((x) => f(x.ready)).join(", ");
  console.log(`${name.padEnd(40)} ${f(m("ready")).padStart(9)} ${f(m("loopMax")).padStart(12)} ${f(m("rtt"), 3).padStart(8)}   ready per round: ${each}`);
}
console.log(`${"no launch (the loop's own noise)".padEnd(40)} ${"".padStart(9)} ${f(median(idle)).padStart(12)}`);
const [a, b] = [...results.values()] as [Measured[], Measured[]];
const ratio = (k: keyof Measured) => f(median(b.map((x) => x[k])) / median(a.map((x) => x[k])), 2);
console.log(`puppeteer ÷ ours: ready ${ratio("ready")}×, loop held ${ratio("loopMax")}×, round trip ${ratio("rtt")}×`);
