// Profile save and restore times for a realistic login profile: 300 cookies and 5 origins × 200
// storage keys (160 localStorage, 40 sessionStorage, 64-character values), next to an empty
// session start. Medians over several runs; loopback only; every browser and server is closed at
// the end. Never part of the tests.
//
//   npm run bench:profiles
//   BENCH_PROFILE_RUNS=7     runs per figure
//   BENCH_CHROMIUM=/usr/lib/chromium/chromium   (default: findChromium(), the headless shell)
//
// What each figure is:
//   session start, empty            POST /v1/sessions answered (warm spare ready), no profile
//   session start, from the profile POST /v1/sessions {profile_id}: decrypt + restore + the same work
//   restore alone                   the restore step inside that call (server log: cookies set, and
//                                   the storage watcher that seeds each origin's first document)
//   start + connect                 the create and puppeteer.connect, which waits for a restore
//                                   still running (the browser's pipe is held until it is done)
//   first load of each origin       5 tabs, one per origin, loaded side by side in a restored
//                                   session vs the same in a plain one (the seeding's cost where it
//                                   is paid), every item checked present in the page's first script
//   save, 5 tabs open               POST /v1/profiles/{id}:save with every origin open in a tab
//                                   (read in place)
//   save, no tab on the origins     the same before any tab loaded them (the restored localStorage
//                                   is still only in the profile: kept as is)
//   save, tabs closed               the origins loaded, then their tabs closed (localStorage read
//                                   through a throw-away tab)
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import puppeteer from "puppeteer-core";
import { findChromium } from "../src/browser/launch/command.ts";
import { atMost, reportFigure } from "./figures.ts";
import { createLogger } from "../src/logger.ts";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../test/support/app.ts";

const runs = Math.max(1, Number(process.env.BENCH_PROFILE_RUNS ?? 7));
const found = findChromium(process.env.BENCH_CHROMIUM);
if (!found) throw new Error("no Chromium found (set BENCH_CHROMIUM)");
const executablePath: string = found;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (xs: number[]) => `${median(xs).toFixed(1).padStart(7)} ms   (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}, n=${xs.length})`;
const sleep = (n: number) => new Promise<void>((r) => setTimeout(r, n));
const value = () => randomUUID().replaceAll("-", "") + randomUUID().replaceAll("-", "");

