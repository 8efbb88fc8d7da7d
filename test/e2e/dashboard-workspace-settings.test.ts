import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, address, signIn, startDashboardApp, type DashboardApp } from "../support/dashboard.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { createSession } from "../support/sessions.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** Issue 45: an owner renames the workspace and sets a limit on its settings page; the next create keeps to it. */
describe.skipIf(!executablePath)("the workspace settings page", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startDashboardApp({ env: { VESSEL_MAX_SESSION_SECONDS: "900", VESSEL_WORKSPACE_MAX_SESSIONS: "5" } });
    ws = await seedWorkspace(t);
    const email = address("owner");
    await addMember(t, ws.workspace.id, "OWNER", email);
    const owner = await signIn(t, email);
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
    const context = await browser.newContext({ locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(20_000);
    await context.addCookies(
      [...owner.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    page = await context.newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("lets an owner rename the workspace and shorten its sessions, with the bounds shown", async () => {
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/settings`);
    const longest = page.getByLabel("Longest session (seconds)");
    await expect.poll(() => page.locator("#limit-max-session-seconds-hint").textContent(), { timeout: 15_000 }).toContain("Now 900.");
    expect(await page.locator("#limit-max-session-seconds-hint").textContent()).toContain("60–900 for owners");
    expect(await page.locator("#limit-max-sessions-hint").textContent()).toContain("1–5 for owners");
    // The network rules are on the same page.
    await page.getByLabel("Allow").waitFor();

    await page.getByLabel("Name", { exact: true }).fill("Research lab");
    await longest.fill("120");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Settings saved").waitFor();
    await expect.poll(() => page.locator("#limit-max-session-seconds-hint").textContent(), { timeout: 15_000 }).toContain("Now 120.");

    const row = await t.app.deps.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.workspace.id } });
    expect(row).toMatchObject({ name: "Research lab", maxSessionSeconds: 120 });
    // The next create keeps to it.
    const made = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 300 });
    expect(made.res.status).toBe(400);
    expect(JSON.stringify(made.body)).toContain("must be at most 120 seconds");
  });
});
