import http from "node:http";
import type net from "node:net";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@vessel/client/cli";
import { seedWorkspace, startTestApp, bearer, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

type Entry = { seq: number; type: string } & Record<string, unknown>;

/**
 * Issue 45, point 9: every request that got a response is in the session's network log, one
 * answered with `Cache-Control: no-store` too; a read that names no type leaves out `cdp` (most of a
 * driven session's entries); URLs are kept exact and shown decoded.
 */
describe.skipIf(!hasChromium)("session logs: network entries", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let siteUrl: string;

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const route = (req.url ?? "/").split("?")[0];
      if (route === "/page")
        return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
          `<!doctype html><title>p</title><script>
            (async () => {
              // The no-store 404's body is never read (as the issue's page did): Chromium then never says it finished.
              window.__kept = await fetch("/x");
              for (const path of ["/y", "/z", "/caf%C3%A9?q=%E2%80%A6"]) await (await fetch(path)).text();
              window.__done = true;
            })();
          </script>`,
        );
      if (route === "/x") return void res.writeHead(404, { "cache-control": "no-store", "content-type": "text/plain" }).end("gone");
      if (route === "/z") return void res.writeHead(200, { "cache-control": "no-store", "content-type": "application/json" }).end("{}");
      res.writeHead(404, { "content-type": "text/plain" }).end("not here");
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    siteUrl = `http://127.0.0.1:${(site.address() as net.AddressInfo).port}`;
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    site?.close();
  });

  const logs = async (id: string, query = "") => {
    const res = await fetch(`${t.url}/v1/sessions/${id}/logs${query}`, { headers: bearer(ws.key) });
    expect(res.status).toBe(200);
    return ((await res.json()) as { items: Entry[] }).items;
  };

  it("logs the no-store 404 like any other answer, leaves cdp out unless asked, and keeps URLs readable", async () => {
    const { res, body: session } = await createSession(t, ws.key, { region: "us-east1" });
    expect(res.status).toBe(201);
    const browser: Browser = await puppeteer.connect({ browserWSEndpoint: session.connect_url!, defaultViewport: null });
    try {
      const [page] = await browser.pages();
      await page!.goto(`${siteUrl}/page`);
      await page!.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await browser.disconnect();
    }
    expect((await releaseSession(t, ws.key, session.id)).status).toBe(204);

    const all = await logs(session.id, "?limit=1000&type=console,page_error,navigation,network,cdp");
    expect(
      all.some((e) => e.type === "cdp"),
      "the driven session sent CDP methods",
    ).toBe(true);
    const network = all.filter((e) => e.type === "network");
    const at = (path: string) => network.find((e) => String(e.url).startsWith(`${siteUrl}${path}`));
    expect(at("/x"), JSON.stringify(network.map((e) => [e.url, e.status]))).toMatchObject({ method: "GET", status: 404, failure: null });
    expect(at("/y")).toMatchObject({ status: 404 });
    expect(at("/z")).toMatchObject({ status: 200 });
    // The entry keeps the exact URL; the command line (and the dashboard) show it decoded.
    expect(at("/caf%C3%A9")).toMatchObject({ url: `${siteUrl}/caf%C3%A9?q=%E2%80%A6`, status: 404 });
    const out: string[] = [];
    const io = {
      out: (s: string) => out.push(s),
      err: (s: string) => out.push(s),
      interactive: false,
      env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url },
    };
    expect(await runCli(["sessions", "logs", session.id, "--type", "network"], io)).toBe(0);
    expect(out.join("\n")).toContain(`GET 404 ${siteUrl}/café?q=…`);
    expect(out.join("\n")).toContain(`GET 404 ${siteUrl}/x`);

    const byDefault = await logs(session.id, "?limit=1000");
    expect(byDefault.filter((e) => e.type === "cdp")).toEqual([]);
    expect(byDefault.filter((e) => e.type === "network")).toHaveLength(network.length);
    const onlyCdp = await logs(session.id, "?limit=1000&type=cdp");
    expect(onlyCdp.length).toBeGreaterThan(0);
    expect(onlyCdp.every((e) => e.type === "cdp" || e.type === "logs.truncated")).toBe(true);
  }, 60_000);
});
