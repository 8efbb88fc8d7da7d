import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Page as PwPage } from "playwright-core";
import puppeteer, { type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const settings = {
  viewport: { width: 1111, height: 777, device_scale_factor: 2 },
  user_agent: "VesselTest/1.0 (settings check)",
  locale: "fr-CH",
  timezone: "Pacific/Auckland",
  geolocation: { latitude: 46.948, longitude: 7.4474, accuracy: 5 },
};

/** What page script sees: in the page itself, in a dedicated worker it starts, and what its server was sent. */
const PROBE = `<!doctype html><title>probe</title><script>
const seen = () => ({ ua: navigator.userAgent, language: navigator.language, languages: [...navigator.languages],
  zone: Intl.DateTimeFormat().resolvedOptions().timeZone, locale: Intl.DateTimeFormat().resolvedOptions().locale });
window.probe = async () => {
  const worker = new Worker(URL.createObjectURL(new Blob(["(" + (() => { postMessage({ ua: navigator.userAgent, language: navigator.language,
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone }); }).toString() + ")()"], { type: "text/javascript" })));
  const inWorker = await new Promise((resolve) => (worker.onmessage = (e) => resolve(e.data)));
  const position = await new Promise((resolve) => navigator.geolocation.getCurrentPosition(
    (p) => resolve({ latitude: p.coords.latitude, longitude: p.coords.longitude }), (e) => resolve({ error: e.message })));
  const header = await (await fetch("/headers")).json();
  return { page: { ...seen(), width: innerWidth, height: innerHeight, dpr: devicePixelRatio }, languages: [...navigator.languages], worker: inWorker, position, header };
};
</script>`;

const expected = {
  page: { ua: settings.user_agent, language: "fr-CH", zone: "Pacific/Auckland", locale: "fr-CH", width: 1111, height: 777, dpr: 2 },
  worker: { ua: settings.user_agent, language: "fr-CH", zone: "Pacific/Auckland" },
  languages: ["fr-CH", "fr"],
  position: { latitude: 46.948, longitude: 7.4474 },
  header: { ua: settings.user_agent, language: "fr-CH,fr;q=0.9" },
};

describe.skipIf(!hasChromium)("browser settings at create", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "3", VESSEL_EGRESS_ALLOW: "127.0.0.1/32" } });
    ws = await seedWorkspace(t);
    site = http.createServer((req, res) => {
      if (req.url === "/headers")
        return res
          .setHeader("content-type", "application/json")
          .end(JSON.stringify({ ua: req.headers["user-agent"], language: req.headers["accept-language"] }));
      res.setHeader("content-type", "text/html").end(PROBE);
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    site?.close();
    await t?.stop();
  });

  const probe = (page: Page | PwPage) => (page as Page).evaluate(() => (window as unknown as { probe(): Promise<unknown> }).probe());

  async function withSession(fromSpare: boolean, drive: (connectUrl: string) => Promise<void>) {
    // A spare is there (warm 1) or taken first by another session, so this one launches cold.
    const blocker = fromSpare ? undefined : (await createSession(t, ws.key)).body;
    if (fromSpare)
      await eventually(
        async () => t.app.deps.browsers.report().warm,
        (n) => n === 1,
      );
    const spareBefore = t.app.deps.browsers.report().warm;
    const { res, body } = await createSession(t, ws.key, { region: "us-east1", browser: settings });
    expect(res.status).toBe(201);
    expect((body as unknown as { browser: unknown }).browser).toEqual(settings);
    if (fromSpare) expect(spareBefore).toBe(1);
    try {
      await drive(body.connect_url!);
    } finally {
      await releaseSession(t, ws.key, body.id);
      if (blocker) await releaseSession(t, ws.key, blocker.id);
    }
  }

  for (const fromSpare of [true, false]) {
    it(`hold for Puppeteer in the first tab, a new tab and a worker (${fromSpare ? "warm spare" : "launched cold"})`, async () => {
      await withSession(fromSpare, async (connectUrl) => {
        const browser = await puppeteer.connect({ browserWSEndpoint: connectUrl, defaultViewport: null });
        try {
          const [first] = await browser.pages();
          await first!.goto(url);
          expect(await probe(first!)).toMatchObject(expected);
          const second = await browser.newPage();
          await second.goto(url);
          expect(await probe(second)).toMatchObject(expected);
        } finally {
          await browser.disconnect();
        }
      });
    });

    it(`hold for Playwright over connectOverCDP (${fromSpare ? "warm spare" : "launched cold"})`, async () => {
      await withSession(fromSpare, async (connectUrl) => {
        const browser = await chromium.connectOverCDP(connectUrl);
        try {
          const context = browser.contexts()[0]!;
          const first = context.pages()[0] ?? (await context.newPage());
          await first.goto(url);
          expect(await probe(first)).toMatchObject(expected);
          const second = await context.newPage();
          await second.goto(url);
          expect(await probe(second)).toMatchObject(expected);
        } finally {
          await browser.close();
        }
      });
    });
  }

  it("leave a session without settings with the browser's own", async () => {
    for (let i = 0; i < 2; i++) {
      const { body } = await createSession(t, ws.key);
      expect((body as unknown as { browser: unknown }).browser).toBeNull();
      const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url!, defaultViewport: null });
      const page = await browser.newPage();
      await page.goto(url);
      const seen = (await probe(page)) as { page: { ua: string; zone: string } };
      expect(seen.page.ua).not.toBe(settings.user_agent);
      expect(seen.page.zone).not.toBe("Pacific/Auckland");
      await browser.disconnect();
      await releaseSession(t, ws.key, body.id);
    }
  });

  it("refuses out-of-bounds settings with clear 400s, creating nothing", async () => {
    const before = await t.app.deps.db.prisma.session.count();
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ viewport: { width: 199, height: 800 } }, /width must be at least 200/],
      [{ viewport: { width: 1280, height: 3841 } }, /height must be at most 3840/],
      [{ timezone: "Mars/Olympus" }, /IANA time zone/],
      [{ timezone: "+05:00" }, /IANA time zone/],
      [{ locale: "en_US" }, /BCP 47/],
      [{ user_agent: "x".repeat(513) }, /512/],
      [{ user_agent: "bad\nagent" }, /control characters/],
      [{ geolocation: { latitude: 91, longitude: 0 } }, /90/],
      [{ colour: "blue" }, /./],
    ];
    for (const [browser, message] of bad) {
      const { res, body } = await createSession(t, ws.key, { region: "us-east1", browser });
      expect(res.status, JSON.stringify(browser)).toBe(400);
      expect(JSON.stringify(body), JSON.stringify(browser)).toMatch(message);
    }
    expect(await t.app.deps.db.prisma.session.count()).toBe(before);
  });
});
