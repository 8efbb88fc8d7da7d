import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { Writable } from "node:stream";
import { chromium, type Browser as ViewerBrowser, type Page as ViewerPage } from "playwright-core";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { findChromium } from "../../src/browser/launch/command.ts";
import { createLogger } from "../../src/logger.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, getSession, handshake, releaseSession, type SessionBody } from "../support/sessions.ts";
import { servicesRequired } from "../support/services.ts";

const executablePath = findChromium();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

type Rgb = [number, number, number];
const RED: Rgb = [208, 24, 24];
const BLUE: Rgb = [24, 64, 208];
const GREEN: Rgb = [24, 160, 64];
const hex = (c: Rgb) => c.map((v) => v.toString(16).padStart(2, "0")).join("");
const near = (a: number[], b: Rgb) => a.length >= 3 && b.every((v, i) => Math.abs(v - a[i]!) < 40);

/** Where the session's page puts its click target: off-centre, so a wrong mapping misses it. */
const TARGET = { left: 560, top: 380, width: 160, height: 100 };
const TARGET_CENTRE = { x: TARGET.left + TARGET.width / 2, y: TARGET.top + TARGET.height / 2 };

/**
 * The session's pages: a big solid colour (what the viewer's canvas must show), a field, a button
 * after it, and the click target; every mouse, key and click is recorded in `__log` for the test to read.
 */
function fixturePage(bg: string, title: string): string {
  return `<!doctype html><html><head><title>${title}</title><style>
body{margin:0;background:#${bg};height:100vh;overflow:hidden;font:16px sans-serif}
#field{position:absolute;left:40px;top:40px;width:320px;height:40px;font-size:20px}
#after{position:absolute;left:40px;top:100px}
#target{position:absolute;left:${TARGET.left}px;top:${TARGET.top}px;width:${TARGET.width}px;height:${TARGET.height}px;background:#fff;border:0}
</style></head><body><input id="field"><button id="after">after</button><button id="target">target</button>
<script>
window.__log = [];
addEventListener("mousedown", (e) => __log.push({ type: "mousedown", x: e.clientX, y: e.clientY, target: e.target.id, button: e.button, detail: e.detail }), true);
addEventListener("click", (e) => __log.push({ type: "click", x: e.clientX, y: e.clientY, target: e.target.id }), true);
addEventListener("keydown", (e) => __log.push({ type: "keydown", key: e.key, ctrl: e.ctrlKey, target: e.target.id }), true);
</script></body></html>`;
}

