// What browser settings at create (viewport, user agent, locale, timezone, geolocation) cost the
// session lifecycle (create → connect → new page → goto → release, puppeteer-core, warm spare), side
// by side with the same lifecycle without them, alternating so drift cancels. Loopback only, bounded.
// Goal (issue: sessions shaped to the job): with settings ≤ 1.05× without.
//
//   npm run bench:browser-settings        BENCH_ITERATIONS=24 (per variant)
import os from "node:os";
import { findChromium } from "../src/browser/launch/command.ts";
import { createLogger } from "../src/logger.ts";
import { seedWorkspace, startTestApp } from "../test/support/app.ts";
import type { Phases } from "./sessions-client.ts";
import { call, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { f, median, num, pct, verdict } from "./support.ts";

const iterations = num("BENCH_ITERATIONS", 24);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found");
const settings = {
  viewport: { width: 1280, height: 800 },
  user_agent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
  locale: "de-CH",
  timezone: "Europe/Zurich",
  geolocation: { latitude: 47.37, longitude: 8.54 },
};

const t = await startTestApp({
  env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "4", VESSEL_CHROMIUM_PATH: executablePath },
  checkResponses: false,
  log: createLogger("warn"),
});
try {
  const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
  const api = { baseUrl: t.url, key: seeded.key };
  startClient();
  await call("init", { executablePath });
  const settle = async () => {
    while (t.app.deps.browsers.report().warm < 1) await sleep(10);
    await sleep(150);
  };
  const runs: Record<"plain" | "settings", Phases[]> = { plain: [], settings: [] };
  // One of each first, not counted: the first page load of a process is slower.
  for (const body of [{}, { browser: settings }]) {
    await settle();
    await call("lifecycleVessel", { ...api, body });
  }
  for (let i = 0; i < iterations; i++) {
    for (const variant of (i % 2 === 0 ? ["plain", "settings"] : ["settings", "plain"]) as Array<keyof typeof runs>) {
      await settle();
      runs[variant].push(await call("lifecycleVessel", { ...api, body: variant === "settings" ? { browser: settings } : {} }));
    }
  }
  console.log(
    `browser settings bench — ${executablePath}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}, ${iterations} per variant, warm spare`,
  );
  for (const [name, list] of Object.entries(runs)) {
    const steps = (["obtain", "connect", "newPage", "goto", "release"] as const).map((k) => `${k} ${f(median(list.map((p) => p[k])))}`).join(", ");
    console.log(
      `  ${name.padEnd(9)} p50 ${f(median(list.map((p) => p.total)))} p95 ${f(
        pct(
          list.map((p) => p.total),
          95,
        ),
      )} ms | ${steps}`,
    );
  }
  const ratio = median(runs.settings.map((p) => p.total)) / median(runs.plain.map((p) => p.total));
  const perPair = median(runs.settings.map((p, i) => p.total / runs.plain[i]!.total));
  console.log(`  with settings / without, p50: ${f(ratio, 3)}× (per-pair median ${f(perPair, 3)}×) (goal ≤ 1.05×: ${verdict(ratio <= 1.05)})`);
} finally {
  await stopClient();
  await t.stop();
}
