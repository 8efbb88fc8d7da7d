/**
 * Launch, spare-acquire and release timings of the browser pool, for the headless shell and full
 * Chromium when installed. Prints medians; never part of the test run.
 *   npx tsx bench/browser-pool.ts [rounds]
 * ONLY=<binary> measures one binary; LOG_LEVEL=debug shows the pool's log.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchChromium } from "../src/browser/launch/chromium.ts";
import { findChromium } from "../src/browser/launch/command.ts";
import { BrowserPool } from "../src/browser/pool/pool.ts";
import { createLogger } from "../src/logger.ts";

const rounds = Number(process.argv[2] ?? 10);
const log = createLogger(process.env.LOG_LEVEL ?? "silent");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)] ?? NaN;
const fmt = (xs: number[]) => `${median(xs).toFixed(1)} / ${p95(xs).toFixed(1)} ms`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const binaries = [process.env.ONLY ?? findChromium(), process.env.ONLY ? undefined : "/usr/lib/chromium/chromium"].filter(
  (b, i, all): b is string => !!b && fs.existsSync(b) && all.indexOf(b) === i,
);

for (const executablePath of binaries) {
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-"));
  try {
    const launch: number[] = [];
    const close: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let t = performance.now();
      const b = await launchChromium({ executablePath, dataRoot, id: `b${i}`, log });
      launch.push(performance.now() - t);
      await sleep(200);
      t = performance.now();
      await b.close();
      close.push(performance.now() - t);
    }

    const pool = new BrowserPool({ executablePath, dataRoot, capacity: 4, warm: 1, log });
    await pool.start();
    const spare: number[] = [];
    const release: number[] = [];
    for (let i = 0; i < rounds; i++) {
      while (pool.report().warm < 1) await sleep(10);
      let t = performance.now();
      const lease = await pool.acquire(`s${i}`);
      spare.push(performance.now() - t);
      await sleep(200);
      t = performance.now();
      await lease.release();
      release.push(performance.now() - t);
    }
    await pool.stop();
    console.log(`${path.basename(executablePath)} (n=${rounds}, median / p95)`);
    console.log(`  cold launch to the first answer on its pipe  ${fmt(launch)}`);
    console.log(`  close (Browser.close, wait, rm)              ${fmt(close)}`);
    console.log(`  acquire served by a spare                    ${fmt(spare)}`);
    console.log(`  lease.release()                              ${fmt(release)}`);
  } finally {
    fs.rmSync(dataRoot, { recursive: true, force: true });
  }
}
