// The node's own cost of a session's create and release, each alone: a warm spare ready before each
// create, the release a moment after (no client connects). Prints the node's CPU per create and per
// release (process.cpuUsage over each call's window; the refill and the browser's close that follow
// a release are outside both windows) and the calls' wall p50 as the client sees them. The server
// runs in this process, the client in a child (bench/sessions-client.ts). Loopback only.
//
//   npx tsx bench/create-release.ts
//   BENCH_CR_N=30                 creates and releases
//   BENCH_CPU_PROFILE_DIR=dir     keep V8's profile of the whole run (bench/cpu-profile.ts)
import { findChromium } from "../src/browser/launch/command.ts";
import { seedWorkspace, startTestApp } from "../test/support/app.ts";
import { startCpuProfile } from "./cpu-profile.ts";
import { call, sleep, startClient, stopClient } from "./sessions-harness.ts";
import { f, median, num } from "./support.ts";

const n = num("BENCH_CR_N", 30);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "2", VESSEL_BROWSER_CAPACITY: "10", VESSEL_CHROMIUM_PATH: executablePath }, checkResponses: false });
try {
  const seeded = await seedWorkspace(t, { rateLimitPerMinute: 100_000_000 });
  const api = { baseUrl: t.url, key: seeded.key };
  startClient();
  await call("init", { executablePath });
  const settle = async () => {
    while (t.app.deps.browsers.report().warm < 2) await sleep(10);
    await sleep(300);
  };
  /** The node's CPU (ms) and the wall time (ms) of one call. */
  const measured = async <T>(run: () => Promise<T>) => {
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const result = await run();
    const wall = performance.now() - wall0;
    const cpu = process.cpuUsage(cpu0);
    return { result, wall, cpu: (cpu.user + cpu.system) / 1000 };
  };
  // Warm-up: the first calls compile code paths and, on the embedded database, prepare statements.
  for (let i = 0; i < 3; i++) {
    await settle();
    const s = await call("createSession", api);
    await call("releaseSession", { ...api, id: s.id });
  }
  const creates = { cpu: [] as number[], wall: [] as number[] };
  const releases = { cpu: [] as number[], wall: [] as number[] };
  const profile = process.env.BENCH_CPU_PROFILE_DIR ? await startCpuProfile() : undefined;
  for (let i = 0; i < n; i++) {
    await settle();
    const created = await measured(() => call("createSession", api));
    creates.cpu.push(created.cpu), creates.wall.push(created.wall);
    await sleep(300);
    const released = await measured(() => call("releaseSession", { ...api, id: created.result.id }));
    releases.cpu.push(released.cpu), releases.wall.push(released.wall);
  }
  await profile?.stop("create-release");
  console.log(`create:  node CPU p50 ${f(median(creates.cpu), 2)} ms, wall p50 ${f(median(creates.wall), 2)} ms (n=${n})`);
  console.log(`release: node CPU p50 ${f(median(releases.cpu), 2)} ms, wall p50 ${f(median(releases.wall), 2)} ms (n=${n})`);
} finally {
  await stopClient();
  await t.stop();
}
process.exit(0);
