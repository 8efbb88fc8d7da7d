// The relay host's cost on a quiet node (docs/performance.md, "The relay host"): two apps in this
// process, one per VESSEL_CDP_RELAY (`process`: the relay host; `inline`: the node's main thread),
// each with one warm spare; the client (bench/sessions-client.ts, a process of its own) runs the
// lifecycle create → connect → newPage → goto → release on each in alternate iterations, and then
// sequential Runtime.evaluate round trips on a session of each. Prints the median of every step,
// and each app's own time for its POST and PATCH (request to response written). Loopback only;
// never part of the tests.
//
//   npx tsx bench/relay-modes.ts   BENCH_MODES_N=16   BENCH_MODES_LOGS=false (the session logs off)
import { findChromium } from "../src/browser/launch/command.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";
import { call, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { f, median, num, pct } from "./support.ts";

const n = num("BENCH_MODES_N", 16);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const modes = ["process", "inline"] as const;
type Mode = (typeof modes)[number];
const apps = {} as Record<Mode, TestApp>;
const apis = {} as Record<Mode, { baseUrl: string; key: string }>;
const serverMs = { process: {}, inline: {} } as Record<Mode, Record<string, number[]>>;

try {
  for (const mode of modes) {
    const env: Record<string, string> = {
      VESSEL_BROWSER_WARM: "1",
      VESSEL_BROWSER_CAPACITY: "4",
      VESSEL_CHROMIUM_PATH: executablePath,
      VESSEL_CDP_RELAY: mode,
    };
    if (process.env.BENCH_MODES_LOGS) env.VESSEL_LOGS = process.env.BENCH_MODES_LOGS;
    const t = (apps[mode] = await startTestApp({ env, checkResponses: false }));
    apis[mode] = { baseUrl: t.url, key: (await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 })).key };
    t.app.server.prependListener("request", (req, res) => {
      const started = performance.now();
      const kind = `${req.method} ${req.url?.startsWith("/v1/sessions/") ? "/v1/sessions/{id}" : req.url}`;
      res.once("finish", () => (serverMs[mode][kind] ??= []).push(performance.now() - started));
    });
  }
  startClient();
  await call("init", { executablePath });
  const settle = async () => {
    for (const t of Object.values(apps)) while (t.app.deps.browsers.report().warm < 1) await sleep(10);
    await sleep(300);
  };
  const steps = { process: [], inline: [] } as Record<Mode, Record<string, number>[]>;
  for (let i = -2; i < n; i++) {
    for (const mode of i % 2 === 0 ? modes : [...modes].reverse()) {
      await settle();
      const phases = (await call("lifecycleVessel", apis[mode])) as unknown as Record<string, number>;
      if (i >= 0) steps[mode].push(phases); // the first two of each warm up
    }
  }
  for (const mode of modes) for (const list of Object.values(serverMs[mode])) list.splice(0, 2);
  const rtt = { process: [], inline: [] } as Record<Mode, number[]>;
  const sessions = {} as Record<Mode, string>;
  for (const mode of modes) {
    const { id, connectUrl } = await call("createSession", apis[mode]);
    sessions[mode] = id;
    await call("cdpOpen", { name: mode, url: connectUrl });
  }
  for (let r = 0; r < 6; r++) for (const mode of r % 2 ? modes : [...modes].reverse()) rtt[mode].push(...(await call("cdpSeq", { name: mode, n: 300 })));
  await call("cdpClose", {});
  for (const mode of modes) await call("releaseSession", { ...apis[mode], id: sessions[mode] });

  console.log(`relay modes, ${n} lifecycles each, session logs ${apps.process.app.deps.config.logs.enabled ? "on" : "off"} (medians, ms)`);
  for (const mode of modes) {
    const keys = Object.keys(steps[mode][0] ?? {});
    console.log(`  ${mode.padEnd(8)} ${keys.map((k) => `${k} ${f(median(steps[mode].map((s) => s[k]!)), 2)}`).join(", ")}`);
    console.log(
      `  ${"".padEnd(8)} the app's own time: ${Object.entries(serverMs[mode])
        .map(([k, v]) => `${k} ${f(median(v), 2)}`)
        .join(", ")}`,
    );
    console.log(`  ${"".padEnd(8)} round trip p50 ${f(median(rtt[mode]), 3)}, p90 ${f(pct(rtt[mode], 90), 3)}`);
  }
  const total = (mode: Mode) => median(steps[mode].map((s) => s.total!));
  console.log(`  lifecycle total, process ÷ inline: ${f(total("process") / total("inline"), 3)}×`);
} finally {
  await stopClient();
  for (const t of Object.values(apps)) await t.stop();
}
process.exit(0);
