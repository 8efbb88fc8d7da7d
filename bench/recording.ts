// What a session recording costs: CPU and bytes per minute of recording for a still page and for a
// page animating at 60 fps (requestAnimationFrame), each against the same session unrecorded, and
// the lifecycle (create, release, video ready) with recording on vs off. Medians over several runs;
// loopback only; the jailed ffmpeg as in production (bubblewrap where the node can jail). Never part
// of the tests.
//
//   npm run bench:recording
//   BENCH_RECORDING_RUNS=3        runs per figure
//   BENCH_RECORDING_SECONDS=30    how long each measured session shows its page
//   BENCH_RECORDING_LIFECYCLES=8  sessions per side of the lifecycle comparison
//
// CPU is read from /proc while the page is shown (the client disconnected, so the node serves
// nothing else): the node process, the session's Chromium (its process group) and ffmpeg (the
// process groups of the ffmpeg processes, bwrap included), in CPU seconds per minute of recording.
// "recording adds" is on minus off for the node and Chromium (the screencast), plus ffmpeg.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import puppeteer from "puppeteer-core";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";

const runs = Math.max(1, Number(process.env.BENCH_RECORDING_RUNS ?? 3));
const seconds = Math.max(5, Number(process.env.BENCH_RECORDING_SECONDS ?? 30));
const lifecycles = Math.max(2, Number(process.env.BENCH_RECORDING_LIFECYCLES ?? 8));
const TICKS = 100; // USER_HZ on Linux

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));

