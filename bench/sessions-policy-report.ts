// The verdict half of bench/sessions-policy.ts: what its alternating rounds measured, printed per
// side with the on/off ratios against the goal (issue 17: within 5%), reported as figures for
// bench:all (bench/figures.ts) and returned. Apart from the runner so that one file starts the two
// apps and drives the rounds, and this one judges them.
import { atLeast, atMost } from "./figures.ts";
import type { Scheme } from "./sessions-policy-client.ts";
import { f, median, pct, verdict } from "./support.ts";

export type Side = "on" | "off";
export const SIDES: Side[] = ["on", "off"];
export const label: Record<Side, string> = { on: "policy on ", off: "policy off" };

/** Policy on ÷ off may cost at most 5%. */
const GOAL = 1.05;

export interface PolicyBenchResult {
  rtt: { on: number[]; off: number[]; ratioP50: number; roundRatios: number[] };
  pipelined: { on: number[]; off: number[]; ratio: number; roundRatios: number[] };
  loads: Partial<Record<Scheme, { on: number[]; off: number[]; ratioP50: number; pairRatios: number[] }>>;
  goalMet: boolean;
}

/** Every sample of the rounds, per side, and the on/off ratio of each round (rtt), burst pair (rate) or load pair. */
export interface PolicySamples {
  rtt: Record<Side, number[]>;
  rate: Record<Side, number[]>;
  rttRatios: number[];
  rateRatios: number[];
  load: Record<Scheme, { on: number[]; off: number[]; ratios: number[] }>;
}

/** How the samples were taken, for the section headings. */
export interface PolicyRun {
  rounds: number;
  seq: number;
  pipe: number;
  pipePairs: number;
  loads: number;
  activeSchemes: Scheme[];
}

export function reportPolicy(samples: PolicySamples, run: PolicyRun, print: (line?: string) => void): PolicyBenchResult {
  const { rtt, rate, rttRatios, rateRatios, load } = samples;
  const { rounds, seq, pipe, pipePairs, loads, activeSchemes } = run;
  const ms3 = (x: number) => f(x, 3);
  const list = (xs: number[], digits = 2) => xs.map((x) => f(x, digits)).join(", ");
  print(
    `(a) CDP Runtime.evaluate("1+1") through /cdp on a page session (flat), raw ws client; ${rounds} alternating rounds of ${seq} sequential + ${pipePairs}× ${pipe} pipelined`,
  );
  for (const side of SIDES) {
    print(`  ${label[side]}  round trip n=${rtt[side].length}: p50 ${ms3(median(rtt[side]))} p95 ${ms3(pct(rtt[side], 95))} p99 ${ms3(pct(rtt[side], 99))} ms`);
  }
  const rttRatio = median(rtt.on) / median(rtt.off);
  print(
    `  ratio on/off round trip: p50 ${f(rttRatio, 3)}× (goal ≤ ${GOAL}×: ${verdict(rttRatio <= GOAL)}), p99 ${f(pct(rtt.on, 99) / pct(rtt.off, 99), 2)}×; added p50 ${f((median(rtt.on) - median(rtt.off)) * 1000, 0)} µs`,
  );
  print(`  per-round p50 ratios: ${list(rttRatios)}; median ${f(median(rttRatios), 3)}×`);
  atMost("CDP policy", "on ÷ off: round trip p50", rttRatio, GOAL, "×", `+${f((median(rtt.on) - median(rtt.off)) * 1000, 0)} µs`);
  for (const side of SIDES) {
    print(
      `  ${label[side]}  pipelined msgs/s, ${rate[side].length} bursts: p50 ${Math.round(median(rate[side]))}, quartiles ${Math.round(pct(rate[side], 25))}–${Math.round(pct(rate[side], 75))}`,
    );
  }
  const rateRatio = median(rate.on) / median(rate.off);
  print(`  ratio on/off pipelined throughput: ${f(rateRatio * 100, 1)}% (goal ≥ ${f(100 / GOAL, 1)}%: ${verdict(rateRatio * GOAL >= 1)})`);
  print(
    `  per-pair ratios on/off: median ${f(median(rateRatios) * 100, 1)}%, quartiles ${f(pct(rateRatios, 25) * 100, 0)}–${f(pct(rateRatios, 75) * 100, 0)}%`,
  );
  atLeast("CDP policy", "on ÷ off: pipelined throughput", rateRatio * 100, Math.round(1000 / GOAL) / 10, "%");
  print();

  print(`(b) page load (Page.navigate → Page.loadEventFired, cache disabled), ms; ${rounds} rounds of ${loads} pairs (one load each side, order alternating)`);
  const loadResults: PolicyBenchResult["loads"] = {};
  let loadsMet = true;
  for (const scheme of activeSchemes) {
    const l = load[scheme];
    const via = scheme === "http" ? "plain HTTP through the egress listener, both sides" : "HTTPS through the egress listener, both sides";
    print(`  ${scheme} (${via})`);
    for (const side of SIDES) {
      print(`    ${label[side]}  n=${l[side].length}: p50 ${f(median(l[side]), 2)} p95 ${f(pct(l[side], 95), 2)} min ${f(Math.min(...l[side]), 2)} ms`);
    }
    const ratio = median(l.on) / median(l.off);
    loadsMet &&= ratio <= GOAL;
    print(
      `    ratio on/off p50 ${f(ratio, 3)}× (goal ≤ ${GOAL}×: ${verdict(ratio <= GOAL)}), p95 ${f(pct(l.on, 95) / pct(l.off, 95), 2)}×; added p50 ${f(median(l.on) - median(l.off), 2)} ms`,
    );
    print(`    per-pair ratios on/off: median ${f(median(l.ratios), 3)}×, quartiles ${f(pct(l.ratios, 25), 2)}–${f(pct(l.ratios, 75), 2)}×`);
    loadResults[scheme] = { on: l.on, off: l.off, ratioP50: ratio, pairRatios: l.ratios };
    atMost("CDP policy", `on ÷ off: page load p50, ${scheme}`, ratio, GOAL, "×", `${f(median(l.on), 1)} vs ${f(median(l.off), 1)} ms`);
  }
  const goalMet = rttRatio <= GOAL && rateRatio * GOAL >= 1 && loadsMet;
  print(`  overall (round trip p50, pipelined rate, page-load p50 within ${f((GOAL - 1) * 100, 0)}%): ${verdict(goalMet)}`);
  print();
  return {
    rtt: { on: rtt.on, off: rtt.off, ratioP50: rttRatio, roundRatios: rttRatios },
    pipelined: { on: rate.on, off: rate.off, ratio: rateRatio, roundRatios: rateRatios },
    loads: loadResults,
    goalMet,
  };
}
