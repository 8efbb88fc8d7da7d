import fs from "node:fs";
import path from "node:path";
import puppeteer from "puppeteer-core";
import * as client from "@vessel/client";

/**
 * Runs clients/scenarios.json with the TypeScript client: the same file the Python client's runner
 * (clients/python/tests/scenario_runner.py) follows, so both clients are held to the same behaviour.
 * The format is described in the file's `about`; names there are Python's, turned into camelCase here.
 */

export interface Scenario {
  name: string;
  steps: Step[];
}
type Step = Record<string, unknown> & { save?: string; expect?: unknown; raises?: string; error?: unknown };

export const scenariosPath = path.resolve(import.meta.dirname, "../../clients/scenarios.json");
const file = JSON.parse(fs.readFileSync(scenariosPath, "utf8")) as {
  scenarios: Scenario[];
  matcher_checks: Array<{ expected: unknown; actual: unknown; ok: boolean }>;
};
export const scenarios = file.scenarios;
/** Cases both runners' matchers must decide alike. */
export const matcherChecks = file.matcher_checks;

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const MISSING = Symbol("missing");

export async function harness(base: string, action: string, args: unknown = {}): Promise<unknown> {
  const answer = await fetch(`${base}/${action}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(args) });
  if (!answer.ok) throw new Error(`harness ${action}: ${answer.status} ${await answer.text()}`);
  return answer.json();
}

/** Every way `actual` fails `expected` (the matcher language of clients/scenarios.json). */
export function mismatches(expected: unknown, actual: unknown, at = "$"): string[] {
  const show = (v: unknown) => (v === MISSING ? "nothing" : JSON.stringify(v));
  if (isObject(expected) && Object.keys(expected).some((k) => k.startsWith("$"))) {
    return Object.entries(expected).flatMap(([op, arg]) => operator(op, arg, actual, at));
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return [`${at}: expected an object, got ${show(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => mismatches(v, k in actual ? actual[k] : MISSING, `${at}.${k}`));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected a list, got ${show(actual)}`];
    if (actual.length !== expected.length) return [`${at}: expected ${expected.length} items, got ${actual.length}: ${show(actual)}`];
    return expected.flatMap((e, i) => mismatches(e, actual[i], `${at}[${i}]`));
  }
  return expected === actual ? [] : [`${at}: expected ${show(expected)}, got ${show(actual)}`];
}

function operator(op: string, arg: unknown, actual: unknown, at: string): string[] {
  const show = JSON.stringify(actual);
  switch (op) {
    case "$match":
      return typeof actual === "string" && new RegExp(String(arg)).test(actual) ? [] : [`${at}: ${show} does not match /${String(arg)}/`];
    case "$gt":
    case "$gte":
    case "$lt": {
      const n = Number(arg);
      const ok = typeof actual === "number" && (op === "$gt" ? actual > n : op === "$gte" ? actual >= n : actual < n);
      return ok ? [] : [`${at}: ${show} is not ${op.slice(1)} ${n}`];
    }
    case "$not":
      return mismatches(arg, actual).length === 0 ? [`${at}: expected anything but ${JSON.stringify(arg)}`] : [];
    case "$len":
      return Array.isArray(actual) || typeof actual === "string" ? mismatches(arg, actual.length, `${at}.length`) : [`${at}: ${show} has no length`];
    case "$contains":
      return Array.isArray(actual) && actual.some((item) => mismatches(arg, item).length === 0)
        ? []
        : [`${at}: no item matches ${JSON.stringify(arg)} in ${show}`];
    case "$unique": {
      const keys = Array.isArray(actual) ? actual.map((item) => (item as Record<string, unknown>)[String(arg)]) : null;
      return keys && new Set(keys).size === keys.length ? [] : [`${at}: ${String(arg)} values repeat in ${JSON.stringify(keys)}`];
    }
    case "$all":
      return (arg as unknown[]).flatMap((each) => mismatches(each, actual, at));
    default:
      throw new Error(`Unknown matcher ${op}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Results as the wire has them: undefined (a 204) is null, bytes are their length. */
function plain(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof ArrayBuffer || value instanceof Uint8Array) return { byte_length: value.byteLength };
  return JSON.parse(JSON.stringify(value)) as unknown;
}

export class ScenarioRunner {
  private readonly saved: Record<string, unknown> = {};
  private readonly clients: Record<string, client.Vessel>;

  constructor(
    private readonly harnessUrl: string,
    private readonly setup: { base_url: string; keys: Record<string, string> },
  ) {
    this.clients = { default: new client.Vessel({ apiKey: setup.keys.primary, baseUrl: setup.base_url }) };
  }

  resolve(value: unknown): unknown {
    if (typeof value === "string" && value.startsWith("$")) {
      const [name, ...parts] = value.slice(1).split(".");
      return parts.reduce<unknown>((found, part) => (found as Record<string, unknown>)[part], this.saved[name!]);
    }
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (isObject(value) && Object.keys(value).join() === "$utf8") return new TextEncoder().encode(String(value.$utf8));
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
    return value;
  }

  async run(scenario: Scenario): Promise<void> {
    try {
      for (const [index, step] of scenario.steps.entries()) {
        try {
          await this.step(step);
        } catch (err) {
          throw new Error(`step ${index + 1} ${JSON.stringify(step).slice(0, 300)}: ${(err as Error).message}`);
        }
      }
    } finally {
      await harness(this.harnessUrl, "release_all");
    }
  }

  private async step(step: Step): Promise<void> {
    const started = Date.now();
    const spec = step.while as { harness: string; args?: unknown } | undefined;
    const background = spec ? harness(this.harnessUrl, spec.harness, this.resolve(spec.args ?? {})) : undefined;
    let result: unknown = null;
    let error: unknown;
    try {
      result = plain(await this.perform(step));
    } catch (err) {
      if (!(err instanceof client.VesselError)) throw err;
      error = err;
    } finally {
      await background;
    }
    const elapsedMs = Date.now() - started;
    if (step.raises) this.expectError(step, error);
    else if (error) throw new Error(`raised ${(error as Error).name}: ${(error as Error).message}`);
    const failures = [
      ...("expect" in step ? mismatches(this.resolve(step.expect), result) : []),
      ...("elapsed_ms" in step ? mismatches(step.elapsed_ms, elapsedMs, "elapsed_ms") : []),
    ];
    if (failures.length) throw new Error(failures.join("; "));
    if (step.save) this.saved[step.save] = result;
  }

  private async perform(step: Step): Promise<unknown> {
    if (typeof step.harness === "string") return harness(this.harnessUrl, step.harness, this.resolve(step.args ?? {}));
    if (typeof step.connect === "string") {
      const browser = await puppeteer.connect({ browserWSEndpoint: String(this.resolve(step.connect)), protocolTimeout: 15_000 });
      try {
        return { product: await browser.version() };
      } finally {
        await browser.disconnect();
      }
    }
    if (typeof step.call === "string") {
      const [area, method] = step.call.split(".") as [string, string];
      const target = (
        this.clients[(step.client as string | undefined) ?? "default"] as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>
      )[area]!;
      const args = this.resolve(step.args ?? []) as unknown[];
      const options = step.options ? Object.fromEntries(Object.entries(this.resolve(step.options) as object).map(([k, v]) => [camel(k), v])) : undefined;
      const value = await target[camel(method)]!.call(target, ...args, ...(options ? [options] : []));
      if (!step.collect) return value;
      const items: unknown[] = [];
      for await (const item of value as AsyncIterable<unknown>) items.push(item);
      return items;
    }
    if (typeof step.client === "string") {
      const retry = Object.fromEntries(Object.entries((step.retry as object | undefined) ?? {}).map(([k, v]) => [camel(k), v]));
      const baseUrl = step.base_url ? String(this.resolve(step.base_url)) : this.setup.base_url;
      this.clients[step.client] = new client.Vessel({ apiKey: this.setup.keys[String(step.key)] ?? "", baseUrl, retry });
      return null;
    }
    throw new Error(`Unknown step ${JSON.stringify(step)}`);
  }

  private expectError(step: Step, error: unknown): void {
    const wanted = (client as unknown as Record<string, new (...a: never[]) => Error>)[step.raises!];
    if (!wanted || !(error instanceof wanted))
      throw new Error(`expected ${step.raises}, got ${error ? `${(error as Error).name}: ${(error as Error).message}` : "no error"}`);
    const e = error as unknown as Record<string, unknown>;
    const seen = { status: e.status ?? null, slug: e.slug ?? null, field: e.field ?? null, retry_after: e.retryAfter ?? null, message: error.message };
    const failures = mismatches(this.resolve(step.error ?? {}), seen, "error");
    if (failures.length) throw new Error(failures.join("; "));
  }
}
