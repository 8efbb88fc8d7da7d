import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { seedWorkspace, type Seeded } from "../support/app.ts";
import { axeEverywhere, axeViolations, desktop, phone, type AxeFinding } from "../support/axe.ts";
import { addMember, address, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { createSession, releaseSession, startPageServer } from "../support/sessions.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const shots = path.resolve(import.meta.dirname, "../../.scratch/shots");

/**
 * Issue 45, point 12: axe (wcag2a, wcag2aa, wcag21aa, best-practice) on every page of the dashboard,
 * light and dark, desktop and phone, finds no serious or critical violation; the phone drawer takes
 * focus and keeps Tab inside; the connect snippet is reachable by keyboard; a phone row offers Release.
 */
describe.skipIf(!executablePath)("the dashboard is accessible", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let empty: Seeded;
  let owner: SignedInUser;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let site: Awaited<ReturnType<typeof startPageServer>>;
  let running = "";
  let findings: AxeFinding[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    const email = address("owner");
    // An organization admin too, so the new-workspace page is there to check.
    t = await startDashboardApp({ admins: [email], env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_BROWSER_WARM: "0" } });
    ws = await seedWorkspace(t, { slug: "acme" });
    empty = await seedWorkspace(t, { slug: "quiet" });
    await addMember(t, ws.workspace.id, "OWNER", email);
    await t.app.deps.db.prisma.membership.create({
      data: { workspaceId: empty.workspace.id, userId: (await t.app.deps.db.prisma.user.findUniqueOrThrow({ where: { email } })).id, role: "OWNER" },
    });
    owner = await signIn(t, email);
    site = await startPageServer();
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
    context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(20_000);
    await context.addCookies(
      [...owner.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    const made = await createSession(t, ws.key, { region: "us-east1", start_url: site.url });
    expect(made.res.status).toBe(201);
    running = made.body.id;
  }, 120_000);

  beforeEach(() => {
    findings = [];
  });

  afterAll(async () => {
    if (running) await releaseSession(t, ws.key, running).catch(() => undefined);
    await browser?.close();
    await site?.close();
    await t?.stop();
  });

  const at = (rest: string, slug = "acme") => `${t.url}/dashboard/w/${slug}/${rest}`;
  const check = async (name: string, url: string, ready: () => Promise<unknown>, prepare?: () => Promise<void>) => {
    await page.goto(url);
    await ready();
    findings.push(...(await axeEverywhere(page, name, prepare)));
  };
  const heading = (name: string | RegExp) => () => page.getByRole("heading", { name, level: 1 }).waitFor();

  it("finds nothing serious on the workspace's pages", async () => {
    await check("sessions", at("sessions"), () => page.locator(`tr[data-session-id="${running}"]`).waitFor());
    await check("sessions-empty", at("sessions", "quiet"), () => page.getByText("No sessions yet").waitFor());
    await check("session-running", at(`sessions/${running}`), () => page.locator("h1 [data-status=RUNNING]").waitFor());
    await check("profiles", at("profiles"), heading("Profiles"));
    await check("extensions", at("extensions"), heading("Extensions"));
    await check("api-keys", at("api-keys"), heading("API keys"));
    await check("webhooks", at("webhooks"), heading("Webhooks"));
    await check("credentials-empty", at("credentials"), () => page.getByRole("heading", { name: "No credentials yet" }).waitFor());
    await check("members", at("members"), heading("Members"));
    await check("audit-log", at("audit-log"), heading("Audit log"));
    // The whole page: the name-and-limits form and the network rules, once loaded.
    await check("settings", at("settings"), () => page.getByLabel("Deny").waitFor());
    await check("not-found", `${t.url}/dashboard/nowhere`, () => page.locator("main h1").waitFor());
    await check("unknown-workspace", `${t.url}/dashboard/w/nowhere/sessions`, heading("Workspace not found"));
    await check("new-workspace", `${t.url}/dashboard/new-workspace`, () => page.locator("main h1").waitFor());
    await check("sessions-no-match", `${at("sessions")}?q=zzzz-nothing`, () =>
      page
        .getByText(/No\s.*sessions/)
        .first()
        .waitFor(),
    );
    expect(findings).toEqual([]);
  }, 300_000);

  it("finds nothing serious in the dialogs", async () => {
    const openDialog = (button: RegExp) => async () => {
      if (await page.getByRole("dialog").isVisible()) return;
      await page.getByRole("button", { name: button }).first().click();
      await page.getByRole("dialog").waitFor();
    };
    await check("new-session", at("sessions"), heading("Sessions"), openDialog(/New session/));
    await check("create-key", at("api-keys"), heading("API keys"), openDialog(/Create API key|New key|Create key/));
    // The new key's dialog, with its curl: one pass (the key is shown once).
    await page.getByRole("dialog").getByLabel("Name").fill("a11y");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    await page.getByRole("dialog", { name: "Your new API key" }).waitFor();
    findings.push(...(await axeEverywhere(page, "new-key")));
    // The Credentials page's dialog, then its list with the credential it added.
    await check("add-credential", at("credentials"), heading("Credentials"), openDialog(/Add credential/));
    const dialog = page.getByRole("dialog", { name: "Add credential" });
    await dialog.getByLabel("Name", { exact: true }).fill("a11y");
    await dialog.getByLabel("Origins", { exact: true }).fill("https://login.example.com");
    await dialog.getByLabel("Username", { exact: true }).fill("agent@example.com");
    await dialog.getByLabel("Password", { exact: true }).fill("not-a-real-password");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    await check("credentials", at("credentials"), () => page.getByRole("button", { name: "Replace a11y" }).waitFor());
    await check(
      "replace-credential",
      at("credentials"),
      () => page.getByRole("button", { name: "Replace a11y" }).waitFor(),
      async () => {
        if (await page.getByRole("dialog").isVisible()) return;
        await page.getByRole("button", { name: "Replace a11y" }).click();
        await page.getByRole("dialog").waitFor();
      },
    );
    expect(findings).toEqual([]);
  }, 300_000);

  it("signs in accessibly", async () => {
    const other = await browser.newContext({ viewport: desktop, locale: "en-GB" });
    const p = await other.newPage();
    try {
      await p.goto(`${t.url}/dashboard/sign-in`);
      await p.getByLabel("Email address").waitFor();
      findings.push(...(await axeEverywhere(p, "sign-in")));
      // A console link (its verifier after #) that was already used.
      await p.goto(`${t.url}/dashboard/sign-in?token=${"x".repeat(43)}#verifier=${"y".repeat(43)}`);
      await p.getByRole("heading", { name: "This link no longer works" }).waitFor();
      findings.push(...(await axeEverywhere(p, "sign-in-link-used")));
    } finally {
      await other.close();
    }
    expect(findings).toEqual([]);
  }, 120_000);

  it("the phone drawer takes focus, keeps Tab inside, and gives it back on Escape", async () => {
    await page.setViewportSize(phone);
    await page.goto(at("sessions"));
    await page.locator(`tr[data-session-id="${running}"]`).waitFor();
    // A phone row offers Release.
    expect(await page.getByRole("button", { name: `Release session ${running}` }).isVisible()).toBe(true);
    const menu = page.getByRole("button", { name: "Open navigation" });
    await menu.click();
    const inDrawer = () => page.evaluate(() => document.getElementById("sidebar")!.contains(document.activeElement));
    await page.waitForFunction(() => document.getElementById("sidebar")!.contains(document.activeElement));
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(i % 5 === 4 ? "Shift+Tab" : "Tab");
      expect(await inDrawer()).toBe(true);
    }
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      await page.waitForTimeout(300);
      findings.push(...(await axeViolations(page, `drawer ${scheme} phone`)));
    }
    await page.emulateMedia({ colorScheme: "light", reducedMotion: null });
    await page.screenshot({ path: path.join(shots, "a11y-drawer-phone.png") });
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Open navigation");
    await page.setViewportSize(desktop);
    expect(findings).toEqual([]);
  });

  it("finds nothing serious on the session's live view page", async () => {
    const made = await fetch(`${t.url}/v1/sessions/${running}`, { headers: { authorization: `Bearer ${ws.key}` } });
    const liveViewUrl = ((await made.json()) as { live_view_url: string }).live_view_url;
    const other = await browser.newContext({ viewport: desktop, locale: "en-GB" });
    const p = await other.newPage();
    try {
      await p.goto(liveViewUrl);
      await p.locator("body").waitFor();
      await p.waitForTimeout(1500);
      findings.push(...(await axeEverywhere(p, "live-view")));
    } finally {
      await other.close();
    }
    expect(findings).toEqual([]);
  }, 120_000);

  it("reaches the connect snippet by keyboard", async () => {
    await page.goto(at(`sessions/${running}`));
    const snippet = page.getByRole("region", { name: "Playwright connect example" });
    await snippet.waitFor();
    await snippet.focus();
    expect(await snippet.evaluate((el) => el === document.activeElement && el.tabIndex === 0)).toBe(true);
    expect(problems).toEqual([]);
  });

  it("finds nothing serious on an ended session's page", async () => {
    expect((await releaseSession(t, ws.key, running)).status).toBe(204);
    await check("session-ended", at(`sessions/${running}`), () => page.locator("h1 [data-status=RELEASED]").waitFor());
    running = "";
    expect(findings).toEqual([]);
  }, 120_000);
});
