import fs from "node:fs";
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
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-first-run-"));
    node = await spawnNode({ VESSEL_DATA_DIR: dataDir });
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
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const shoot = async (name: string) => {
    for (const [size, viewport] of [["desktop", desktop], ["phone", phone]] as const) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(shots, `firstrun-${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(desktop);
  };

  const printedLink = async (): Promise<string> => {
    const line = await eventually(async () => node.log.find((l) => /\/dashboard\/sign-in\?token=/.test(l)), (l) => l !== undefined, 60_000);
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
  });

  it("opening the link lands on default, where a session made with the first API key is listed", async () => {
    const created = await createSession({ url: node.url } as never, key);
    expect(created.res.status).toBe(201);
    sessionId = created.body.id;
    // Automation shows a page in it (loopback is on the test node's egress allow-list).
    automation = await chromium.connectOverCDP(created.body.connect_url!);
    await automation.contexts()[0]!.pages()[0]!.goto(`${node.url}/`);
    const link = await printedLink();
    await page.goto(link);
    await page.waitForURL(/\/dashboard\/w\/default\/sessions$/);
    const row = page.locator(`tr[data-session-id="${sessionId}"]`);
    await row.waitFor();
    // The list says what the session shows, who started it (the first key, by prefix), and offers actions.
    expect(await row.locator('td[data-label="Page"]').textContent()).toContain("Vessel");
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

  it("the link works once", async () => {
    const link = await printedLink();
    const other = await browser.newPage();
    try {
      await other.goto(link);
      await other.getByRole("heading", { name: "This link no longer works" }).waitFor();
      expect(await other.getByText(/works once, within 15 minutes/).count()).toBe(1);
    } finally {
      await other.close();
    }
  });
});