async function site(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    // The page's first script counts what it finds, before anything else of it runs.
    res.end("<!doctype html><title>bench</title><script>window.__found = [localStorage.length, sessionStorage.length]</script><p>bench");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** 300 cookies on three domains (Chromium keeps at most 180 per domain), 5 origins × (160 + 40) items. */
function storageState(origins: string[]) {
  const domains = ["127.0.0.1", "localhost", ".bench.example"];
  const cookies = Array.from({ length: 300 }, (_, i) => ({
    name: `c${i}`,
    value: value(),
    domain: domains[i % 3]!,
    path: "/",
    expires: Math.floor(Date.now() / 1000) + 86_400,
    httpOnly: i % 2 === 0,
    secure: false,
    sameSite: "Lax" as const,
  }));
  return {
    cookies,
    origins: origins.map((origin) => ({
      origin,
      localStorage: Array.from({ length: 160 }, (_, i) => ({ name: `l${i}`, value: value() })),
      sessionStorage: Array.from({ length: 40 }, (_, i) => ({ name: `s${i}`, value: value() })),
    })),
  };
}

async function main() {
  const restoreLog: number[] = [];
  const phases = { cookiesMs: [] as number[], storageWatcherMs: [] as number[] };
  const log = createLogger(
    "info",
    new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split("\n")) {
          if (!line.includes('"profile restored"')) continue;
          const parsed = JSON.parse(line) as { ms?: number } & Partial<Record<keyof typeof phases, number>>;
          if (typeof parsed.ms === "number") restoreLog.push(parsed.ms);
          for (const k of Object.keys(phases) as Array<keyof typeof phases>) if (typeof parsed[k] === "number") phases[k].push(parsed[k]);
        }
        done();
      },
    }),
  );
  const sites = await Promise.all(Array.from({ length: 5 }, site));
  const origins = sites.map((s, i) => `http://${i < 3 ? "127.0.0.1" : "localhost"}:${s.port}`);
  let t: TestApp | undefined;
  try {
    t = await startTestApp({ log, env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "3", VESSEL_CHROMIUM_PATH: executablePath } });
    const app = t;
    const ws = await seedWorkspace(app);
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const started = performance.now();
      const res = await fetch(`${app.url}${path}`, {
        method,
        headers: { ...bearer(ws.key), "content-type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const elapsed = performance.now() - started;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
      return { elapsed, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
    };
    const warm = async () => {
      for (let i = 0; i < 200 && app.app.deps.browsers.report().warm < 1; i++) await sleep(25);
      await sleep(300); // the spare's own start-up settles
    };
    const start = (profileId?: string) =>
      call("POST", "/v1/sessions", { region: "us-east1", ...(profileId ? { profile_id: profileId } : {}) }, { "idempotency-key": randomUUID() });
    const release = (id: string) => call("PATCH", `/v1/sessions/${id}`, { status: "REQUEST_RELEASE" });

    const imported = await call("POST", "/v1/profiles", { label: "bench", storage_state: storageState(origins) });
    const profileId = imported.body.profile_id as string;
    console.log(
      `profile: ${imported.body.cookie_count} cookies, ${imported.body.origin_count} origins, ${imported.body.key_count} keys, ` +
        `${(imported.body.size_bytes / 1024).toFixed(0)} KiB as stored (import took ${imported.elapsed.toFixed(0)} ms)`,
    );
    console.log(`Chromium: ${executablePath}; ${runs} runs per figure\n`);

    const empty: number[] = [];
    const fromProfile: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Alternate which goes first, so drift on the shared machine lands on both.
      for (const withProfile of i % 2 ? [true, false] : [false, true]) {
        await warm();
        const s = await start(withProfile ? profileId : undefined);
        (withProfile ? fromProfile : empty).push(s.elapsed);
        await release(s.body.id as string);
      }
    }

    // Per run: a restored session is saved before any tab loads the origins, then with one tab on
    // each, then with those tabs closed; a plain session loads the same 5 tabs for comparison.
    const saveOpen: number[] = [];
    const saveElsewhere: number[] = [];
    const saveClosed: number[] = [];
    const loadRestored: number[] = [];
    const loadPlain: number[] = [];
    const connectedRestored: number[] = [];
    const connectedPlain: number[] = [];
    const save = async (sessionId: string) => (await call("POST", `/v1/profiles/${profileId}:save`, { session_id: sessionId })).elapsed;
    const loadAll = async (browser: Awaited<ReturnType<typeof puppeteer.connect>>) => {
      const tabs = await Promise.all(origins.map(() => browser.newPage()));
      const started = performance.now();
      await Promise.all(tabs.map((tab, k) => tab.goto(`${origins[k]}/`)));
      const elapsed = performance.now() - started;
      const found = await Promise.all(tabs.map((tab) => tab.evaluate(() => (window as unknown as { __found: number[] }).__found)));
      return { tabs, elapsed, found };
    };
    async function restoredRun(sessionId: string, browser: Awaited<ReturnType<typeof puppeteer.connect>>) {
      saveElsewhere.push(await save(sessionId));
      const { tabs, elapsed, found } = await loadAll(browser);
      loadRestored.push(elapsed);
      if (found.some(([l, ss]) => l !== 160 || ss !== 40)) throw new Error(`the first load did not find the profile: ${JSON.stringify(found)}`);
      saveOpen.push(await save(sessionId));
      await Promise.all(tabs.map((tab) => tab.close()));
      saveClosed.push(await save(sessionId));
    }
    for (let i = 0; i < runs; i++) {
      for (const withProfile of i % 2 ? [true, false] : [false, true]) {
        await warm();
        const t0 = performance.now();
        const s = await start(withProfile ? profileId : undefined);
        // The client's connect waits for the restore when it is not done yet (the pipe is held).
        const browser = await puppeteer.connect({ browserWSEndpoint: s.body.connect_url as string, defaultViewport: null });
        (withProfile ? connectedRestored : connectedPlain).push(performance.now() - t0);
        try {
          if (!withProfile) loadPlain.push((await loadAll(browser)).elapsed);
          else await restoredRun(s.body.id as string, browser);
        } finally {
          await browser.disconnect();
        }
        await release(s.body.id as string);
      }
    }
    const check = await call("GET", `/v1/profiles/${profileId}`);
    if (check.body.key_count !== 1000 || check.body.cookie_count !== 300) {
      throw new Error(`the saved profile lost state: ${check.body.cookie_count} cookies, ${check.body.key_count} keys`);
    }

    console.log(`session start, empty             ${ms(empty)}`);
    console.log(`session start, from the profile  ${ms(fromProfile)}   (+${(median(fromProfile) - median(empty)).toFixed(1)} ms)`);
    console.log(`  restore alone (server log)     ${ms(restoreLog)}`);
    console.log(`    cookies set after            ${ms(phases.cookiesMs)}`);
    console.log(`    storage watcher ready after  ${ms(phases.storageWatcherMs)}   (side by side with the cookies)`);
    console.log(`start + connect, plain           ${ms(connectedPlain)}`);
    console.log(`start + connect, from profile    ${ms(connectedRestored)}`);
    console.log(`first load of 5 origins, plain   ${ms(loadPlain)}`);
    console.log(`first load of 5 origins, profile ${ms(loadRestored)}   (every item present in the first script)`);
    console.log(`save, 5 tabs open on the origins ${ms(saveOpen)}`);
    console.log(`save, no tab on the origins yet  ${ms(saveElsewhere)}`);
    console.log(`save, their tabs closed          ${ms(saveClosed)}`);
    const group = "Profiles";
    const detail = (xs: number[], ys?: number[]) => `${median(xs).toFixed(0)}${ys ? ` vs ${median(ys).toFixed(0)}` : ""} ms, n=${xs.length}`;
    atMost(group, "start from the bench profile ÷ plain start", median(fromProfile) / median(empty), 1.5, "×", detail(fromProfile, empty));
    atMost(group, "save, 5 tabs open on the origins", median(saveOpen), 100, " ms", detail(saveOpen));
    atMost(group, "save, no tab on the origins yet", median(saveElsewhere), 100, " ms", detail(saveElsewhere));
    reportFigure({
      group,
      name: "save, the origins' tabs closed (read through a throw-away tab)",
      value: median(saveClosed),
      unit: "ms",
      detail: detail(saveClosed),
    });
    reportFigure({
      group,
      name: "start + client connected, from the bench profile ÷ plain",
      value: median(connectedRestored) / median(connectedPlain),
      unit: "×",
      detail: detail(connectedRestored, connectedPlain),
    });
    reportFigure({
      group,
      name: "first load of 5 origins, restored ÷ plain",
      value: median(loadRestored) / median(loadPlain),
      unit: "×",
      detail: detail(loadRestored, loadPlain),
    });
  } finally {
    await t?.stop();
    await Promise.all(sites.map((s) => s.close()));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
