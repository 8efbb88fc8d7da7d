import http from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { ffprobe, hasFfmpeg, lastFramePixel, near } from "../support/recordings.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if ((!hasChromium || !hasFfmpeg) && servicesRequired) throw new Error("Chromium and ffmpeg are required (VESSEL_REQUIRE_SERVICES=1)");

const RED = [200, 30, 30] as const;
const BLUE = [30, 60, 200] as const;

/** A page of one colour with a small animated box (so the screen keeps changing). */
const colourPage = ([r, g, b]: readonly number[]) => `<!doctype html><title>rgb(${r},${g},${b})</title>
<style>html,body{margin:0;height:100%;background:rgb(${r},${g},${b})}#box{position:fixed;left:0;top:0;width:40px;height:40px;background:#fff}</style>
<div id="box"></div><input id="in" style="position:fixed;right:0;bottom:0">
<script>let x = 0; (function step() { x = (x + 3) % 200; document.getElementById("box").style.transform = "translateX(" + x + "px)"; requestAnimationFrame(step); })();</script>`;

/**
 * Issue 45, point 8: one notion of the active tab. A client opens a second tab and then drives the
 * first: the recording films the first (not the most recently opened), and the session's `page`
 * names it, as the live view shows it.
 */
describe.skipIf(!hasChromium || !hasFfmpeg)("the active tab", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let siteUrl: string;
  beforeAll(async () => {
    site = http.createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(colourPage(req.url === "/blue" ? BLUE : RED)));
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    site?.close();
  });

  const currentPage = async (id: string) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query: `query ($id: String!) { session(id: $id) { currentPage { url } } }`, variables: { id } }),
    });
    return ((await res.json()) as { data?: { session?: { currentPage?: { url: string } | null } } }).data?.session?.currentPage?.url;
  };

  it("films the tab that was driven, not the one opened last; the session's page is that tab", async () => {
    const { res, body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    expect(res.status).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url!, defaultViewport: null });
    try {
      const [first] = await browser.pages();
      await first!.goto(`${siteUrl}/red`);
      const second = await browser.newPage();
      await second.goto(`${siteUrl}/blue`);
      await new Promise((r) => setTimeout(r, 800));
      expect(await currentPage(body.id)).toBe(`${siteUrl}/blue`);
      // Back to the first tab, without bringing it to the front: typing into it.
      await first!.click("#in");
      await first!.keyboard.type("driven");
      await new Promise((r) => setTimeout(r, 1500));
      expect(await currentPage(body.id)).toBe(`${siteUrl}/red`);
    } finally {
      await browser.disconnect();
    }
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    await eventually(
      () => fetch(`${t.url}/v1/sessions/${body.id}/recording`, { headers: bearer(ws.key) }).then((r) => r.status),
      (s) => s !== 409,
      60_000,
    );
    const video = await fetch(`${t.url}/v1/sessions/${body.id}/recording`, { headers: bearer(ws.key) });
    expect(video.status).toBe(200);
    const bytes = Buffer.from(await video.arrayBuffer());
    const probe = ffprobe(bytes);
    const pixel = lastFramePixel(bytes, probe.width, Math.floor(probe.width / 2), Math.floor(probe.height / 2));
    expect(near(pixel, RED), `the last frame's middle is rgb(${pixel.join(",")}), not the driven tab's red`).toBe(true);
  }, 120_000);
});
