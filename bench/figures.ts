// The figures a bench hands to `npm run bench:all` (bench/all.ts): one stdout line each,
// `BENCH-FIGURE {json}`, which the bench's own human-readable output may surround freely. A bench
// run alone prints them too (they are short), so its figures can be collected from any log.

export interface Figure {
  /** The table's section: "CDP relay", "Lifecycle", "Live view", … */
  group: string;
  /** What is measured, with its ratio's terms: "round trip p50 ÷ direct". */
  name: string;
  value: number;
  /** "×", "%", "ms", "fps", "KiB", … */
  unit: string;
  /** The goal as words ("≤ 1.25×"); omitted for a figure shown for reference only. */
  goal?: string;
  /** Whether the goal holds; omitted with the goal. */
  pass?: boolean;
  /** The raw figures behind a ratio: "0.44 vs 0.36 ms". */
  detail?: string;
}

export const FIGURE_PREFIX = "BENCH-FIGURE ";

/** Prints one figure for bench:all (see above); NaN and ±Infinity are printed as null. */
export function reportFigure(figure: Figure): void {
  const value = Number.isFinite(figure.value) ? Math.round(figure.value * 1000) / 1000 : null;
  console.log(FIGURE_PREFIX + JSON.stringify({ ...figure, value }));
}

/** Reads a figure line back (bench/all.ts); undefined for any other line. */
export function parseFigure(line: string): (Omit<Figure, "value"> & { value: number | null }) | undefined {
  const at = line.indexOf(FIGURE_PREFIX);
  if (at === -1) return undefined;
  try {
    const figure = JSON.parse(line.slice(at + FIGURE_PREFIX.length)) as Figure;
    return typeof figure.group === "string" && typeof figure.name === "string" ? figure : undefined;
  } catch {
    return undefined;
  }
}

/** A ratio figure against an upper bound: `value ≤ bound` passes. */
export function atMost(group: string, name: string, value: number, bound: number, unit: string, detail?: string): void {
  reportFigure({ group, name, value, unit, goal: `≤ ${bound}${unit}`, pass: value <= bound, ...(detail ? { detail } : {}) });
}

/** A figure against a lower bound: `value ≥ bound` passes. */
export function atLeast(group: string, name: string, value: number, bound: number, unit: string, detail?: string): void {
  reportFigure({ group, name, value, unit, goal: `≥ ${bound}${unit}`, pass: value >= bound, ...(detail ? { detail } : {}) });
}
