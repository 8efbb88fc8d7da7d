// `npm run bench:all`: every bench that reports figures (bench/figures.ts), one after another, each
// in a child process of its own (`tsx bench/x.ts`, its output shown as it runs), then one table of
// every figure with its goal and PASS/MISS. The table is written into docs/performance.md between
// `<!-- bench:all begin -->` and `<!-- bench:all end -->`, and the README's headline figures between
// `<!-- bench:all readme begin -->` and `<!-- bench:all readme end -->`: neither is typed by hand.
// Never part of the tests.
//
//   npm run bench:all                 a full run (about 15 min on the 2-core machine)
//   BENCH_ALL_QUICK=1                 fewer iterations everywhere (a smoke run; figures are noisier)
//   BENCH_ALL_ONLY=relay,sessions     only these benches (by name below); the docs are then left alone
//   BENCH_ALL_WRITE=0                 print the table, write nothing
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { commaList } from "../src/comma-list.ts";
import { parseFigure } from "./figures.ts";

interface BenchRun {
  name: string;
  script: string;
  /** Environment of a full run (bounded so that the whole list stays near 15 min). */
  env: Record<string, string>;
  /** Overrides for BENCH_ALL_QUICK=1. */
  quick: Record<string, string>;
  /** The bench is stopped (and its figures reported missing) after this long. */
  timeoutMin: number;
}

/** The benches, in order. Each prints BENCH-FIGURE lines (bench/figures.ts); add yours here. */
const benches: BenchRun[] = [
  {
    name: "relay",
    script: "bench/relay.ts",
    env: { BENCH_RELAY_ROUNDS: "6", BENCH_RELAY_SEQ: "300", BENCH_RELAY_PIPE: "2000", BENCH_RELAY_COST_N: "12" },
    quick: { BENCH_RELAY_ROUNDS: "3", BENCH_RELAY_SEQ: "200", BENCH_RELAY_PIPE: "1000", BENCH_RELAY_COST_N: "6" },
    timeoutMin: 6,
  },
  {
    name: "sessions",
    script: "bench/sessions.ts",
    env: { BENCH_LIFECYCLE_N: "10", BENCH_B2B_N: "6", BENCH_CDP_ROUNDS: "3", BENCH_MEM_ROUNDS: "2", BENCH_POLICY_ROUNDS: "2" },
    quick: { BENCH_LIFECYCLE_N: "4", BENCH_B2B_N: "3", BENCH_CDP_ROUNDS: "2", BENCH_MEM_ROUNDS: "1", BENCH_POLICY_ROUNDS: "1", BENCH_POLICY_LOADS: "3" },
    timeoutMin: 8,
  },
  {
    name: "live-view",
    script: "bench/live-view.ts",
    env: { BENCH_LV_ROUNDS: "3", BENCH_LV_SECONDS: "3", BENCH_LV_CLICKS: "10" },
    quick: { BENCH_LV_ROUNDS: "1", BENCH_LV_SECONDS: "2", BENCH_LV_CLICKS: "4" },
    timeoutMin: 4,
  },
  {
    name: "front-door",
    script: "bench/front-door.ts",
    env: { BENCH_FRONT_DOOR_ROUNDS: "2", BENCH_FRONT_DOOR_BASELINE_MS: "1500" },
    quick: { BENCH_FRONT_DOOR_ROUNDS: "1", BENCH_FRONT_DOOR_BASELINE_MS: "1000" },
    timeoutMin: 4,
  },
  {
    name: "wire-floor",
    script: "bench/wire-floor.ts",
    env: { BENCH_WIRE_ROUNDS: "6", BENCH_WIRE_SEQ: "300", BENCH_WIRE_CALLS: "100000" },
    quick: { BENCH_WIRE_ROUNDS: "3", BENCH_WIRE_SEQ: "150", BENCH_WIRE_CALLS: "20000" },
    timeoutMin: 3,
  },
  {
    name: "density",
    script: "bench/density.ts",
    env: { BENCH_DENSITY_N: "6", BENCH_DENSITY_ROUNDS: "3", BENCH_DENSITY_VARIANTS: "shipped,in-process-gpu,lean,browserless" },
    quick: { BENCH_DENSITY_N: "3", BENCH_DENSITY_ROUNDS: "1" },
    timeoutMin: 10,
  },
  { name: "profiles", script: "bench/profiles.ts", env: { BENCH_PROFILE_RUNS: "5" }, quick: { BENCH_PROFILE_RUNS: "2" }, timeoutMin: 5 },
  {
    name: "bursts",
    script: "bench/bursts.ts",
    env: { BENCH_BURSTS: "4", BENCH_STEADY_N: "12", BENCH_B2B_N: "8", BENCH_IDLE_N: "6" },
    quick: { BENCH_BURSTS: "2", BENCH_STEADY_N: "5", BENCH_B2B_N: "3", BENCH_IDLE_N: "3", BENCH_FIXED: "0" },
    timeoutMin: 8,
  },
];

