// The workloads scripts/record-cdp-methods.ts drives through its recording relay: what a test-like
// script does with Puppeteer, Playwright (connectOverCDP) and chrome-remote-interface, using the
// public APIs people use for real work, against a small local site. Every CDP method these send
// ends up on Vessel's allow-list, so a call here is a promise that the API behind it works through
// Vessel: add calls when users need more, never calls that only poke at the browser.
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import CDP from "chrome-remote-interface";
import { chromium } from "playwright-core";
import puppeteer, { type ElementHandle, type HTTPRequest } from "puppeteer-core";

const page = `<!doctype html><html><head><title>recording</title><link rel="stylesheet" href="/style.css"></head><body>
<h1 id="greeting">hello from loopback</h1>
<input id="name" aria-label="Name"> <button id="button" onclick="document.body.dataset.clicked = '1'">Go</button>
<select id="choice"><option value="a">a</option><option value="b">b</option></select>
<input type="file" id="file">
<a id="download" href="/download">download</a>
<iframe src="/frame"></iframe>
</body></html>`;

/** The site the workloads load: a page with a form, a download, a frame and an API the clients intercept. */
export async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const route = (req.url ?? "/").split("?")[0];
    if (route === "/") res.writeHead(200, { "content-type": "text/html" }).end(page);
    else if (route === "/frame") res.writeHead(200, { "content-type": "text/html" }).end("<p id=inner>frame</p>");
    else if (route === "/style.css") res.writeHead(200, { "content-type": "text/css" }).end("body { font: 14px sans-serif }");
    else if (route === "/download")
      res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": "attachment; filename=report.txt" }).end("report");
    else if (route === "/api") res.writeHead(200, { "content-type": "application/json" }).end('{"from":"server"}');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitForFile(folder: string, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await fs.readdir(folder)).includes(name)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${name} appeared in ${folder}`);
}

/** `endpoint`: the relay's browser address; `folder`: the session folder (downloads land there, uploads come from there). */
export async function puppeteerWorkload(endpoint: string, site: string, folder: string): Promise<void> {
  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint, downloadBehavior: { policy: "allow", downloadPath: folder } });
  const tab = await browser.newPage();
  await tab.setViewport({ width: 1024, height: 700 });
  await tab.setUserAgent({ userAgent: "VesselRecorder/1.0" });
  await tab.setExtraHTTPHeaders({ "x-recording": "1" });
  await tab.emulateTimezone("Europe/Paris");
  await tab.emulateMediaType("screen");
  await tab.goto(`${site}/`, { waitUntil: "load" });
  await tab.evaluate(() => document.title);
  await tab.$eval("#greeting", (e) => e.textContent);
  await tab.waitForSelector("#name");
  await tab.type("#name", "hello");
  await tab.click("#button");
  await tab.keyboard.press("Enter");
  await tab.hover("#button");
  await tab.mouse.wheel({ deltaY: 100 });
  await tab.select("#choice", "b");
  await tab.$("aria/Name");
  await tab.accessibility.snapshot();
  await tab.frames()[1]?.evaluate(() => document.body.textContent);
  await tab.screenshot();
  await tab.screenshot({ fullPage: true });
  await tab.pdf();
  await tab.metrics();
  await browser.setCookie({ name: "b", value: "2", domain: "127.0.0.1" });
  await browser.deleteCookie(...(await browser.cookies()));
  await fs.writeFile(path.join(folder, "upload.txt"), "upload");
  await ((await tab.$("#file")) as ElementHandle<HTMLInputElement>).uploadFile(path.join(folder, "upload.txt"));
  await tab.click("#download");
  await waitForFile(folder, "report.txt");
  await tab.setRequestInterception(true);
  const intercept = (r: HTTPRequest) => void (r.url().endsWith("/api") ? r.respond({ status: 200, body: '{"from":"puppeteer"}' }) : r.continue());
  tab.on("request", intercept);
  await tab.evaluate(() => fetch("/api").then((r) => r.text()));
  tab.off("request", intercept);
  await tab.setRequestInterception(false);
  tab.once("dialog", (d) => void d.accept());
  await tab.evaluate(() => alert("recorded"));
  await tab.reload();
  const session = await tab.createCDPSession();
  await session.send("Runtime.evaluate", { expression: "1+1", returnByValue: true });
  await session.detach();
  await tab.close();
  const context = await browser.createBrowserContext();
  const other = await context.newPage();
  await other.goto(`${site}/frame`);
  await context.close();
  await browser.close(); // what most scripts end with: the session's browser goes (run this workload last)
}

export async function playwrightWorkload(endpoint: string, site: string): Promise<void> {
  const browser = await chromium.connectOverCDP(endpoint);
  const first = await browser.contexts()[0]!.newPage(); // the default context, as most examples use it
  await first.goto(`${site}/frame`);
  await first.close();
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1000, height: 700 },
    userAgent: "VesselRecorder/1.0",
    locale: "fr-FR",
    timezoneId: "Europe/Paris",
    geolocation: { latitude: 48.85, longitude: 2.35 },
    permissions: ["geolocation"],
    extraHTTPHeaders: { "x-recording": "1" },
    colorScheme: "dark",
  });
  const tab = await context.newPage();
  await tab.route("**/api", (route) => route.fulfill({ status: 200, contentType: "application/json", body: '{"from":"playwright"}' }));
  await tab.goto(`${site}/`);
  await tab.evaluate(() => fetch("/api").then((r) => r.text()));
  await tab.evaluate(() => document.title);
  await tab.locator("#greeting").textContent();
  await tab.fill("#name", "hello");
  await tab.click("#button");
  await tab.press("#name", "Enter");
  await tab.hover("#button");
  await tab.selectOption("#choice", "b");
  await tab.getByRole("button", { name: "Go" }).isVisible();
  await tab.frameLocator("iframe").locator("#inner").textContent();
  await tab.setInputFiles("#file", { name: "upload.txt", mimeType: "text/plain", buffer: Buffer.from("upload") });
  const download = tab.waitForEvent("download");
  await tab.click("#download");
  await (await download).path();
  await tab.screenshot();
  await tab.screenshot({ fullPage: true });
  await tab.pdf();
  await tab.setViewportSize({ width: 800, height: 600 });
  await tab.emulateMedia({ media: "print" });
  await context.addCookies([{ name: "a", value: "1", url: site }]);
  await context.cookies();
  await context.storageState();
  await context.clearCookies();
  tab.once("dialog", (d) => void d.accept());
  await tab.evaluate(() => alert("recorded"));
  const popup = tab.waitForEvent("popup");
  await tab.evaluate(() => void window.open("/frame"));
  await (await popup).close();
  await tab.reload();
  await tab.goBack();
  await tab.goForward();
  const session = await context.newCDPSession(tab);
  await session.send("Runtime.evaluate", { expression: "1+1", returnByValue: true });
  await session.detach();
  const browserSession = await browser.newBrowserCDPSession();
  await browserSession.send("Browser.getVersion");
  await browserSession.detach();
  await tab.close();
  await context.close();
  await browser.close();
}

/** `relay`: the relay's origin (ws://host:port); `query`: what tells the relay who is speaking. */
export async function chromeRemoteInterfaceWorkload(endpoint: string, relay: string, query: string, site: string): Promise<void> {
  // The browser target, with flat sessions (what the Vessel docs and e2e tests show).
  const client = await CDP({ target: endpoint, local: true });
  const { targetId } = (await client.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
  const { sessionId } = (await client.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
  for (const domain of ["Page", "Runtime", "Network"]) await client.send(`${domain}.enable`, {}, sessionId);
  await client.send("Page.navigate", { url: `${site}/` }, sessionId);
  for (let i = 0; i < 100; i++) {
    const state = (await client.send("Runtime.evaluate", { expression: "document.readyState", returnByValue: true }, sessionId)) as {
      result: { value: string };
    };
    if (state.result.value === "complete") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const { root } = (await client.send("DOM.getDocument", {}, sessionId)) as { root: { nodeId: number } };
  await client.send("DOM.querySelector", { nodeId: root.nodeId, selector: "#greeting" }, sessionId);
  await client.send("Page.captureScreenshot", { format: "png" }, sessionId);

  // A page target of its own (what /json/list hands out), through the domain API.
  const pageClient = await CDP({ target: `${relay}/devtools/page/${targetId}?${query}`, local: true });
  const { Page, Runtime } = pageClient as unknown as {
    Page: { enable(): Promise<void>; navigate(p: { url: string }): Promise<void>; loadEventFired(): Promise<void> };
    Runtime: { evaluate(p: { expression: string }): Promise<unknown> };
  };
  await Page.enable();
  const loaded = Page.loadEventFired();
  await Page.navigate({ url: `${site}/frame` });
  await loaded;
  await Runtime.evaluate({ expression: "document.title" });
  await pageClient.close();
  await client.send("Target.closeTarget", { targetId });
  await client.close();
}
