import fs from "node:fs/promises";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

describe.skipIf(!executablePath)("GraphiQL in headless Chromium", () => {
  let t: DashboardApp;
  let seeded: Seeded;
  let user: SignedInUser;
  let browser: Browser;
  beforeAll(async () => {
    // GraphiQL is served to signed-in dashboard users only.
    t = await startDashboardApp();
    seeded = await seedWorkspace(t);
    user = await signIn(t, await addMember(t, seeded.workspace.id, "MEMBER"));
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      args: [
        ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--disable-gpu",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("renders from this origin alone and runs a query", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()}`));
    page.on("request", (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) problems.push(`foreign: ${r.url()}`);
    });
    await page.setViewport({ width: 1280, height: 800 });
    for (const [name, c] of user.jar.cookies)
      await page.setCookie({ name, value: c.value, url: `${t.url}${c.path}`, path: c.path, httpOnly: true, sameSite: "Lax" });

    const res = await page.goto(`${t.url}/graphql?query=${encodeURIComponent("{ health { version database { kind } } }")}`, { waitUntil: "networkidle0" });
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.waitForSelector(".graphiql-container", { timeout: 30_000 });
    await page.waitForSelector(".graphiql-execute-button", { timeout: 30_000 });
    // As a person would: open the Headers tab and type the API key into its editor.
    const headersTab = await page.waitForSelector("xpath///button[normalize-space()='Headers']", { timeout: 10_000 });
    await headersTab!.click();
    const headersEditor = '.monaco-editor[data-uri$="request-headers.json"] .view-lines';
    await page.waitForSelector(headersEditor, { visible: true, timeout: 10_000 });
    await page.click(headersEditor);
    await page.keyboard.type(`{"Authorization": "Bearer ${seeded.key}"}`);
    await page.click(".graphiql-execute-button");
    await page.waitForFunction(() => document.querySelector(".result-window")?.textContent?.includes("PGLITE"), { timeout: 30_000 });

    await fs.mkdir("test-results", { recursive: true });
    await page.screenshot({ path: "test-results/graphiql.png" });
    const result = await page.$eval(".result-window", (el) => el.textContent ?? "");
    expect(result).toContain('"version"');
    expect(problems).toEqual([]);
  });
});