async function startFixture(): Promise<{ port: number; url(bg: Rgb, title?: string, host?: string): string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const q = new URL(req.url ?? "/", "http://x").searchParams;
    res.setHeader("content-type", "text/html");
    res.end(fixturePage(q.get("bg") ?? "ffffff", q.get("title") ?? "Fixture"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (bg, title = "Fixture", host = "127.0.0.1") => `http://${host}:${port}/?bg=${hex(bg)}&title=${encodeURIComponent(title)}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

interface LoggedEvent {
  type: string;
  x?: number;
  y?: number;
  target?: string;
  key?: string;
  ctrl?: boolean;
  detail?: number;
}

const log = (tab: Page) => tab.evaluate(() => (window as unknown as { __log: LoggedEvent[] }).__log);
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

/** The colour at the centre of the viewer's canvas (always inside the letterboxed frame). */
function centrePixel(page: ViewerPage): Promise<number[]> {
  return page.evaluate(() => {
    const c = document.getElementById("screen") as HTMLCanvasElement;
    return [...c.getContext("2d")!.getImageData(Math.floor(c.width / 2), Math.floor(c.height / 2), 1, 1).data];
  });
}

const showsColour = (page: ViewerPage, colour: Rgb) =>
  eventually(
    () => centrePixel(page),
    (p) => near(p, colour),
    15_000,
  );

/** The colour the viewer draws for a point of the frame (in the frame's own CSS px, `frame` its size). */
function pixelAt(page: ViewerPage, point: { x: number; y: number }, frame: { width: number; height: number }): Promise<number[]> {
  return page.evaluate(
    ({ point, frame }) => {
      const c = document.getElementById("screen") as HTMLCanvasElement;
      const s = Math.min(c.width / frame.width, c.height / frame.height);
      const x = Math.floor((c.width - frame.width * s) / 2 + point.x * s);
      const y = Math.floor((c.height - frame.height * s) / 2 + point.y * s);
      return [...c.getContext("2d")!.getImageData(x, y, 1, 1).data];
    },
    { point, frame },
  );
}

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(jpeg: Buffer): { width: number; height: number } {
  for (let i = 2; i + 9 < jpeg.length; ) {
    const marker = jpeg[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) return { width: jpeg.readUInt16BE(i + 7), height: jpeg.readUInt16BE(i + 5) };
    i += 2 + jpeg.readUInt16BE(i + 2);
  }
  throw new Error("no SOF marker");
}

/** Where a point of the session's viewport (CSS px) is drawn in the viewer: the frame is letterboxed into the canvas. */
async function onScreen(page: ViewerPage, point: { x: number; y: number }, viewport: { width: number; height: number }) {
  const box = (await page.locator("#screen").boundingBox())!;
  const s = Math.min(box.width / viewport.width, box.height / viewport.height);
  return {
    x: box.x + (box.width - viewport.width * s) / 2 + point.x * s,
    y: box.y + (box.height - viewport.height * s) / 2 + point.y * s,
    scale: s,
  };
}

interface RawViewer {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  frames: number;
  lastFrame?: Buffer;
  closed: Promise<{ code: number; reason: string }>;
  next(type: string, ms?: number): Promise<Record<string, unknown>>;
}

/** A hand-made viewer socket: what a page (or anyone else) could send. */
function rawViewer(t: TestApp, opts: { origin?: string | null } = {}): Promise<RawViewer | number> {
  const origin = opts.origin === undefined ? new URL(t.config.publicBaseUrl).origin : opts.origin;
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.url.replace(/^http/, "ws")}/live-view/socket`, origin ? { origin } : {});
    const viewer: RawViewer = {
      ws,
      messages: [],
      frames: 0,
      closed: new Promise((r) => ws.on("close", (code, reason) => r({ code, reason: reason.toString() }))),
      next: (type, ms = 10_000) =>
        eventually(
          async () => viewer.messages.find((m) => m.t === type),
          (m) => m !== undefined,
          ms,
        ) as Promise<Record<string, unknown>>,
    };
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        viewer.frames++;
        viewer.lastFrame = data as Buffer;
        // Drawn at once: acknowledging keeps frames coming.
        ws.send(JSON.stringify({ t: "ack", n: (data as Buffer).readUInt32BE(0) }));
      } else viewer.messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
    });
    ws.on("open", () => resolve(viewer));
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => {});
  });
}

async function openRaw(t: TestApp, token: string, size = { w: 800, h: 600, dpr: 1 }): Promise<RawViewer> {
  const viewer = await rawViewer(t);
  if (typeof viewer === "number") throw new Error(`handshake refused with ${viewer}`);
  viewer.ws.send(JSON.stringify({ t: "auth", token, ...size }));
  return viewer;
}

