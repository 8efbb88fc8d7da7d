import http from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath } from "../support/services.ts";

describe.skipIf(chromiumPath() === undefined)("block_ads (throwaway proof of the feature registry)", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "2", VESSEL_EGRESS_ALLOW: "127.0.0.1/32" } });
    ws = await seedWorkspace(t);
    site = http.createServer((_req, res) => res.setHeader("content-type", "text/html").end("<title>ok</title>"));
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    site?.close();
    await t?.stop();
  });

  for (const block of [true, false]) {
    it(`block_ads ${block}: an ad address ${block ? "is refused" : "loads"}; a page loads`, async () => {
      const created = await createSession(t, ws.key, { region: "us-east1", ...(block ? { block_ads: true } : {}) });
      expect(created.res.status).toBe(201);
      const browser = await puppeteer.connect({ browserWSEndpoint: created.body.connect_url! });
      try {
        const page = (await browser.pages())[0] ?? (await browser.newPage());
        await page.goto(`${url}/page`);
        const ad = await page.evaluate(async (u) => fetch(u).then(() => "loaded", () => "refused"), `${url}/ads/banner.js`);
        expect(ad).toBe(block ? "refused" : "loaded");
      } finally {
        await browser.disconnect();
        await releaseSession(t, ws.key, created.body.id);
      }
    });
  }
});
