// Issue 44, density: memory (PSS) per session and sessions per GiB, side by side in one run.
// Each variant launches N browsers at once, as the pool does (chromiumArgs(), the pipe, the pool's
// warm-up), opens a client's page in each (about:blank, or a fixture page with 2 MB of JavaScript
// served on loopback), waits for it to settle, and sums PSS (/proc/<pid>/smaps_rollup) over every
// browser's process group. Variants, interleaved round by round (the order rotates):
//   shipped         the pool's flags as they are
//   in-process-gpu  + --in-process-gpu (the GPU process's work on a thread of the browser process;
//                   headless, --disable-gpu: it only composites in software). Site isolation, the
//                   renderer sandbox and the jail are untouched: only the GPU process goes.
//   pressure        shipped, then a critical memory-pressure signal (Memory.simulatePressureNotification
//                   on the browser: every process drops caches and collects) before measuring
//   v8-small        + --js-flags=--optimize-for-size --max-semi-space-size=1 (V8 favours size over speed)
//   network-in-process + NetworkServiceInProcess (measured only: it takes the network service out of its
//                   own sandboxed process, a layer the jail does not replace)
//   no-zygote       + --no-zygote: each child process started on its own instead of forked from the zygote
//                   (the zygote exists for the renderer sandbox, off as root, where chromiumArgs adds
//                   --no-sandbox; where the sandbox is on Chromium needs it)
//   lean            in-process-gpu + no-zygote
//   browserless     one browser per connection as browserless runs it: full Chromium (new headless),
//                   puppeteer's default flags, no spare
// Sessions per GiB = (1024 MiB − the spares' PSS) ÷ PSS per session, with VESSEL_BROWSER_WARM spares
// (default 1) of the idle kind; browserless keeps none. Never part of the tests.
//
//   npx tsx bench/density.ts   BENCH_DENSITY_N=4 BENCH_DENSITY_ROUNDS=3 BENCH_DENSITY_WARM=1
//   BENCH_DENSITY_VARIANTS=shipped,in-process-gpu,pressure,browserless  BENCH_DENSITY_PAGES=blank,fixture
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { commaList } from "../src/comma-list.ts";
import { CdpPipe } from "../src/browser/cdp/pipe/pipe.ts";
import { chromiumArgs, chromiumEnv, findChromium } from "../src/browser/launch/command.ts";
import { liveGroupMembers, signalGroup } from "../src/browser/launch/processes.ts";
import { warmUpProfile } from "../src/browser/pool/warm-up.ts";
import { PUPPETEER_ARGS } from "./browserless-args.ts";
import { atLeast, reportFigure } from "./figures.ts";
import { BenchCdp, f, median, num } from "./support.ts";

const n = num("BENCH_DENSITY_N", 4);
const rounds = num("BENCH_DENSITY_ROUNDS", 3);
const warm = num("BENCH_DENSITY_WARM", 1);
const SETTLE_MS = num("BENCH_DENSITY_SETTLE_MS", 2000);
const shell = findChromium(process.env.BENCH_CHROMIUM);
if (!shell) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const full = findChromium(process.env.BENCH_FULL_CHROMIUM ?? "/usr/lib/chromium/chromium") ?? shell;
const GROUP = "Density";

/** V8 sized for memory over speed: a smaller young generation, and size-favouring heuristics. */
const V8_SMALL = "--js-flags=--optimize-for-size --max-semi-space-size=1";
/** The network service on a thread of the browser process instead of a sandboxed utility process of its own. */
const NETWORK_IN_PROCESS = "--enable-features=NetworkServiceInProcess";

interface Variant {
  executable: string;
  args(profile: string): string[];
  pressure?: boolean;
  warmUp: boolean;
  spares: number;
}
const variants: Record<string, Variant> = {
  shipped: { executable: shell, args: (p) => chromiumArgs(shell, p), warmUp: true, spares: warm },
  "in-process-gpu": { executable: shell, args: (p) => chromiumArgs(shell, p, ["--in-process-gpu"]), warmUp: true, spares: warm },
  pressure: { executable: shell, args: (p) => chromiumArgs(shell, p), pressure: true, warmUp: true, spares: warm },
  "v8-small": { executable: shell, args: (p) => chromiumArgs(shell, p, [V8_SMALL]), warmUp: true, spares: warm },
  "network-in-process": { executable: shell, args: (p) => chromiumArgs(shell, p, [NETWORK_IN_PROCESS]), warmUp: true, spares: warm },
  // Only where the renderer sandbox is off already (as root: chromiumArgs adds --no-sandbox); with the sandbox on, Chromium needs its zygote.
  "no-zygote": { executable: shell, args: (p) => chromiumArgs(shell, p, ["--no-zygote"]), warmUp: true, spares: warm },
  lean: { executable: shell, args: (p) => chromiumArgs(shell, p, ["--in-process-gpu", "--no-zygote"]), warmUp: true, spares: warm },
  browserless: {
    executable: full,
    args: (p) => [...PUPPETEER_ARGS, `--user-data-dir=${p}`, ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "about:blank"],
    warmUp: false,
    spares: 0,
  },
};
const chosen = process.env.BENCH_DENSITY_VARIANTS ? commaList(process.env.BENCH_DENSITY_VARIANTS, { dropEmpty: true }) : Object.keys(variants);
const pages = process.env.BENCH_DENSITY_PAGES ? commaList(process.env.BENCH_DENSITY_PAGES, { dropEmpty: true }) : ["blank", "fixture"];

