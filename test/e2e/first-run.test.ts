import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { spawnNode, type NodeProcess } from "../support/processes.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
/** Pictures looked at for issue 25 (gitignored). */
const shots = path.join(root, ".scratch/shots");
const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * Issue 25's acceptance: from an EMPTY data folder, the real process (`src/main.ts`, embedded
 * database, no mail server) prints a one-time sign-in link on its console; opening it in Chromium
 * lands in the dashboard on `default`, where a session created with the data folder's first-api-key
 * is listed. The link is on stderr only, never in a JSON log line, and works once.
 */
describe.skipIf(!executablePath)("from npm start to the dashboard", () => {
  let dataDir: string;
  let node: NodeProcess;
  let browser: Browser;
  let page: Page;
  let key = "";
  let sessionId = "";
  let automation: Browser | undefined;
  // The sessions' start page: a site of the test's own on loopback (on the test node's egress
  // allow-list). The node's own address is no longer one: browsers never reach the node (issue 41).
  let site: http.Server;
  let siteUrl = "";
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-first-run-"));
    node = await spawnNode({ VESSEL_DATA_DIR: dataDir });
    site = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<title>Vessel fixture</title><h1>Fixture</h1>"));
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
    const context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  }, 120_000);

  afterAll(async () => {
    await automation?.close().catch(() => undefined);
    if (sessionId) await releaseSession({ url: node.url } as never, key, sessionId).catch(() => undefined);
    await browser?.close();
    await node?.stop();
    site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const shoot = async (name: string) => {
    for (const [size, viewport] of [
      ["desktop", desktop],
      ["phone", phone],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(shots, `firstrun-${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(desktop);
  };

  const printedLink = async (): Promise<string> => {
    const line = await eventually(
      async () => node.log.find((l) => /\/dashboard\/sign-in\?token=/.test(l)),
      (l) => l !== undefined,
      60_000,
    );
    return /(http:\/\/\S+\/dashboard\/sign-in\?token=\S+)/.exec(line!)![1]!;
  };

  it("prints the dashboard address and a one-time link on the console, never in the JSON log", async () => {
    const link = await printedLink();
    expect(node.log.some((l) => l.includes(`Vessel dashboard: ${node.url}/dashboard/`))).toBe(true);
    const token = new URL(link).searchParams.get("token")!;
    const jsonLines = node.log.filter((l) => l.startsWith("{"));
    expect(jsonLines.some((l) => /one-time sign-in link was printed/.test(l))).toBe(true);
    expect(jsonLines.filter((l) => l.includes(token))).toEqual([]);
    key = fs.readFileSync(path.join(dataDir, "first-api-key"), "utf8").trim();
    expect(node.log.filter((l) => l.includes(key))).toEqual([]);
  });

  it("/ links to the dashboard", async () => {
    await page.goto(`${node.url}/`);
    await shoot("landing");
    await page.getByRole("link", { name: "Open the dashboard" }).click();
    await page.waitForURL(/\/dashboard\/sign-in/);
    await shoot("sign-in");
    // The signed-out visit (its `me` and refresh answered 401) logged nothing at error level.
    const errors = node.log.filter((l) => l.startsWith("{") && (JSON.parse(l) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });

  it("opening the link lands on default, where a session made with the first API key is listed", async () => {
    // Its first tab opens a start URL (loopback is on the test node's egress allow-list).
    const created = await createSession({ url: node.url } as never, key, { region: "us-east1", start_url: `${siteUrl}/` });
    expect(created.res.status).toBe(201);
    sessionId = created.body.id;
    // Automation connects too: Playwright swaps the download folder, which is no refusal.
    automation = await chromium.connectOverCDP(created.body.connect_url!);
    const link = await printedLink();
    await page.goto(link);
    await page.waitForURL(/\/dashboard\/w\/default\/sessions$/);
    const row = page.locator(`tr[data-session-id="${sessionId}"]`);
    await row.waitFor();
    // The list says what the session shows, who started it (the first key, by prefix), and offers actions.
    await eventually(
      async () => {
        await page.reload();
        return row.locator('td[data-label="Page"]').textContent({ timeout: 10_000 });
      },
      (text) => text?.includes("Vessel") === true,
      20_000,
    );
    const keyPrefix = key.split(".")[0]!;
    expect(await row.locator('td[data-label="Created by"] span').getAttribute("title")).toContain(keyPrefix);
    expect(await row.locator('td[data-label="Created by"]').textContent()).toBe(`${keyPrefix.slice(0, 11)}…`);
    expect(await row.getByRole("button", { name: `Release session ${sessionId}` }).count()).toBe(1);
    expect(await page.getByRole("columnheader").allTextContents()).toEqual(["Session", "Page", "Status", "Started", "Created by", "Profile", "Actions"]);
    // No token is left in the address bar.
    expect(page.url()).not.toMatch(/token=|verifier=/);
    await shoot("sessions-default");
    expect(problems).toEqual([]);
  });

  it("the session page records no refusal for Playwright's connect", async () => {
    await page.goto(`${node.url}/dashboard/w/default/sessions/${sessionId}`);
    await page.getByText("Automation connected").first().waitFor();
    expect(await page.getByText("Command refused by the browser policy").count()).toBe(0);
    await shoot("session-page");
  });

  it("the new-session dialog checks minutes as minutes, once, and takes a start URL", async () => {
    await page.goto(`${node.url}/dashboard/w/default/sessions`);
    await page.getByRole("button", { name: "New session" }).click();
    const dialog = page.getByRole("dialog");
    // Past a day (the most any session may ask) the form says so itself, in minutes, with no round trip.
    await dialog.getByLabel("Time limit (minutes)").fill("1441");
    await dialog.getByLabel("Start URL").fill("file:///etc/passwd");
    await dialog.getByRole("button", { name: "Start session" }).click();
    expect(await dialog.locator("#ns-timeout-error").textContent()).toBe("Enter whole minutes from 1 to 1440.");
    expect(await dialog.getByText("Enter whole minutes from 1 to 1440.").count()).toBe(1);
    expect(await dialog.getByText(/1800|Too big/).count()).toBe(0);
    expect(await dialog.locator("#ns-start-url-error").textContent()).toMatch(/http\(s\) address/);
    // Side by side, the two limits' inputs are level.
    const [a, b] = await Promise.all([dialog.locator("#ns-timeout").boundingBox(), dialog.locator("#ns-idle").boundingBox()]);
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(1);
    await shoot("new-session-dialog-errors");
    // Within a day but past the session limit (VESSEL_MAX_SESSION_SECONDS, 1800 here): the server's refusal, in minutes.
    await dialog.getByLabel("Time limit (minutes)").fill("99");
    await dialog.getByLabel("Start URL").fill(`${siteUrl}/`);
    await dialog.getByRole("button", { name: "Start session" }).click();
    await dialog.locator("#ns-timeout-error").waitFor();
    expect(await dialog.locator("#ns-timeout-error").textContent()).toBe("must be at most 30 minutes");
    expect(await dialog.getByText(/1800|Too big/).count()).toBe(0);
    await dialog.getByLabel("Time limit (minutes)").fill("10");
    await dialog.getByRole("button", { name: "Start session" }).click();
    await page.waitForURL(/\/sessions\/ses_/);
    const second = page.url().split("/").pop()!;
    await page.goto(`${node.url}/dashboard/w/default/sessions`);
    const row = page.locator(`tr[data-session-id="${second}"]`);
    await eventually(
      async () => {
        await page.reload();
        return row.locator('td[data-label="Page"]').textContent({ timeout: 10_000 });
      },
      (text) => text?.includes("Vessel") === true,
      20_000,
    );
    expect(await row.locator('td[data-label="Created by"]').textContent()).toBe("admin@vessel.localhost");
    await releaseSession({ url: node.url } as never, key, second);
  });

  it("the link works once", async () => {
    const link = await printedLink();
    const other = await browser.newPage();
    try {
      await other.goto(link);
      await other.getByRole("heading", { name: "This link no longer works" }).waitFor();
      expect(await other.getByText(/works once, within 15 minutes/).count()).toBe(1);
      for (const [size, viewport] of [
        ["desktop", desktop],
        ["phone", phone],
      ] as const) {
        await other.setViewportSize(viewport);
        await other.screenshot({ path: path.join(shots, `firstrun-link-used-${size}.png`), fullPage: true });
      }
    } finally {
      await other.close();
    }
  });
});
