// What the live-view bench measures with: an animated page to watch, the ways of watching it (a
// direct CDP screencast, the viewer socket, the viewer page) and the figures it reads from them.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Page as ViewerPage } from "playwright-core";
import WebSocket from "ws";
import { CdpClient } from "../src/browser/cdp/pipe/client.ts";
import type { CdpPipe } from "../src/browser/cdp/pipe/pipe.ts";
import { QUALITY_MAX } from "../src/live-view/screencast.ts";
import { type TestApp } from "../test/support/app.ts";
import { f } from "./support.ts";

/** The viewer's window; its canvas (below the bar) sets the frame bounds for every reader alike. */
export const VIEWER = { width: 1280, height: 800 };
/** The square the clicks flip (CSS px of the session's 800×600 viewport). */
export const SQUARE = { x: 150, y: 200, size: 200 };
export const SQUARE_CENTRE = { x: SQUARE.x + SQUARE.size / 2, y: SQUARE.y + SQUARE.size / 2 };

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The session's page: a canvas animated every frame (moving gradient, shapes and text, so the JPEGs
// are of a realistic size) and, above it, a square that each mousedown flips between black and white.

export const animatedPage = `<!doctype html><html><head><title>Animated</title><style>body{margin:0;overflow:hidden;background:#222}
#c{position:absolute;left:0;top:0}#flip{position:absolute;left:${SQUARE.x}px;top:${SQUARE.y}px;width:${SQUARE.size}px;height:${SQUARE.size}px;background:#000}</style></head>
<body><canvas id="c" width="800" height="600"></canvas><div id="flip"></div><script>
const g = document.getElementById("c").getContext("2d");
let n = 0;
function paint() {
  n++;
  const grd = g.createLinearGradient(0, 0, 800, 600);
  grd.addColorStop(0, "hsl(" + (n % 360) + ",70%,50%)");
  grd.addColorStop(1, "hsl(" + ((n + 180) % 360) + ",70%,35%)");
  g.fillStyle = grd;
  g.fillRect(0, 0, 800, 600);
  for (let i = 0; i < 60; i++) {
    g.fillStyle = "hsl(" + ((i * 37 + n * 3) % 360) + ",80%,60%)";
    g.fillRect((i * 53 + n * 4) % 800, (i * 97 + n * 2) % 600, 24 + (i % 5) * 6, 24 + (i % 3) * 8);
  }
  g.fillStyle = "#fff";
  g.font = "28px sans-serif";
  for (let i = 0; i < 6; i++) g.fillText("frame " + n + " · row " + i, 420, 60 + i * 40);
  requestAnimationFrame(paint);
}
requestAnimationFrame(paint);
let white = false;
addEventListener("mousedown", () => {
  white = !white;
  document.getElementById("flip").style.background = white ? "#fff" : "#000";
});
</script></body></html>`;

