import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import puppeteer, { type Browser as PuppeteerBrowser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeEverywhere } from "../support/axe.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { spawnNode, type NodeProcess } from "../support/processes.ts";
import { eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const shots = path.resolve(import.meta.dirname, "../../.scratch/shots");
const desktop = { width: 1440, height: 900 };

/** A shell as stock Debian has it for this: bash, curl and cat on the PATH, and nothing else (no `uuidgen`). */
function stockShell(): string {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-stock-bin-"));
  for (const tool of ["bash", "curl", "cat"]) {
    const real = execFileSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
    fs.symlinkSync(real, path.join(bin, tool));
  }
  return bin;
}

/**
 * Issue 45's acceptance: from an EMPTY data folder the real process starts (`src/main.ts`, the
 * embedded database, as `npm start` runs it) on a free loopback port; its printed link signs in;
 * a key is created in the dashboard; the curl the dashboard shows for it, copied from its box
 * (selected, then the browser's copy), is run by bash with only bash, curl and cat on the PATH; Puppeteer connects to the session
 * it started and drives a tab; the session's page then shows that tab's logs and its recording.
 */
describe.skipIf(!executablePath)("first run: key, the dashboard's curl, Puppeteer, logs and recording", () => {
  let dataDir: string;
  let bin: string;
  let node: NodeProcess;
  let browser: Browser;
  let page: Page;
  let site: http.Server;
  let siteUrl = "";
  let key = "";
  let sessionId = "";
  let driver: PuppeteerBrowser | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-first-curl-"));
    bin = stockShell();
    node = await spawnNode({ VESSEL_DATA_DIR: dataDir });
    // The page the user's code drives: a solid green page, easy to find in the recording's frames.
    site = http.createServer((req, res) => {
      if (req.url === "/api") return void res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><title>Driven by Puppeteer</title><body style="margin:0;background:#16a34a;height:100vh"><h1>Driven</h1></body>');
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
    const context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: node.url });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  }, 180_000);

  afterAll(async () => {
    await driver?.disconnect().catch(() => undefined);
    await browser?.close();
    await node?.stop();
    site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(bin, { recursive: true, force: true });
  });

  it("follows the printed sign-in link into the dashboard", async () => {
    const line = await eventually(
      async () => node.log.find((l) => /\/dashboard\/sign-in\?token=/.test(l)),
      (l) => l !== undefined,
      60_000,
    );
    const link = /(http:\/\/\S+\/dashboard\/sign-in\?token=\S+)/.exec(line!)![1]!;
    await page.goto(link);
    await page.waitForURL(/\/dashboard\/w\/default\/sessions$/);
    // An empty list offers the curl too: without uuidgen, with a region this node serves.
    const snippet = page.getByRole("region", { name: "curl command that starts a session" });
    const text = (await snippet.textContent())!;
    expect(text).not.toContain("uuidgen");
    expect(text).toContain("$(cat /proc/sys/kernel/random/uuid)");
    expect(text).toContain('"region": "us-east1"');
    // Its own Copy button puts exactly that on the clipboard.
    await page.getByRole("button", { name: "Copy command" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);
    expect(await axeEverywhere(page, "first-run sessions")).toEqual([]);
  }, 120_000);

  it("creates a key in the dashboard and shows the whole of it in a curl that runs in a stock shell", async () => {
    await page.goto(`${node.url}/dashboard/w/default/api-keys`);
    await page.getByRole("button", { name: "Create key" }).click();
    const form = page.getByRole("dialog", { name: "Create API key" });
    await form.getByLabel("Name").fill("first run");
    await form.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Your new API key" });
    key = await dialog.getByLabel("New API key").inputValue();
    expect(key).toMatch(/^vs_\w+\.\S+$/);
    const snippet = dialog.getByRole("region", { name: "curl command that starts a session" });
    const shown = (await snippet.textContent())!;
    expect(shown).toContain(`Bearer ${key}"`);
    expect(shown).not.toContain("…");
    // Copied as a person copies it: the box selected, then the browser's copy.
    await snippet.focus();
    await page.evaluate(() => {
      const box = document.activeElement!;
      getSelection()!.selectAllChildren(box);
      document.execCommand("copy");
    });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.trim()).toBe(shown);
    await page.screenshot({ path: path.join(shots, "first-run-new-key-curl-desktop.png"), fullPage: true });

    const out = execFileSync(path.join(bin, "bash"), ["-c", copied], { env: { PATH: bin, HOME: os.tmpdir() }, encoding: "utf8", timeout: 90_000 });
    const created = JSON.parse(out) as { id: string; status: string; connect_url: string; recording: boolean };
    expect(created.status).toBe("RUNNING");
    expect(created.recording).toBe(true);
    sessionId = created.id;

    // Puppeteer connects to what the curl answered and drives a tab of its own.
    driver = await puppeteer.connect({ browserWSEndpoint: created.connect_url, defaultViewport: null });
    const tab = await driver.newPage();
    await tab.goto(`${siteUrl}/`);
    await tab.evaluate(async () => {
      console.log("first-run: hello from Puppeteer");
      await fetch("/api");
    });
    await new Promise((r) => setTimeout(r, 3000));
    await driver.disconnect();
    driver = undefined;
    const released = await fetch(`${node.url}/v1/sessions/${sessionId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });
    expect(released.status).toBe(204);
  }, 180_000);

  it("shows the session's logs and its recording of the driven tab", async () => {
    await eventually(
      async () => (await fetch(`${node.url}/v1/sessions/${sessionId}/recording`, { headers: { authorization: `Bearer ${key}`, range: "bytes=0-0" } })).status,
      (s) => s === 206 || s === 200,
      120_000,
    );
    await page.goto(`${node.url}/dashboard/w/default/sessions/${sessionId}`);
    await page.locator(".log-row", { hasText: "first-run: hello from Puppeteer" }).waitFor();
    await page.locator(".log-row[data-kind=navigation]", { hasText: "127.0.0.1" }).first().waitFor();
    const video = page.locator(".player video");
    await video.waitFor();
    // A frame from the end of the recording shows the green page Puppeteer drove.
    const [r, g, b] = await video.evaluate(async (v: HTMLVideoElement) => {
      if (v.readyState < 1) await new Promise((ok) => v.addEventListener("loadedmetadata", ok, { once: true }));
      v.muted = true;
      v.pause();
      const seeked = new Promise((ok) => v.addEventListener("seeked", ok, { once: true }));
      v.currentTime = Number.isFinite(v.duration) ? v.duration * 0.8 : 2;
      await seeked;
      const canvas = document.createElement("canvas");
      canvas.width = v.videoWidth;
      canvas.height = v.videoHeight;
      const g2 = canvas.getContext("2d")!;
      g2.drawImage(v, 0, 0);
      return [...g2.getImageData(Math.floor(canvas.width / 2), Math.floor(canvas.height * 0.75), 1, 1).data];
    });
    // #16a34a, give or take the video's compression.
    expect(g, `pixel ${r},${g},${b}`).toBeGreaterThan(110);
    expect(r, `pixel ${r},${g},${b}`).toBeLessThan(100);
    expect(b, `pixel ${r},${g},${b}`).toBeLessThan(130);
    await page.screenshot({ path: path.join(shots, "first-run-session-recording-desktop.png"), fullPage: true });
    expect(await axeEverywhere(page, "first-run session")).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);
});