/** Every process: its group, name and CPU ticks so far. */
function processes(): Array<{ pid: number; pgid: number; comm: string; ticks: number }> {
  const out = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({ pid: Number(entry), pgid: Number(fields[2]), comm, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
const groupSeconds = (pgids: Set<number>) =>
  processes()
    .filter((p) => pgids.has(p.pgid))
    .reduce((sum, p) => sum + p.ticks, 0) / TICKS;
const ffmpegGroups = () =>
  new Set(
    processes()
      .filter((p) => p.comm === "ffmpeg")
      .map((p) => p.pgid),
  );
const nodeSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const PAGES = {
  still: `<!doctype html><title>still</title><style>body{font:16px sans-serif;margin:40px;background:#f4f1ea}</style>
<h1>A still page</h1><p>${"Nothing here moves once it has loaded. ".repeat(60)}</p>`,
  animated: `<!doctype html><title>animated</title><style>html,body{margin:0;height:100%}#c{width:100%;height:100%}</style>
<canvas id="c"></canvas><script>
const c = document.getElementById("c"), g = c.getContext("2d");
function frame(t) {
  c.width = innerWidth; c.height = innerHeight;
  for (let i = 0; i < 24; i++) { g.fillStyle = "hsl(" + ((t / 10 + i * 15) % 360) + ",70%,50%)"; g.fillRect((i * 97 + t / 5) % c.width, (i * 53) % c.height, 120, 120); }
  g.fillStyle = "#000"; g.font = "32px sans-serif"; g.fillText(String(Math.round(t)), 20, 50);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
</script>`,
};

async function site(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(req.url === "/animated" ? PAGES.animated : PAGES.still);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface Sample {
  node: number;
  chromium: number;
  ffmpeg: number;
  bytesPerMinute: number;
  bytes: number;
  seconds: number;
}

async function api(t: TestApp, key: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method,
    headers: { ...bearer(key), "content-type": "application/json", ...(method === "POST" ? { "idempotency-key": randomUUID() } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

async function untilReady(t: TestApp, key: string, id: string): Promise<void> {
  for (;;) {
    const status = (await api(t, key, "GET", `/v1/sessions/${id}/recording`)).status;
    if (status === 200) return;
    if (status !== 409) throw new Error(`recording of ${id}: ${status}`);
    await sleep(50);
  }
}

/** One session showing `page` for `seconds`; CPU seconds per minute of it, and the video's bytes per minute. */
async function measure(t: TestApp, key: string, url: string, recording: boolean): Promise<Sample> {
  const created = (await (await api(t, key, "POST", "/v1/sessions", { region: "us-east1", recording })).json()) as { id: string; connect_url: string };
  const browser = await puppeteer.connect({ browserWSEndpoint: created.connect_url });
  const [tab] = await browser.pages();
  await tab!.goto(url);
  await browser.disconnect();
  await sleep(1000); // the page settles, the encoder starts
  const chromium = new Set([t.app.deps.runtime.endpoint(created.id)!.pid]);
  const ffmpeg = ffmpegGroups();
  const before = { node: nodeSeconds(), chromium: groupSeconds(chromium), ffmpeg: groupSeconds(ffmpeg) };
  await sleep(seconds * 1000);
  const after = { node: nodeSeconds(), chromium: groupSeconds(chromium), ffmpeg: groupSeconds(ffmpeg) };
  await api(t, key, "PATCH", `/v1/sessions/${created.id}`, { status: "REQUEST_RELEASE" });
  let video = { bytesPerMinute: 0, bytes: 0, seconds: 0 };
  if (recording) {
    await untilReady(t, key, created.id);
    const row = await t.app.deps.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: created.id } });
    video = { bytesPerMinute: (row.sizeBytes! / row.durationMs!) * 60_000, bytes: row.sizeBytes!, seconds: row.durationMs! / 1000 };
  }
  const perMinute = 60 / seconds;
  return {
    node: (after.node - before.node) * perMinute,
    chromium: (after.chromium - before.chromium) * perMinute,
    ffmpeg: (after.ffmpeg - before.ffmpeg) * perMinute,
    ...video,
  };
}

/** Until the pool holds a warm spare and runs nothing (both sides start alike). */
async function settled(t: TestApp): Promise<void> {
  while (t.app.deps.browsers.report().warm < 1 || t.app.deps.runtime.ids().length > 0) await sleep(20);
}

/** Create → a page → release, and (recording) until the video is ready: times and the node's CPU per session. */
async function lifecycle(t: TestApp, key: string, url: string, recording: boolean) {
  await settled(t);
  const cpu0 = nodeSeconds();
  const t0 = performance.now();
  const created = (await (await api(t, key, "POST", "/v1/sessions", { region: "us-east1", recording })).json()) as { id: string; connect_url: string };
  const create = performance.now() - t0;
  const browser = await puppeteer.connect({ browserWSEndpoint: created.connect_url });
  const [tab] = await browser.pages();
  await tab!.goto(url);
  await browser.disconnect();
  const t1 = performance.now();
  await api(t, key, "PATCH", `/v1/sessions/${created.id}`, { status: "REQUEST_RELEASE" });
  const release = performance.now() - t1;
  if (recording) await untilReady(t, key, created.id);
  else while (t.app.deps.runtime.ids().length > 0) await sleep(10);
  return { create, release, ready: performance.now() - t1, cpu: nodeSeconds() - cpu0 };
}

const t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_BROWSER_WARM: "1", LOG_LEVEL: "warn" } });
const page = await site();
try {
  const { key } = await seedWorkspace(t);
  console.log(
    `recording bench: ${runs} runs × ${seconds} s per figure; isolation ${t.app.deps.browsers.isolation.level} (ffmpeg ${t.app.deps.browsers.isolation.level === "jail" ? "jailed" : "unjailed"})\n`,
  );
  for (const kind of ["still", "animated"] as const) {
    const on: Sample[] = [];
    const off: Sample[] = [];
    for (let i = 0; i < runs; i++) {
      // Alternating, so drift in the machine's load falls on both sides.
      off.push(await measure(t, key, `${page.url}/${kind}`, false));
      on.push(await measure(t, key, `${page.url}/${kind}`, true));
    }
    const m = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
    const adds = m(on, "node") - m(off, "node") + (m(on, "chromium") - m(off, "chromium")) + m(on, "ffmpeg");
    console.log(`${kind} page (CPU seconds per minute of recording, medians of ${runs}):`);
    console.log(`  node          on ${m(on, "node").toFixed(2).padStart(6)}   off ${m(off, "node").toFixed(2).padStart(6)}`);
    console.log(`  chromium      on ${m(on, "chromium").toFixed(2).padStart(6)}   off ${m(off, "chromium").toFixed(2).padStart(6)}`);
    console.log(`  ffmpeg        on ${m(on, "ffmpeg").toFixed(2).padStart(6)}`);
    console.log(`  recording adds ${adds.toFixed(2)} CPU s/min (${((adds / 60) * 100).toFixed(1)} % of one core)`);
    console.log(
      `  video         ${(m(on, "bytesPerMinute") / 1024 / 1024).toFixed(2)} MiB per minute (${Math.round(m(on, "bytesPerMinute") / 1024)} KiB; ${Math.round(m(on, "bytes") / 1024)} KiB for ${m(on, "seconds").toFixed(1)} s)\n`,
    );
  }
  const sides = { off: [] as Awaited<ReturnType<typeof lifecycle>>[], on: [] as Awaited<ReturnType<typeof lifecycle>>[] };
  await lifecycle(t, key, `${page.url}/still`, true); // warm-up
  for (let i = 0; i < lifecycles; i++) {
    sides.off.push(await lifecycle(t, key, `${page.url}/still`, false));
    sides.on.push(await lifecycle(t, key, `${page.url}/still`, true));
  }
  console.log(`lifecycle (create → a page → release), medians of ${lifecycles}:`);
  for (const side of ["off", "on"] as const) {
    const xs = sides[side];
    console.log(
      `  recording ${side.padEnd(3)}  create ${median(xs.map((x) => x.create))
        .toFixed(0)
        .padStart(4)} ms   release ${median(xs.map((x) => x.release))
        .toFixed(0)
        .padStart(4)} ms` +
        `   ${side === "on" ? "video ready" : "browser gone"} ${median(xs.map((x) => x.ready))
          .toFixed(0)
          .padStart(5)} ms after release   node CPU ${(median(xs.map((x) => x.cpu)) * 1000).toFixed(0)} ms`,
    );
  }
} finally {
  await page.close();
  await t.stop();
}