export async function startPage(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(animatedPage);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// ---------------------------------------------------------------------------------------------
// Readers

export interface Rate {
  fps: number;
  bytesPerSecond: number;
}

export interface Arrival {
  at: number;
  jpeg: Buffer;
}

/** Our own CDP channel on the session browser's pipe, attached to its tab, with a screencast acknowledged on arrival. */
export async function directScreencast(pipe: CdpPipe, targetId: string, bounds: { maxWidth: number; maxHeight: number }, onFrame: (a: Arrival) => void) {
  const cdp = await CdpClient.open(pipe);
  const { sessionId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
  cdp.on("Page.screencastFrame", (p: { data: string; sessionId: number }, sid: string | undefined) => {
    if (sid !== sessionId) return;
    const at = performance.now();
    cdp.post("Page.screencastFrameAck", { sessionId: p.sessionId }, sessionId);
    onFrame({ at, jpeg: Buffer.from(p.data, "base64") });
  });
  await cdp.send("Page.startScreencast", { format: "jpeg", quality: QUALITY_MAX, everyNthFrame: 1, ...bounds }, sessionId);
  return {
    click: (x: number, y: number) => {
      for (const type of ["mousePressed", "mouseReleased"]) {
        cdp.post("Input.dispatchMouseEvent", { type, x, y, button: "left", buttons: type === "mousePressed" ? 1 : 0, clickCount: 1 }, sessionId);
      }
    },
    async close() {
      await cdp.send("Page.stopScreencast", {}, sessionId).catch(() => {});
      cdp.close();
    },
  };
}

/** A client of the viewer socket in this process: the protocol, acknowledging each frame on arrival. */
export async function socketViewer(t: TestApp, token: string, size: { w: number; h: number; dpr: number }, onFrame: (a: Arrival) => void) {
  const ws = new WebSocket(`${t.url.replace(/^http/, "ws")}/live-view/socket`, { origin: new URL(t.config.publicBaseUrl).origin, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let seq = 0;
  ws.on("message", (data, isBinary) => {
    if (!isBinary) return;
    const at = performance.now();
    const buf = data as Buffer;
    seq = buf.readUInt32BE(0);
    ws.send(JSON.stringify({ t: "ack", n: seq }));
    onFrame({ at, jpeg: buf.subarray(8) });
  });
  ws.send(JSON.stringify({ t: "auth", token, ...size }));
  return {
    click: (fx: number, fy: number) => {
      for (const e of ["down", "up"]) ws.send(JSON.stringify({ t: "mouse", e, x: fx, y: fy, b: "left", bs: e === "down" ? 1 : 0, c: 1, m: 0, f: seq }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        ws.once("close", () => resolve());
        ws.close();
      }),
  };
}

/** Frames and bytes per second over `seconds`, after `warmupMs`. */
export async function measure(
  warmupMs: number,
  seconds: number,
  count: () => { frames: number; bytes: number } | Promise<{ frames: number; bytes: number }>,
): Promise<Rate> {
  await sleep(warmupMs);
  const a = await count();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const b = await count();
  const dt = (performance.now() - t0) / 1000;
  return { fps: (b.frames - a.frames) / dt, bytesPerSecond: (b.bytes - a.bytes) / dt };
}

// ---------------------------------------------------------------------------------------------
// JPEG decoding for the latency figures: in a headless page, after the fact.

/** Brightness (0–255) of the square's centre in each frame. Frames are 4:3 like the viewport. */
export async function squareBrightness(decoder: ViewerPage, jpegs: Buffer[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < jpegs.length; i += 20) {
    const batch = jpegs.slice(i, i + 20).map((j) => j.toString("base64"));
    out.push(
      ...(await decoder.evaluate(
        async ({ batch, centre }) => {
          const results: number[] = [];
          for (const b64 of batch) {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const bmp = await createImageBitmap(new Blob([bytes], { type: "image/jpeg" }));
            const canvas = new OffscreenCanvas(bmp.width, bmp.height);
            const g = canvas.getContext("2d")!;
            g.drawImage(bmp, 0, 0);
            const d = g.getImageData(Math.floor((centre.x / 800) * bmp.width), Math.floor((centre.y / 600) * bmp.height), 1, 1).data;
            results.push((d[0]! + d[1]! + d[2]!) / 3);
          }
          return results;
        },
        { batch, centre: SQUARE_CENTRE },
      )),
    );
  }
  return out;
}

/** For each click (time and the colour it flips the square to), the delay to the first frame showing it. */
export async function latencies(decoder: ViewerPage, arrivals: Arrival[], sent: Array<{ at: number; white: boolean }>): Promise<number[]> {
  const brightness = await squareBrightness(
    decoder,
    arrivals.map((a) => a.jpeg),
  );
  const out: number[] = [];
  for (const click of sent) {
    const i = arrivals.findIndex((a, k) => a.at >= click.at && (click.white ? brightness[k]! > 200 : brightness[k]! < 55));
    if (i >= 0) out.push(arrivals[i]!.at - click.at);
  }
  return out;
}