describe.skipIf(!executablePath)("live view through a real viewer browser", () => {
  let t: TestApp;
  let ws: Seeded;
  let fixture: Awaited<ReturnType<typeof startFixture>>;
  let viewers: ViewerBrowser;
  /** Moves the app's clock (token expiry) without touching the real one. */
  let clockOffsetMs = 0;
  /** Everything the server logs (debug and up), to prove no token ever reaches it. */
  const logLines: string[] = [];
  const tokensSeen = new Set<string>();

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        if (process.env.LV_LOG) process.stderr.write(chunk);
        done();
      },
    });
    t = await startTestApp({
      env: { VESSEL_BROWSER_CAPACITY: "3" },
      log: createLogger("debug", sink),
      now: () => new Date(Date.now() + clockOffsetMs),
    });
    ws = await seedWorkspace(t);
    fixture = await startFixture();
    viewers = await chromium.launch({
      executablePath,
      args: [
        ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    });
    await fs.mkdir("test-results", { recursive: true });
  });
  afterAll(async () => {
    await viewers?.close();
    await t?.stop();
    await fixture?.close();
  });

  /** A session driven by puppeteer through its connect_url, with one tab on the fixture. */
  async function drivenSession(body: Record<string, unknown>, bg: Rgb) {
    const { res, body: session } = await createSession(t, ws.key, { region: "us-east1", ...body });
    expect(res.status).toBe(201);
    tokensSeen.add(tokenOf(session.live_view_url!));
    tokensSeen.add(tokenOf(session.connect_url!));
    const driver = await puppeteer.connect({ browserWSEndpoint: session.connect_url!, defaultViewport: null });
    const tab = await driver.newPage();
    await tab.goto(fixture.url(bg, "First tab"));
    const viewport = await tab.evaluate(() => ({ width: innerWidth, height: innerHeight }));
    return { session, driver, tab, viewport };
  }

  async function openViewer(session: SessionBody, size: { width: number; height: number }) {
    tokensSeen.add(tokenOf(session.live_view_url!));
    const context = await viewers.newContext({ viewport: size });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("request", (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith("data:")) problems.push(`foreign request: ${r.url()}`);
    });
    const response = await page.goto(session.live_view_url!);
    return { context, page, response: response!, problems };
  }

  async function clickTarget(page: ViewerPage, tab: Page, viewport: { width: number; height: number }) {
    const before = (await log(tab)).length;
    const at = await onScreen(page, TARGET_CENTRE, viewport);
    await page.mouse.click(at.x, at.y);
    const events = await eventually(
      async () => (await log(tab)).slice(before),
      (e) => e.some((x) => x.type === "click"),
    );
    const down = events.find((e) => e.type === "mousedown")!;
    expect(down.target).toBe("target");
    // Within one viewer pixel (in the session's CSS px) plus rounding of where the pointer lands.
    const tolerance = 1 / at.scale + 1.5;
    expect(Math.abs(down.x! - TARGET_CENTRE.x)).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(down.y! - TARGET_CENTRE.y)).toBeLessThanOrEqual(tolerance);
    return at.scale;
  }

  it("shows the session's tab live, forwards clicks and typing at two viewer sizes, and records Done", async () => {
    const { session, driver, tab, viewport } = await drivenSession(
      { live_view: { interactive: true, instructions: "Please solve the puzzle on this page, then click Done." } },
      RED,
    );
    const { context, page, response, problems } = await openViewer(session, { width: 1280, height: 800 });
    try {
      // H46: a page whose address carries a credential.
      const headers = response.headers();
      expect(response.status()).toBe(200);
      expect(headers["referrer-policy"]).toBe("no-referrer");
      expect(headers["cache-control"]).toBe("no-store");
      expect(headers["content-security-policy"]).toMatch(/frame-ancestors 'self'/);
      expect(headers["content-security-policy"]).toMatch(/script-src 'self'/);
      expect(headers["x-content-type-options"]).toBe("nosniff");

      await showsColour(page, RED);
      // The token left the address bar (and history) once the page had it.
      expect(page.url()).toBe(`${t.url}/live-view`);
      await expect.poll(() => page.textContent("#state")).toBe("Live");
      expect(await page.textContent("#instructions")).toBe("Please solve the puzzle on this page, then click Done.");
      expect(await page.isVisible("#done")).toBe(true);
      expect(await page.isVisible("#mode")).toBe(false);
      expect(await page.textContent("#remaining")).toMatch(/^(29|30):\d\d left$/);
      await eventually(
        () => page.locator(".tab").allTextContents(),
        (tabs) => tabs.includes("First tab"),
      );
      await page.screenshot({ path: "test-results/live-view-interactive.png" });

      // The session navigates (to another site, so another renderer process): the picture follows.
      await tab.goto(fixture.url(BLUE, "Second page", "localhost"));
      await showsColour(page, BLUE);

      // A click lands on the target; typing, shortcuts, Tab and Enter arrive in the session's page.
      const bigScale = await clickTarget(page, tab, viewport);
      const field = await onScreen(page, { x: 200, y: 60 }, viewport);
      await page.mouse.click(field.x, field.y);
      await eventually(
        () => tab.evaluate(() => document.activeElement?.id),
        (id) => id === "field",
      );
      await page.keyboard.type("hello");
      await page.keyboard.press("Backspace");
      await eventually(
        () => tab.$eval("#field", (el) => (el as HTMLInputElement).value),
        (v) => v === "hell",
      );
      await page.keyboard.press("Control+A");
      await page.keyboard.type("ok");
      await eventually(
        () => tab.$eval("#field", (el) => (el as HTMLInputElement).value),
        (v) => v === "ok",
      );
      // Paste: the viewer's clipboard text is inserted as typed.
      await page.evaluate(() => {
        const data = new DataTransfer();
        data.setData("text/plain", " pasted");
        document.getElementById("keys")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      });
      // An IME composition (as a Japanese keyboard makes): only the committed text arrives.
      const ime = await context.newCDPSession(page);
      await ime.send("Input.imeSetComposition", { text: "にほん", selectionStart: 3, selectionEnd: 3 });
      await ime.send("Input.insertText", { text: "日本" });
      await eventually(
        () => tab.$eval("#field", (el) => (el as HTMLInputElement).value),
        (v) => v === "ok pasted日本",
        5_000,
      );
      await page.keyboard.press("Tab");
      await eventually(
        () => tab.evaluate(() => document.activeElement?.id),
        (id) => id === "after",
      );
      await page.keyboard.press("Enter");
      await eventually(
        () => log(tab),
        (events) => events.some((e) => e.type === "click" && e.target === "after"),
      );
      const keys = (await log(tab)).filter((e) => e.type === "keydown");
      expect(keys.some((e) => e.key?.toLowerCase() === "a" && e.ctrl)).toBe(true);

      // A phone-sized viewer of this interactive view (issue 25): while it watches, the tab is laid
      // out for the phone (phone-fit.ts), so the page fills its screen; a tap on the field lands.
      await page.setViewportSize({ width: 420, height: 760 });
      // (This page has no meta viewport, so a mobile layout is Chromium's 980 px, scaled to the screen.)
      const phoneView = await eventually(
        () => tab.evaluate(() => ({ width: innerWidth, height: innerHeight })),
        (v) => v.width !== viewport.width,
      );
      await showsColour(page, BLUE);
      const stage = (await page.locator("#screen").boundingBox())!;
      expect(Math.abs(stage.width / stage.height - phoneView.width / phoneView.height)).toBeLessThan(0.05);
      // The tap is placed on a frame of the phone layout: one of the desktop layout, still shown
      // under load, would put it elsewhere (seen once in CI: no event at all).
      await eventually(
        () => page.$eval("#screen", (c) => (c as HTMLCanvasElement).width / (c as HTMLCanvasElement).height),
        (ratio) => Math.abs(ratio - phoneView.width / phoneView.height) < 0.05,
      );
      const tapAt = await onScreen(page, { x: 200, y: 60 }, phoneView);
      const beforeTap = (await log(tab)).length;
      await page.mouse.click(tapAt.x, tapAt.y);
      await eventually(
        async () => (await log(tab)).slice(beforeTap),
        (e) => e.some((x) => x.type === "mousedown" && x.target === "field"),
      );
      await page.screenshot({ path: "test-results/live-view-phone.png" });
      await page.setViewportSize({ width: 1280, height: 800 });
      // Back at a desktop size, the page is laid out as the session has it again.
      await eventually(
        () => tab.evaluate(() => innerWidth),
        (w) => w === viewport.width,
      );
      // ...and the viewer draws a frame of that layout: a click placed for it on the last phone
      // frame, still shown, missed the page (seen once in CI: no event at all).
      await eventually(
        () => page.$eval("#screen", (c) => (c as HTMLCanvasElement).width / (c as HTMLCanvasElement).height),
        (ratio) => Math.abs(ratio - viewport.width / viewport.height) < 0.05,
      );
      expect(await clickTarget(page, tab, viewport)).toBeGreaterThan(bigScale * 0.9);

      // Pinch zoom in the session (page scale 2): the frame shows a quarter of the page, larger; a
      // click on what is drawn still lands on it (the field's middle, CSS 200,60, is drawn at 400,120).
      const zoom = await tab.createCDPSession();
      // Asked again while waiting: the relayout after the phone layout is undone can reset a page scale
      // asked for a moment too early (seen once in CI), and the test is about what the frame shows.
      await eventually(
        async () => {
          await zoom.send("Emulation.setPageScaleFactor", { pageScaleFactor: 2 });
          return pixelAt(page, { x: 600, y: 100 }, viewport);
        },
        (p) => near(p, [255, 255, 255]),
      );
      const before = (await log(tab)).length;
      const drawnField = await onScreen(page, { x: 400, y: 120 }, viewport);
      await page.mouse.click(drawnField.x, drawnField.y);
      const zoomedDown = (
        await eventually(
          async () => (await log(tab)).slice(before),
          (e) => e.some((x) => x.type === "mousedown"),
        )
      ).find((e) => e.type === "mousedown")!;
      expect(zoomedDown.target).toBe("field");
      expect(Math.abs(zoomedDown.x! - 200)).toBeLessThanOrEqual(2);
      expect(Math.abs(zoomedDown.y! - 60)).toBeLessThanOrEqual(2);
      await zoom.send("Emulation.setPageScaleFactor", { pageScaleFactor: 1 });
      await zoom.detach();

      // One viewer now, on this node.
      expect((await getSession(t, ws.key, session.id)) as unknown as { live_view: { viewers: number } }).toMatchObject({ live_view: { viewers: 1 } });

      // Done: recorded once per click, with who clicked; the backend waiting on the events hears it.
      const waiting = fetch(`${t.url}/v1/sessions/${session.id}/events?type=live_view.done&wait=10`, { headers: bearer(ws.key) });
      await page.click("#done");
      await expect.poll(() => page.textContent("#done-status")).toMatch(/^Done sent/);
      const answer = (await (await waiting).json()) as { items: Array<{ type: string; data: Record<string, unknown> }> };
      expect(answer.items).toHaveLength(1);
      const done = answer.items[0]!;
      expect(done.data).toMatchObject({
        jti: expect.any(String),
        user_agent: expect.stringContaining("Chrome"),
        viewport: { width: 1280, height: expect.any(Number) },
      });
      expect(done.data.viewer_id).toMatch(/^vwr_/);
      expect(JSON.stringify(done)).not.toContain(tokenOf(session.live_view_url!));
      await page.click("#done");
      await eventually(
        () => t.app.deps.db.prisma.sessionEvent.count({ where: { sessionId: session.id, type: "live_view.done" } }),
        (n) => n === 2,
      );
      await page.screenshot({ path: "test-results/live-view-done.png" });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await driver.disconnect();
      await releaseSession(t, ws.key, session.id);
    }
    // The viewer's coming and going is on the session's record too (its close is recorded as the
    // viewer's socket ends, which may come just after the release's answer).
    const types = await eventually(
      async () => (await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: session.id }, orderBy: { id: "asc" } })).map((e) => e.type),
      (seen) => seen.includes("live_view.closed"),
    );
    expect(types).toEqual(expect.arrayContaining(["live_view.opened", "live_view.closed"]));
  }, 120_000);

  it("switches tabs: follows a tab the agent opens, and shows the one the person picks", async () => {
    const { session, driver, tab } = await drivenSession({ live_view: { interactive: true } }, RED);
    const { context, page } = await openViewer(session, { width: 1024, height: 700 });
    try {
      await showsColour(page, RED);
      const second = await driver.newPage();
      await second.goto(fixture.url(GREEN, "Login popup"));
      await showsColour(page, GREEN);
      await eventually(
        () => page.locator(".tab").allTextContents(),
        (tabs) => tabs.includes("Login popup") && tabs.includes("First tab"),
      );
      expect(await page.getAttribute(".tab[aria-current=page]", "title")).toContain(`bg=${hex(GREEN)}`);

      await page.locator(".tab", { hasText: "First tab" }).click();
      await showsColour(page, RED);
      // Input goes to the tab on show.
      await clickTarget(page, tab, await tab.evaluate(() => ({ width: innerWidth, height: innerHeight })));

      // The tab on show closes: the view moves to another one.
      await page.locator(".tab", { hasText: "Login popup" }).click();
      await showsColour(page, GREEN);
      await second.close();
      await showsColour(page, RED);
      await eventually(
        () => page.locator(".tab").allTextContents(),
        (tabs) => !tabs.includes("Login popup"),
      );
    } finally {
      await context.close();
      await driver.disconnect();
      await releaseSession(t, ws.key, session.id);
    }
  }, 90_000);

  it("serves several viewers of one session at once, each with its own frames", async () => {
    const { session, driver, tab } = await drivenSession({ live_view: { interactive: true } }, RED);
    const a = await openViewer(session, { width: 1000, height: 700 });
    const b = await openViewer(session, { width: 500, height: 800 });
    try {
      await Promise.all([showsColour(a.page, RED), showsColour(b.page, RED)]);
      expect((await getSession(t, ws.key, session.id)) as unknown as { live_view: { viewers: number } }).toMatchObject({ live_view: { viewers: 2 } });
      const gql = (await (
        await fetch(`${t.url}/graphql`, {
          method: "POST",
          headers: { ...bearer(ws.key), "content-type": "application/json" },
          body: JSON.stringify({ query: `{ session(id: "${session.id}") { liveViewViewers } }` }),
        })
      ).json()) as { data: { session: { liveViewViewers: number } } };
      expect(gql.data.session.liveViewViewers).toBe(2);
      await tab.goto(fixture.url(BLUE, "Next"));
      await Promise.all([showsColour(a.page, BLUE), showsColour(b.page, BLUE)]);
    } finally {
      await a.context.close();
      await b.context.close();
      await driver.disconnect();
    }
    await eventually(
      async () => t.app.deps.runtime.viewerCount(session.id),
      (n) => n === 0,
    );
    await releaseSession(t, ws.key, session.id);
  }, 90_000);

  it("read-only: says view only, and forwards nothing, not even input written straight to the socket", async () => {
    const { session, driver, tab, viewport } = await drivenSession({}, GREEN);
    const { context, page } = await openViewer(session, { width: 1000, height: 700 });
    try {
      await showsColour(page, GREEN);
      expect(await page.isVisible("#mode")).toBe(true);
      expect(await page.textContent("#mode")).toBe("View only");
      expect(await page.isVisible("#done")).toBe(false);
      const at = await onScreen(page, TARGET_CENTRE, viewport);
      await page.mouse.click(at.x, at.y);
      await page.keyboard.type("nope");
      await page.screenshot({ path: "test-results/live-view-read-only.png" });

      // The socket, by hand: a valid token, then input the page would never send.
      const fresh = await getSession(t, ws.key, session.id);
      tokensSeen.add(tokenOf(fresh.live_view_url!));
      const raw = await openRaw(t, tokenOf(fresh.live_view_url!), { w: 400, h: 300, dpr: 1 });
      expect(await raw.next("hello")).toMatchObject({ interactive: false });
      await eventually(
        async () => raw.frames,
        (n) => n > 0,
      );
      // Frames are scaled to the viewer's canvas in device pixels, and follow it when it changes.
      expect(jpegSize(raw.lastFrame!.subarray(8))).toEqual({ width: 400, height: 300 });
      expect({ width: raw.lastFrame!.readUInt16BE(4), height: raw.lastFrame!.readUInt16BE(6) }).toEqual(viewport);
      raw.ws.send(JSON.stringify({ t: "size", w: 160, h: 120, dpr: 2 }));
      await eventually(
        async () => jpegSize(raw.lastFrame!.subarray(8)),
        (size) => size.width === 320 && size.height === 240,
      );
      // Sizes past the rate are not dropped: the latest one is applied once the rate allows.
      for (let i = 0; i < 14; i++) raw.ws.send(JSON.stringify({ t: "size", w: 100 + i * 4, h: 80, dpr: 1 }));
      raw.ws.send(JSON.stringify({ t: "size", w: 200, h: 150, dpr: 1 }));
      await eventually(
        async () => jpegSize(raw.lastFrame!.subarray(8)),
        (size) => size.width === 200 && size.height === 150,
        5_000,
      );
      const target = { x: TARGET_CENTRE.x / viewport.width, y: TARGET_CENTRE.y / viewport.height };
      raw.ws.send(JSON.stringify({ t: "mouse", e: "down", ...target, b: "left", bs: 1, c: 1, m: 0 }));
      raw.ws.send(JSON.stringify({ t: "mouse", e: "up", ...target, b: "left", bs: 0, c: 1, m: 0 }));
      raw.ws.send(JSON.stringify({ t: "key", e: "down", key: "x", code: "KeyX", kc: 88, text: "x", m: 0 }));
      raw.ws.send(JSON.stringify({ t: "text", s: "injected" }));
      raw.ws.send(JSON.stringify({ t: "done" }));
      expect(await raw.next("done")).toMatchObject({ ok: false });
      await new Promise((r) => setTimeout(r, 500));
      expect(await log(tab)).toEqual([]);
      expect(await tab.$eval("#field", (el) => (el as HTMLInputElement).value)).toBe("");
      expect(await t.app.deps.db.prisma.sessionEvent.count({ where: { sessionId: session.id, type: "live_view.done" } })).toBe(0);
      raw.ws.close();
    } finally {
      await context.close();
      await driver.disconnect();
      await releaseSession(t, ws.key, session.id);
    }
  }, 90_000);

  it("refuses links that are invalid, expired or revoked, sockets from another origin, and slow or wrong first messages", async () => {
    // No token: this address explains itself.
    const landing = await fetch(`${t.url}/`);
    expect(landing.status).toBe(200);
    expect(await landing.text()).toMatch(/live views/);

    // A made-up token: a clear page, the right status, nothing echoed back.
    const bogus = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
    const refused = await fetch(`${t.url}/?token=${bogus}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(refused.headers.get("referrer-policy")).toBe("no-referrer");
    const refusedBody = await refused.text();
    expect(refusedBody).toMatch(/fresh link/);
    expect(refusedBody).not.toContain(bogus);
    expect(refusedBody).not.toMatch(/at \w+ \(/); // no stack
    const shown = await viewers.newPage({ viewport: { width: 900, height: 600 } });
    expect((await shown.goto(`${t.url}/?token=${bogus}`))!.status()).toBe(401);
    await shown.screenshot({ path: "test-results/live-view-refused.png" });
    await shown.close();

    const { body: session } = await createSession(t, ws.key, { region: "us-east1", live_view: { interactive: true } });
    tokensSeen.add(tokenOf(session.live_view_url!));
    tokensSeen.add(tokenOf(session.connect_url!));
    try {
      // A CDP token is not a live-view token.
      const cdpTry = await openRaw(t, tokenOf(session.connect_url!));
      expect(await cdpTry.closed).toMatchObject({ code: 4403 });
      expect(cdpTry.messages.at(-1)).toMatchObject({ t: "end", reason: "refused" });

      // Another origin, or none, cannot open the socket.
      expect(await rawViewer(t, { origin: "http://evil.example" })).toBe(403);
      expect(await rawViewer(t, { origin: null })).toBe(403);
      expect(await handshake(`${t.url.replace(/^http/, "ws")}/live-view/socket?token=${tokenOf(session.live_view_url!)}`)).toBe(403);

      // A first message that is not auth, and no first message at all.
      const wrong = await rawViewer(t);
      if (typeof wrong === "number") throw new Error("refused");
      wrong.ws.send(JSON.stringify({ t: "done" }));
      expect(await wrong.closed).toMatchObject({ code: 1008 });
      const silent = await rawViewer(t);
      if (typeof silent === "number") throw new Error("refused");
      const started = Date.now();
      expect(await silent.closed).toMatchObject({ code: 1008 });
      expect(Date.now() - started).toBeLessThan(8_000);

      // Expired: the same link six minutes later (the app's clock moves, tokens live five).
      clockOffsetMs = 6 * 60_000;
      const expired = await fetch(session.live_view_url!);
      expect(expired.status).toBe(401);
      expect(await expired.text()).toMatch(/expired/);
      const late = await openRaw(t, tokenOf(session.live_view_url!));
      expect(await late.closed).toMatchObject({ code: 4403 });
      clockOffsetMs = 0;

      // Revoked while watching: the viewer is told and closed; the old link is refused; keepalive's new one works.
      const fresh = await getSession(t, ws.key, session.id);
      const { context, page } = await openViewer(fresh, { width: 900, height: 650 });
      try {
        await expect.poll(() => page.textContent("#state")).toBe("Live");
        expect((await fetch(`${t.url}/v1/sessions/${session.id}/live-view`, { method: "DELETE", headers: bearer(ws.key) })).status).toBe(204);
        await expect.poll(() => page.textContent("#overlay-text")).toMatch(/closed this live view/);
        expect(await page.textContent("#state")).toBe("Ended");
        const again = await fetch(fresh.live_view_url!);
        expect(again.status).toBe(401);
        expect(await again.text()).toMatch(/closed this live view/);
        const replay = await openRaw(t, tokenOf(fresh.live_view_url!));
        expect(await replay.closed).toMatchObject({ code: 4403 });
        // A reload does not bring it back either.
        await page.reload();
        await expect.poll(() => page.textContent("#overlay-title")).toMatch(/needs its full link|ended/);
      } finally {
        await context.close();
      }
      const renewed = (await (await fetch(`${t.url}/v1/sessions/${session.id}:keepalive`, { method: "POST", headers: bearer(ws.key) })).json()) as SessionBody;
      tokensSeen.add(tokenOf(renewed.live_view_url!));
      expect((await fetch(renewed.live_view_url!)).status).toBe(200);
    } finally {
      clockOffsetMs = 0;
      await releaseSession(t, ws.key, session.id);
    }
  }, 90_000);

  it("ends the view with the reason when the session ends, and the link is then refused", async () => {
    const { session, driver } = await drivenSession({ live_view: { interactive: true, instructions: "Sign the document." } }, BLUE);
    const { context, page } = await openViewer(session, { width: 1000, height: 700 });
    const raw = await openRaw(t, tokenOf(session.live_view_url!));
    try {
      await showsColour(page, BLUE);
      await raw.next("hello");
      await driver.disconnect();
      expect((await releaseSession(t, ws.key, session.id)).status).toBe(204);
      // H48: within seconds, with a code that says do not come back (4410: the session has ended).
      expect(await raw.closed).toMatchObject({ code: 4410 });
      expect(raw.messages.at(-1)).toMatchObject({ t: "end", message: expect.stringMatching(/released by its owner/) });
      await expect.poll(() => page.textContent("#overlay-text"), { timeout: 5_000 }).toMatch(/The session has ended: it was released by its owner/);
      expect(await page.textContent("#state")).toBe("Ended");
      expect(await page.isVisible("#done")).toBe(false);
      await page.screenshot({ path: "test-results/live-view-ended.png" });
      // It stays ended: no reconnection attempts.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await page.textContent("#state")).toBe("Ended");
      const gone = await fetch(session.live_view_url!);
      expect(gone.status).toBe(410);
      expect(await gone.text()).toMatch(/ended/);
      const closed = await eventually(
        () => t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: session.id, type: "live_view.closed" } }),
        (rows) => rows.length === 2,
      );
      expect(closed.map((e) => (e.data as { reason: string }).reason)).toEqual(["session_ended", "session_ended"]);
    } finally {
      await context.close();
    }
  }, 60_000);
  it("reconnects by itself when the connection drops while its link is still valid", async () => {
    const upgraded: Duplex[] = [];
    const spy = (req: http.IncomingMessage, socket: Duplex) => {
      if (new URL(req.url ?? "/", "http://localhost").pathname === "/live-view/socket") upgraded.push(socket);
    };
    t.app.server.on("upgrade", spy);
    const { session, driver, tab } = await drivenSession({ live_view: { interactive: true } }, RED);
    const { context, page } = await openViewer(session, { width: 900, height: 650 });
    try {
      await showsColour(page, RED);
      expect(upgraded).toHaveLength(1);
      // The network drops (no closing handshake): the page tries again with the token it kept.
      upgraded[0]!.destroy();
      await expect.poll(() => page.textContent("#state")).toBe("Reconnecting…");
      await expect.poll(() => page.textContent("#state"), { timeout: 10_000 }).toBe("Live");
      expect(upgraded).toHaveLength(2);
      await tab.goto(fixture.url(GREEN, "After the drop"));
      await showsColour(page, GREEN);
      const events = await eventually(
        () => t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: session.id, type: { startsWith: "live_view." } }, orderBy: { id: "asc" } }),
        (rows) => rows.length >= 3,
      );
      expect(events.map((e) => e.type)).toEqual(["live_view.opened", "live_view.closed", "live_view.opened"]);
      expect(events[1]!.data).toMatchObject({ reason: "viewer_left" });
    } finally {
      t.app.server.off("upgrade", spy);
      await context.close();
      await driver.disconnect();
      await releaseSession(t, ws.key, session.id);
    }
  }, 60_000);

  it("never writes a token to the log (the page's own request is logged with it redacted)", () => {
    expect(tokensSeen.size).toBeGreaterThan(5);
    const all = logLines.join("");
    for (const token of tokensSeen) expect(all.includes(token)).toBe(false);
    expect(all).toContain("/?token=[redacted]");
  });
});