/** The README shows these figures (group, name) of the table; the rest is in docs/performance.md. */
const headlines: [string, string][] = [
  ["Lifecycle", "create → connect → newPage → goto → release p50 ÷ already-running Chromium"],
  ["CDP relay", "round trip p50 ÷ direct, under load"],
  ["CDP relay", "pipelined throughput ÷ direct, under load"],
  ["Density", "idle sessions per GiB (blank page, spares included)"],
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const quick = process.env.BENCH_ALL_QUICK === "1";
const only = process.env.BENCH_ALL_ONLY === undefined ? undefined : commaList(process.env.BENCH_ALL_ONLY, { dropEmpty: true });
const selected = only ? benches.filter((b) => only.includes(b.name)) : benches;
const write = process.env.BENCH_ALL_WRITE !== "0" && !only;
/** `load`: the machine's 1-minute load average when the figure was printed (its run's noise, beside it). */
type Row = NonNullable<ReturnType<typeof parseFigure>> & { bench: string; load: number };

/** Runs one bench, its output passed through; resolves with its figures and how it ended. */
function run(bench: BenchRun): Promise<{ figures: Row[]; outcome: string; seconds: number }> {
  const started = performance.now();
  const figures: Row[] = [];
  const tsx = path.join(root, "node_modules", ".bin", "tsx");
  const child = spawn(tsx, [bench.script], {
    cwd: root,
    env: { ...process.env, ...bench.env, ...(quick ? bench.quick : {}) },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true, // its own group, so that a timeout stops its browsers too
  });
  let partial = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    process.stdout.write(chunk);
    const lines = (partial + chunk).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      const figure = parseFigure(line);
      if (figure) figures.push({ ...figure, bench: bench.name, load: os.loadavg()[0]! });
    }
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  }, bench.timeoutMin * 60_000);
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const figure = parseFigure(partial);
      if (figure) figures.push({ ...figure, bench: bench.name, load: os.loadavg()[0]! });
      const outcome = timedOut ? `stopped after ${bench.timeoutMin} min` : code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`;
      resolve({ figures, outcome, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const fmt = (x: number | null, unit: string) => {
  if (x === null) return "n/a";
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2;
  return `${x.toFixed(digits)}${unit === "×" || unit === "%" ? unit : ` ${unit}`}`;
};
const result = (r: Row) => (r.pass === undefined ? "—" : r.pass ? "PASS" : "**MISS**");
const cell = (s: string) => s.replace(/\|/g, "\\|");

function markdownTable(rows: Row[]): string {
  const lines = ["| Group | Figure | Value | Goal | Result | Load | Detail |", "|---|---|---|---|---|---|---|"];
  for (const r of rows) {
    lines.push(
      `| ${cell(r.group)} | ${cell(r.name)} | ${fmt(r.value, r.unit)} | ${cell(r.goal ?? "—")} | ${result(r)} | ${r.load.toFixed(1)} | ${cell(r.detail ?? "")} |`,
    );
  }
  return lines.join("\n");
}

/** Replaces what lies between `begin` and `end` in `file`; the markers must be there already. */
function rewrite(file: string, begin: string, end: string, body: string): void {
  const text = fs.readFileSync(file, "utf8");
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a === -1 || b < a) throw new Error(`${file} has no ${begin} … ${end} markers`);
  fs.writeFileSync(file, text.slice(0, a + begin.length) + "\n" + body + "\n" + text.slice(b));
}

const loadBefore = os.loadavg();
const startedAt = new Date();
const rows: Row[] = [];
const outcomes: string[] = [];
for (const bench of selected) {
  console.log(`\n===== bench:all — ${bench.name} (${bench.script}${quick ? ", quick" : ""}) =====`);
  const { figures, outcome, seconds } = await run(bench);
  rows.push(...figures);
  outcomes.push(`${bench.name}: ${outcome}, ${figures.length} figures, ${seconds.toFixed(0)} s`);
}
// Each group's figures together, groups in the order they first appeared.
const groupOrder = [...new Set(rows.map((r) => r.group))];
rows.sort((a, b) => groupOrder.indexOf(a.group) - groupOrder.indexOf(b.group));
const minutes = (Date.now() - startedAt.getTime()) / 60_000;
const loadAfter = os.loadavg();
const goals = rows.filter((r) => r.pass !== undefined);
const summary =
  `${goals.filter((r) => r.pass).length} of ${goals.length} goals met. One run of \`npm run bench:all\`${quick ? " (BENCH_ALL_QUICK=1)" : ""} ` +
  `started ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, ${minutes.toFixed(1)} min, ${os.cpus().length} cores, ` +
  `load average ${loadBefore[0]!.toFixed(1)} at start, ${loadAfter[0]!.toFixed(1)} at the end, node ${process.version}. ` +
  `Benches: ${outcomes.join("; ")}.`;

console.log(`\n===== bench:all — every figure =====`);
console.log(markdownTable(rows));
console.log(`\n${summary}`);

if (write) {
  rewrite(path.join(root, "docs/performance.md"), "<!-- bench:all begin -->", "<!-- bench:all end -->", `${summary}\n\n${markdownTable(rows)}`);
  const picked = headlines.map(([g, n]) => rows.find((r) => r.group === g && r.name === n)).filter((r): r is Row => r !== undefined);
  const readme = [
    "| What | Figure | Goal |",
    "|---|---|---|",
    ...picked.map(
      (r) =>
        `| ${cell(r.group)}: ${cell(r.name)} | ${fmt(r.value, r.unit)}${r.detail ? ` (${cell(r.detail)})` : ""}, load average ${r.load.toFixed(1)} | ${cell(r.goal ?? "—")}: ${result(r)} |`,
    ),
    "",
    `${goals.filter((r) => r.pass).length} of ${goals.length} goals met in that run (${startedAt.toISOString().slice(0, 10)}); every figure: [docs/performance.md](docs/performance.md#every-figure-of-one-run-npm-run-benchall).`,
  ].join("\n");
  rewrite(path.join(root, "README.md"), "<!-- bench:all readme begin -->", "<!-- bench:all readme end -->", readme);
  console.log("docs/performance.md and README.md rewritten between their bench:all markers");
}
