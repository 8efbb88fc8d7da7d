// The live view against reading the screencast straight from Chromium. One run prints:
//  (a) screencast frames/s and JPEG bytes/s on the same animated page, read three ways, in rounds
//      that alternate which goes first (medians of the rounds):
//        direct  Page.startScreencast on our own CDP channel on the session browser's pipe
//                (CdpClient.open(lease.cdp), in this process, as the viewer itself reads it), each
//                frame acknowledged on arrival (the most a reader can get);
//        socket  the viewer path (/live-view/socket) read by a client in this process that speaks
//                the viewer protocol and acknowledges each frame on arrival;
//        page    the viewer path read by the real viewer page in a headless browser (decoded and
//                drawn on its canvas; its own counters);
//  (b) input-to-frame latency: a click flips a big square between black and white, and the time
//      to the first frame showing the flip is taken (medians and p95 over the clicks):
//        direct  Input.dispatchMouseEvent on our CDP channel → arrival of that frame;
//        socket  a `mouse` message on the viewer socket → arrival of that frame;
//        page    a real click on the viewer's canvas → that frame drawn (timed inside the page).
//      Frames are decoded (JPEG) in a headless browser to find the first one showing the flip;
//      arrival times are taken before any decoding.
// The server runs in this process; the session's Chromium and the viewer's are separate
// processes. Loopback only; every browser is closed at the end. Never part of the tests.
//
//   npm run bench:live-view
//   BENCH_LV_ROUNDS=5 BENCH_LV_SECONDS=3 BENCH_LV_CLICKS=15
import { chromium, type Browser as ViewerBrowser } from "playwright-core";
import puppeteer from "puppeteer-core";
import { findChromium } from "../src/browser/launch/command.ts";
import { frameBounds } from "../src/live-view/protocol.ts";
import { QUALITY_MAX } from "../src/live-view/screencast.ts";
import { bearer, seedWorkspace, startTestApp } from "../test/support/app.ts";
import { createSession, type SessionBody } from "../test/support/sessions.ts";
import { atLeast, reportFigure } from "./figures.ts";
import { num, pct, median, f } from "./support.ts";
import { VIEWER, SQUARE_CENTRE, sleep, startPage, type Rate, type Arrival, directScreencast, socketViewer, measure, latencies } from "./live-view-probes.ts";

const rounds = num("BENCH_LV_ROUNDS", 5);
export const seconds = num("BENCH_LV_SECONDS", 3);
const clicks = num("BENCH_LV_CLICKS", 15);
const executablePath = findChromium(process.env.BENCH_CHROMIUM);
if (!executablePath) throw new Error("no Chromium found (set BENCH_CHROMIUM)");

// ---------------------------------------------------------------------------------------------

