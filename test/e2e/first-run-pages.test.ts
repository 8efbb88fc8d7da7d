import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { address, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const shots = path.resolve(import.meta.dirname, "../../.scratch/shots");
const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * Issue 25's other dashboard pages, in Chromium: an organization admin claims a workspace nobody
 * owns from the welcome page; the audit log's default "Changes" view leaves the reads out; the sign-in
 * page stops waiting once the link's lifetime has passed and says what to check.
 */
describe.skipIf(!executablePath)("claiming, changes only, and the end of a sign-in wait", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let admin: SignedInUser;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    const adminEmail = address("admin");
    t = await startDashboardApp({ admins: [adminEmail] });
    ws = await seedWorkspace(t, { slug: "default" });
    admin = await signIn(t, adminEmail);
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu"] });
    context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(20_000);
    await context.addCookies(
      [...admin.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const shoot = async (p: Page, name: string) => {
    for (const [size, viewport] of [
      ["desktop", desktop],
      ["phone", phone],
    ] as const) {
      await p.setViewportSize(viewport);
      await p.waitForTimeout(300);
      await p.screenshot({ path: path.join(shots, `firstrun-${name}-${size}.png`), fullPage: true });
    }
    await p.setViewportSize(desktop);
  };

  it("offers the ownerless default to the organization admin, who claims it", async () => {
    // Opened by its address, the ownerless workspace is no dead end ("Workspace not found") but a claim.
    await page.goto(`${t.url}/dashboard/w/default/sessions`);
    await page.getByRole("heading", { name: "Test has no owner" }).waitFor();
    await shoot(page, "claim-unknown-workspace");
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole("button", { name: "Claim Test" }).waitFor();
    await shoot(page, "claim-workspace");
    await page.getByRole("button", { name: "Claim Test" }).click();
    await page.waitForURL(/\/dashboard\/w\/default\/sessions$/);
    expect(problems).toEqual([]);
  });

  it("takes a status typed into the address in any case, and says so when it names none", async () => {
    await page.goto(`${t.url}/dashboard/w/default/sessions?status=released`);
    await page.getByRole("button", { name: "Released" }).and(page.locator("[aria-pressed=true]")).waitFor();
    expect(await page.getByText("Something went wrong").count()).toBe(0);
    await page.goto(`${t.url}/dashboard/w/default/sessions?status=sleeping`);
    await page.getByText("No status is called “sleeping”").waitFor();
    expect(await page.getByText("Something went wrong").count()).toBe(0);
    await page.getByRole("button", { name: "Clear the filter" }).click();
    await page.waitForURL(/\/sessions$/);
  });

  it("shows the audit log's changes by default, every call on asking", async () => {
    for (let i = 0; i < 3; i++) await fetch(`${t.url}/v1/sessions`, { headers: bearer(ws.key) });
    await t.app.deps.audit.flush();
    await page.goto(`${t.url}/dashboard/w/default/audit-log`);
    await page.getByText("workspace.claim").first().waitFor();
    expect(await page.getByRole("button", { name: "Changes", exact: true }).getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator("main").getByText("session.list", { exact: true }).count()).toBe(0);
    await shoot(page, "audit-changes-only");
    await page.getByRole("button", { name: "All calls" }).click();
    await page.waitForURL(/view=all/);
    await page.getByText("session.list").first().waitFor();
  });

  it("stops waiting for a link once its lifetime has passed, and says what to check", async () => {
    const other = await browser.newContext({ viewport: desktop, locale: "en-GB" });
    const p = await other.newPage();
    try {
      await p.clock.install();
      await p.goto(`${t.url}/dashboard/sign-in`);
      await p.getByLabel("Email address").fill("nobody@example.test");
      await p.getByRole("button", { name: "Email me a sign-in link" }).click();
      await p.getByText(/give up after 60 seconds/).waitFor();
      await p.clock.fastForward(61_000);
      await p.getByText("No link?").waitFor();
      expect(await p.getByText(/VESSEL_SMTP_HOST/).count()).toBe(1);
      // The same words whether or not the address may sign in.
      expect(await p.getByText(/never says whether an address may sign in/).count()).toBe(1);
      await shoot(p, "sign-in-no-link");
    } finally {
      await other.close();
    }
  });
});