// The fixture: a page whose script is 2 MB of JavaScript that runs (functions defined and called, objects kept).
const FIXTURE_JS = (() => {
  const parts: string[] = ["window.__kept = [];"];
  for (let i = 0; parts.join("\n").length < 2 * 1024 * 1024; i++) {
    const chunk: string[] = [];
    for (let j = 0; j < 200; j++) {
      const k = i * 200 + j;
      chunk.push(`function f${k}(a){var o={k:${k},s:"v${k}-"+a,l:[a,${k},a*${k % 97}]};return o.l.reduce(function(x,y){return x+y},0)+o.s.length}`);
      if (k % 4 === 0) chunk.push(`window.__kept.push({i:${k},v:f${k}(${k}),t:"${"x".repeat(k % 64)}"});`);
    }
    parts.push(chunk.join("\n"));
  }
  return parts.join("\n");
})();
const server = http.createServer((req, res) => {
  if (req.url === "/app.js") {
    res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" });
    return void res.end(FIXTURE_JS);
  }
  res.writeHead(200, { "content-type": "text/html" });
  res.end(`<!doctype html><title>fixture</title><h1>2 MB of JavaScript</h1><script src="/app.js"></script>`);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const fixtureUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

interface Browser {
  pid: number;
  cdp: CdpPipe;
  close(): Promise<void>;
}
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function launch(v: Variant, dir: string): Promise<Browser> {
  for (const sub of ["profile", "home", "config", "cache", "data", "tmp"]) fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
  const child = spawn(v.executable, v.args(path.join(dir, "profile")), {
    cwd: path.join(dir, "home"),
    env: chromiumEnv(dir),
    detached: true,
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
  });
  child.on("error", () => {});
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const cdp = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
  await cdp.call("Browser.getVersion", {}, 15_000);
  if (v.warmUp) await warmUpProfile(cdp);
  return {
    pid: child.pid!,
    cdp,
    close: async () => {
      cdp.write(JSON.stringify({ id: 0, method: "Browser.close" }));
      await Promise.race([exit, sleep(2000)]);
      signalGroup(child.pid!, "SIGKILL");
      for (let i = 0; i < 80 && liveGroupMembers(child.pid!).length > 0; i++) await sleep(25);
      for (const stream of child.stdio) stream?.destroy();
    },
  };
}

/** A client's page in the browser: its about:blank, or the fixture loaded. The client stays attached. */
async function openPage(b: Browser, kind: string): Promise<BenchCdp> {
  const cdp = await BenchCdp.onPipe(b.cdp);
  const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
  const page = targetInfos.find((t) => t.type === "page")!;
  const { sessionId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true });
  cdp.sessionId = sessionId;
  await cdp.send("Page.enable", {}, sessionId);
  await cdp.send("Runtime.enable", {}, sessionId);
  if (kind === "fixture") {
    const loaded = new Promise<void>((resolve) => {
      cdp.onEvent = (e) => e.method === "Page.loadEventFired" && resolve();
    });
    await cdp.send("Page.navigate", { url: fixtureUrl }, sessionId);
    await Promise.race([loaded, sleep(20_000)]);
    const kept = await cdp.send<{ result: { value: number } }>("Runtime.evaluate", { expression: "window.__kept.length", returnByValue: true }, sessionId);
    if (!(kept.result.value > 0)) throw new Error("the fixture's script did not run");
  }
  return cdp;
}

/** PSS (MiB) of every process of the browsers' groups, and by process kind (Chromium's --type=, "browser" without). */
function pssMiB(leaders: number[]): { total: number; byKind: Map<string, number> } {
  let kib = 0;
  const byKind = new Map<string, number>();
  for (const leader of leaders) {
    for (const p of liveGroupMembers(leader)) {
      try {
        const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p.pid}/smaps_rollup`, "utf8"));
        if (!m) continue;
        kib += Number(m[1]);
        const cmdline = fs.readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split(/[\0 ]/); // Chromium rewrites its title: one string, spaces
        const kind =
          (cmdline.find((a) => a.startsWith("--type="))?.slice(7) ?? "browser") +
          (cmdline.some((a) => a.startsWith("--utility-sub-type=network")) ? ":network" : "");
        byKind.set(kind, (byKind.get(kind) ?? 0) + Number(m[1]) / 1024);
      } catch {
        // gone meanwhile
      }
    }
  }
  return { total: kib / 1024, byKind };
}

/** PSS per browser with N of `name` running at once, each with a client's page of `kind`. */
/** The last measurement's PSS per session by process kind (printed with it). */
let kinds = "";
async function measure(name: string, kind: string): Promise<{ perSession: number; processes: number; newPageMs: number }> {
  const v = variants[name]!;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `vessel-bench-density-`));
  const browsers: Browser[] = [];
  try {
    for (let i = 0; i < n; i++) browsers.push(await launch(v, path.join(root, String(i))));
    const clients = await Promise.all(browsers.map((b) => openPage(b, kind)));
    await sleep(SETTLE_MS);
    if (v.pressure) {
      await Promise.all(browsers.map((b) => b.cdp.call("Memory.simulatePressureNotification", { level: "critical" }).catch(() => undefined)));
      await sleep(SETTLE_MS / 2);
    }
    const pss = pssMiB(browsers.map((b) => b.pid));
    const perSession = pss.total / n;
    kinds = [...pss.byKind].map(([kind, mib]) => `${kind} ${f(mib / n, 1)}`).join(", ");
    const processes = browsers.reduce((sum, b) => sum + liveGroupMembers(b.pid).length, 0) / n;
    // A new page's cost with these flags (a renderer started: forked from the zygote, or exec'd without it), after the PSS is read.
    const newPage: number[] = [];
    for (const c of clients) {
      const t0 = performance.now();
      await c.send("Target.createTarget", { url: "about:blank" });
      newPage.push(performance.now() - t0);
    }
    await Promise.all(clients.map((c) => c.close()));
    return { perSession, processes, newPageMs: median(newPage) };
  } finally {
    await Promise.all(browsers.map((b) => b.close()));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const loadStart = os.loadavg()[0]!.toFixed(1);
const results: Record<string, Record<string, number[]>> = {};
const procs: Record<string, number> = {};
const newPages: Record<string, number[]> = {};
for (let r = 0; r < rounds; r++) {
  for (const kind of pages) {
    const order = chosen.map((_, i) => chosen[(i + r) % chosen.length]!);
    for (const name of order) {
      const { perSession, processes, newPageMs } = await measure(name, kind);
      ((results[kind] ??= {})[name] ??= []).push(perSession);
      (newPages[name] ??= []).push(newPageMs);
      procs[name] = processes;
      console.log(
        `round ${r + 1} ${kind} ${name}: ${f(perSession, 1)} MiB PSS per session (${n} at once, ${f(processes, 1)} processes each: ${kinds} MiB; a new page ${f(newPageMs, 1)} ms)`,
      );
    }
  }
}
const loadEnd = os.loadavg()[0]!.toFixed(1);
server.close();

const idle = (name: string) => median(results.blank?.[name] ?? [NaN]);
console.log(`\nMedians of ${rounds} rounds, ${n} browsers at once; load average ${loadStart} → ${loadEnd}:`);
for (const kind of pages) {
  for (const name of chosen) {
    const v = variants[name]!;
    const per = median(results[kind]![name]!);
    const sparesMiB = v.spares * idle(name);
    const perGiB = (1024 - sparesMiB) / per;
    console.log(
      `  ${kind} ${name}: ${f(per, 1)} MiB per session, ${f(perGiB, 1)} sessions per GiB (${v.spares} spare${v.spares === 1 ? "" : "s"} of ${f(idle(name), 1)} MiB)`,
    );
    const detail = `${f(per, 1)} MiB PSS per session, ${v.spares} spare(s); ${n} at once, ${f(procs[name] ?? NaN, 1)} processes each; load average ${loadStart}`;
    if (kind === "blank" && name === "shipped") atLeast(GROUP, "idle sessions per GiB (blank page, spares included)", perGiB, 20, "/GiB", detail);
    else
      reportFigure({
        group: GROUP,
        name: `${kind === "blank" ? "idle sessions" : "sessions on the 2 MB-JS fixture"} per GiB: ${name}`,
        value: perGiB,
        unit: "/GiB",
        detail,
      });
  }
}
if (results.blank?.shipped && results.blank.browserless) {
  const ratio = (1024 - warm * idle("shipped")) / idle("shipped") / (1024 / idle("browserless"));
  reportFigure({
    group: GROUP,
    name: "idle sessions per GiB ÷ browserless's (one browser per connection)",
    value: ratio,
    unit: "×",
    detail: `same run; load average ${loadStart}`,
  });
}
process.exit(0);
