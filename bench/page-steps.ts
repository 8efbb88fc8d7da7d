// Where a session's pages lose time against a browser driven directly: one running session in each
// of two Vessel apps (A and B, configured apart by BENCH_STEPS_A / BENCH_STEPS_B, e.g.
// `VESSEL_LOGS=false` or `VESSEL_BROWSER_JAIL=off`) and a reference Chromium (the pool's flags,
// its own DevTools WebSocket, unjailed, no egress listener), side by side: rounds of new page →
// goto (a small page on loopback, a new connection each time) → evaluate → close through
// puppeteer-core, the three sides' order rotating each round. Prints each step's p50 on each side
// and its difference to the reference, plus Chromium's own connect and first-byte times of the
// load. Both apps run in this process, the client in a child (bench/page-steps-client.ts).
// Loopback only; everything is closed at the end.
//
//   npx tsx bench/page-steps.ts
//   BENCH_STEPS_A="" BENCH_STEPS_B="VESSEL_LOGS=false"   comma-separated NAME=value pairs for each app
//   BENCH_STEPS_ROUNDS=10 BENCH_STEPS_PER_ROUND=6
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findChromium } from "../src/browser/launch/command.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import type { StepsReply, StepsRequest } from "./page-steps-client.ts";
import { launchReference } from "./reference-chromium.ts";
import { f, median, num, pad } from "./support.ts";

const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const rounds = num("BENCH_STEPS_ROUNDS", 10);
const perRound = num("BENCH_STEPS_PER_ROUND", 6);
const specs = { A: process.env.BENCH_STEPS_A ?? "", B: process.env.BENCH_STEPS_B ?? "VESSEL_LOGS=false" };

/** An app with one running session: its connect_url. */
async function appWithSession(spec: string): Promise<{ app: TestApp; endpoint: string }> {
  const env: Record<string, string> = {
    VESSEL_BROWSER_WARM: "1",
    VESSEL_BROWSER_CAPACITY: "4",
    VESSEL_CHROMIUM_PATH: executablePath!,
    VESSEL_EGRESS_ALLOW: "127.0.0.1",
  };
  for (const pair of spec.split(",").filter(Boolean)) {
    const [name, ...value] = pair.split("=");
    env[name!.trim()] = value.join("=");
  }
  const app = await startTestApp({ env, checkResponses: false });
  const seeded = await seedWorkspace(app, { rateLimitPerMinute: 100_000_000 });
  const res = await fetch(`${app.url}/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${seeded.key}`, "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({ region: "us-east1" }),
  });
  const session = (await res.json()) as { connect_url?: string };
  if (res.status !== 201 || !session.connect_url) throw new Error(`create answered ${res.status}: ${JSON.stringify(session)}`);
  return { app, endpoint: session.connect_url };
}

const apps = [await appWithSession(specs.A), await appWithSession(specs.B)];
const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bench-steps-"));
const reference = await launchReference({ executablePath, dataRoot, id: "reference" });
const child = fork(new URL("./page-steps-client.ts", import.meta.url), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
try {
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`the client exited (${code})`))));
  exited.catch(() => {}); // raced below; a normal end kills it
  await Promise.race([new Promise((resolve) => child.once("message", resolve)), exited]);
  const ask = (endpoint: string, n: number) =>
    Promise.race([
      new Promise<StepsReply>((resolve) => {
        child.once("message", resolve);
        child.send({ endpoint, rounds: n } satisfies StepsRequest);
      }),
      exited,
    ]);
  const sides: [string, string][] = [
    ["A", apps[0]!.endpoint],
    ["B", apps[1]!.endpoint],
    ["reference", reference.wsEndpoint],
  ];
  const all = new Map<string, StepsReply>();
  for (const [, endpoint] of sides) await ask(endpoint, 2); // warm-up: JIT, the page server, the first tab; discarded
  for (let round = 0; round < rounds; round++) {
    for (const [name, endpoint] of [...sides.slice(round % 3), ...sides.slice(0, round % 3)]) {
      const reply = await ask(endpoint, perRound);
      const into = all.get(name);
      if (!into) all.set(name, reply);
      else for (const key of Object.keys(reply) as (keyof StepsReply)[]) into[key].push(...reply[key]);
    }
  }
  console.log(`page steps, ms (p50 of ${rounds * perRound} each, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)})`);
  console.log(`  A: ${specs.A || "(defaults)"}   B: ${specs.B || "(defaults)"}   reference: a Chromium driven directly`);
  const ref = all.get("reference")!;
  for (const key of Object.keys(ref) as (keyof StepsReply)[]) {
    const [a, b, r] = ["A", "B", "reference"].map((side) => median(all.get(side)![key]));
    console.log(
      `  ${pad(key, 10)} A ${pad(f(a!, 2), 7)} B ${pad(f(b!, 2), 7)} reference ${pad(f(r!, 2), 7)} | A ${f(a! - r!, 2)}, B ${f(b! - r!, 2)} over the reference`,
    );
  }
} finally {
  child.kill();
  await reference.close();
  for (const { app } of apps) await app.stop();
  fs.rmSync(dataRoot, { recursive: true, force: true });
}