async function main() {
  const t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_BROWSER_WARM: "0" } });
  const page = await startPage();
  let viewers: ViewerBrowser | undefined;
  try {
    const seeded = await seedWorkspace(t);
    const { body: session } = await createSession(t, seeded.key, { region: "us-east1", live_view: { interactive: true } });
    const driver = await puppeteer.connect({ browserWSEndpoint: session.connect_url!, defaultViewport: null });
    const tab = await driver.newPage();
    await tab.goto(page.url);
    const cdpSession = await tab.createCDPSession();
    const { targetInfo } = await cdpSession.send("Target.getTargetInfo");
    await cdpSession.detach();
    const lease = t.app.deps.runtime.endpoint(session.id)!;
    viewers = await chromium.launch({
      executablePath,
      args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-sync"],
    });
    const freshToken = async () => {
      const s = (await (await fetch(`${t.url}/v1/sessions/${session.id}`, { headers: bearer(seeded.key) })).json()) as SessionBody;
      return { url: s.live_view_url!, token: new URL(s.live_view_url!).searchParams.get("token")! };
    };

    // The viewer's canvas size decides the bounds; the direct reader and the socket client use the same.
    const probe = await (await viewers.newContext({ viewport: VIEWER })).newPage();
    await probe.goto((await freshToken()).url);
    await probe.waitForFunction(() => Number(document.getElementById("screen")!.dataset.frames ?? 0) > 0);
    const canvas = await probe.evaluate(() => {
      const stage = document.getElementById("stage")!;
      return { w: Math.round(stage.clientWidth), h: Math.round(stage.clientHeight), dpr: window.devicePixelRatio || 1 };
    });
    await probe.context().close();
    const bounds = frameBounds(canvas.w, canvas.h, canvas.dpr);

    console.log(
      `Live view: ${rounds} rounds × ${seconds} s per reader, alternating order; frames ≤ ${bounds.maxWidth}×${bounds.maxHeight} device px, JPEG quality ${QUALITY_MAX} to start.`,
    );
    console.log(`Chromium ${executablePath}; the session's page animates every frame (800×600). ${new Date().toISOString()}\n`);

    const readers = {
      direct: async (): Promise<Rate> => {
        let frames = 0;
        let bytes = 0;
        const d = await directScreencast(lease.cdp, targetInfo.targetId, bounds, (a) => {
          frames++;
          bytes += a.jpeg.length;
        });
        const rate = await measure(500, seconds, () => ({ frames, bytes }));
        await d.close();
        return rate;
      },
      socket: async (): Promise<Rate> => {
        let frames = 0;
        let bytes = 0;
        const v = await socketViewer(t, (await freshToken()).token, canvas, (a) => {
          frames++;
          bytes += a.jpeg.length;
        });
        const rate = await measure(1000, seconds, () => ({ frames, bytes }));
        await v.close();
        return rate;
      },
      page: async (): Promise<Rate> => {
        const context = await viewers!.newContext({ viewport: VIEWER });
        const p = await context.newPage();
        await p.goto((await freshToken()).url);
        await p.waitForFunction(() => Number(document.getElementById("screen")!.dataset.frames ?? 0) > 5);
        const rate = await measure(500, seconds, () =>
          p.evaluate(() => {
            const d = document.getElementById("screen")!.dataset;
            return { frames: Number(d.frames ?? 0), bytes: Number(d.bytes ?? 0) };
          }),
        );
        await context.close();
        return rate;
      },
    };
    const names = Object.keys(readers) as Array<keyof typeof readers>;
    const results: Record<string, Rate[]> = { direct: [], socket: [], page: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? names : [...names].reverse();
      for (const name of order) results[name]!.push(await readers[name]());
      await sleep(300);
    }
    const med = (name: string) => ({ fps: median(results[name]!.map((x) => x.fps)), bps: median(results[name]!.map((x) => x.bytesPerSecond)) });
    const direct = med("direct");
    console.log("(a) Screencast throughput (medians)      frames/s   KiB/s     vs direct (frames)   each round's frames/s");
    for (const name of names) {
      const m = med(name);
      const label = { direct: "direct CDP screencast", socket: "viewer socket (protocol client)", page: "viewer page (decoded, drawn)" }[name];
      const ratio = name === "direct" ? "" : `${f((m.fps / direct.fps) * 100, 0)}%`;
      console.log(
        `    ${label.padEnd(36)} ${f(m.fps).padStart(8)}   ${f(m.bps / 1024, 0).padStart(6)}    ${ratio.padStart(6)}${name === "direct" ? "      " : ""}               ${results[name]!.map((x) => f(x.fps)).join(" ")}`,
      );
    }
    const pageRatio = med("page").fps / direct.fps;
    const socketRatio = med("socket").fps / direct.fps;
    atLeast("Live view", "viewer socket frame rate ÷ direct screencast", socketRatio * 100, 90, "%", `${f(med("socket").fps)} vs ${f(direct.fps)} fps`);
    reportFigure({
      group: "Live view",
      name: "viewer page (decoded, drawn) frame rate ÷ direct",
      value: pageRatio * 100,
      unit: "%",
      detail: `${f(med("page").fps)} fps`,
    });
    console.log(
      `    goal: viewer path ≥ 90% of the direct frame rate: socket ${f(socketRatio * 100, 0)}% (${socketRatio >= 0.9 ? "met" : "NOT MET"}), page ${f(pageRatio * 100, 0)}% (${pageRatio >= 0.9 ? "met" : "NOT MET"})`,
    );
    console.log("    (the page decodes and draws every frame in a software-rendered browser on the same CPU as the session's Chromium)\n");

    // (b) Latency. The decoder page only decodes frames after each run.
    const decoder = await (await viewers.newContext()).newPage();
    const fx = SQUARE_CENTRE.x / 800;
    const fy = SQUARE_CENTRE.y / 600;
    let white = false;
    const flipsTo = () => (white = !white);

    const directLatency = async () => {
      const arrivals: Arrival[] = [];
      const sent: Array<{ at: number; white: boolean }> = [];
      const d = await directScreencast(lease.cdp, targetInfo.targetId, bounds, (a) => arrivals.push(a));
      await sleep(500);
      for (let i = 0; i < clicks; i++) {
        sent.push({ at: performance.now(), white: flipsTo() });
        d.click(SQUARE_CENTRE.x, SQUARE_CENTRE.y);
        await sleep(250 + Math.random() * 100);
      }
      await d.close();
      return latencies(decoder, arrivals, sent);
    };
    const socketLatency = async () => {
      const arrivals: Arrival[] = [];
      const sent: Array<{ at: number; white: boolean }> = [];
      const v = await socketViewer(t, (await freshToken()).token, canvas, (a) => arrivals.push(a));
      await sleep(1000);
      for (let i = 0; i < clicks; i++) {
        sent.push({ at: performance.now(), white: flipsTo() });
        v.click(fx, fy);
        await sleep(250 + Math.random() * 100);
      }
      await v.close();
      return latencies(decoder, arrivals, sent);
    };
    const pageLatency = async () => {
      const context = await viewers!.newContext({ viewport: VIEWER });
      const p = await context.newPage();
      await p.goto((await freshToken()).url);
      await p.waitForFunction(() => Number(document.getElementById("screen")!.dataset.frames ?? 0) > 5);
      // Inside the page: the time of each pointerdown, and of each drawn frame whose square changed
      // colour (read from the canvas right after the draw, which bumps data-frames).
      // A string, not a function: tsx's transpiler would add helpers the page does not have.
      await p.evaluate(`(() => {
        const square = ${JSON.stringify(SQUARE_CENTRE)};
        const canvas = document.getElementById("screen");
        const g = canvas.getContext("2d");
        window.lat = { downs: [], flips: [] };
        canvas.addEventListener("pointerdown", () => window.lat.downs.push(performance.now()), { capture: true });
        const sample = () => {
          const s = Math.min(canvas.width / 800, canvas.height / 600);
          const x = Math.floor((canvas.width - 800 * s) / 2 + square.x * s);
          const y = Math.floor((canvas.height - 600 * s) / 2 + square.y * s);
          const d = g.getImageData(x, y, 1, 1).data;
          return (d[0] + d[1] + d[2]) / 3;
        };
        let last = sample() > 128;
        new MutationObserver(() => {
          const now = sample() > 128;
          if (now !== last) window.lat.flips.push({ at: performance.now(), white: now });
          last = now;
        }).observe(canvas, { attributes: true, attributeFilter: ["data-frames"] });
      })()`);
      const box = (await p.locator("#screen").boundingBox())!;
      const s = Math.min(box.width / 800, box.height / 600);
      const at = { x: box.x + (box.width - 800 * s) / 2 + SQUARE_CENTRE.x * s, y: box.y + (box.height - 600 * s) / 2 + SQUARE_CENTRE.y * s };
      for (let i = 0; i < clicks; i++) {
        await p.mouse.click(at.x, at.y);
        await sleep(250 + Math.random() * 100);
      }
      const lat = await p.evaluate(() => (window as unknown as { lat: { downs: number[]; flips: Array<{ at: number }> } }).lat);
      await context.close();
      // The square's state at the start is whatever earlier runs left; each click flips it.
      return lat.downs.map((down) => lat.flips.find((flip) => flip.at >= down)).flatMap((flip, i) => (flip ? [flip.at - lat.downs[i]!] : []));
    };

    const lat: Record<string, number[]> = { direct: [], socket: [], page: [] };
    const latencyRuns = { direct: directLatency, socket: socketLatency, page: pageLatency };
    // Each click flips the square: its colour after the previous run is whatever the click count says.
    for (const name of names) {
      lat[name]!.push(...(await latencyRuns[name]()));
    }
    console.log(`(b) Input to frame: click → first frame showing its effect (${clicks} clicks each)    p50 ms   p95 ms   found`);
    const latLabel = { direct: "direct CDP (arrival)", socket: "viewer socket (arrival)", page: "viewer page (drawn)" };
    for (const name of names) {
      const xs = lat[name]!;
      console.log(`    ${latLabel[name].padEnd(76)} ${f(median(xs)).padStart(6)}   ${f(pct(xs, 95)).padStart(6)}   ${xs.length}/${clicks}`);
    }
    await driver.disconnect();
  } finally {
    await viewers?.close();
    await t.stop();
    await page.close();
  }
}

await main();
