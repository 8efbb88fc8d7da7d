import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { connectToPipe } from "../support/pipe-transport.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardCsp } from "../../src/dashboard-assets.ts";
import { address, startDashboardApp, type DashboardApp } from "../support/dashboard.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
const shots = path.join(root, "test-results/dashboard");
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

/**
 * The dashboard as people use it: the built app served by a real server, driven in Chromium. One
 * person signs in through a real mail, creates a workspace, a key (used and revoked), an invitation
 * and a session (watched live, released), then reads the audit log. Any console error, page error,
 * failed request or CSP violation fails the run; every page is photographed at desktop and phone width.
 */
describe.skipIf(!executablePath)("the dashboard in Chromium", () => {
  let t: DashboardApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const admin = address("ada");
  const invitee = address("grace");
  let keyPrefix = "";
  let keySecret = "";
  let sessionId = "";
  const slug = `acme-${Date.now().toString(36)}`;

  function watch(p: Page, name: string): Page {
    p.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${name} console ${m.type()}: ${m.text()}`);
    });
    p.on("pageerror", (e) => problems.push(`${name} page error: ${e.message}`));
    p.on("requestfailed", (r) => {
      if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`${name} request failed: ${r.url()} ${r.failure()?.errorText}`);
    });
    p.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${name} HTTP ${r.status()}: ${r.url()}`);
    });
    p.on("request", (r) => {
      const url = r.url();
      if (!url.startsWith(t.url) && !url.startsWith(t.url.replace("http", "ws")) && !/^(data|blob):/.test(url))
        problems.push(`${name} foreign request: ${url}`);
    });
    return p;
  }

  async function newPage(name: string): Promise<Page> {
    return watch(await context.newPage(), name);
  }

  /** A full-page picture of what is on screen, at the current size. */
  async function shoot(p: Page, name: string): Promise<void> {
    const size = p.viewportSize();
    await p.screenshot({ path: path.join(shots, `${name}-${size?.width === phone.width ? "phone" : "desktop"}.png`), fullPage: true });
  }

  /** Both sizes of the page now on screen; back to desktop afterwards. */
  async function shootBoth(p: Page, name: string, settle?: () => Promise<unknown>): Promise<void> {
    await shoot(p, name);
    await p.setViewportSize(phone);
    await settle?.();
    await shoot(p, name);
    await p.setViewportSize(desktop);
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    t = await startDashboardApp({ admins: [admin], env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_BROWSER_WARM: "0" } });
    browser = await chromium.launch({
      executablePath,
      args: [
        ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    });
    context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC", acceptDownloads: true });
    context.setDefaultTimeout(15_000);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
    // CSP violations also reach the console, but say so explicitly (this runs outside the page's CSP).
    await context.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page = await newPage("main");
  });

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("signs in with the link from a real mail and creates a workspace", async () => {
    const res = await page.goto(`${t.url}/dashboard/`);
    expect(res?.headers()["content-security-policy"]).toBe(dashboardCsp);
    await page.getByRole("heading", { name: "Sign in to Vessel" }).waitFor();
    await shootBoth(page, "01-sign-in");

    const mail = t.mail.waitFor(admin, /sign-in link/, 10_000);
    await page.getByLabel("Email address").fill(admin);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your mail" }).waitFor();
    await shootBoth(page, "02-check-mail");

    const link = /https?:\/\/\S+\/dashboard\/sign-in\?token=[A-Za-z0-9_-]{43}/.exec((await mail).text)?.[0];
    expect(link).toBeDefined();
    await page.goto(link!); // this tab asked, so it holds the PKCE verifier
    await page.getByRole("heading", { name: /Welcome/ }).waitFor();
    expect(page.url()).not.toContain("token=");
    await shootBoth(page, "03-welcome");

    await page.getByRole("link", { name: "Create workspace" }).first().click();
    await page.getByLabel("Name").fill("Acme automation");
    await page.getByLabel("Slug").fill(slug);
    await shootBoth(page, "04-new-workspace");
    await page.getByRole("button", { name: "Create workspace" }).click();
    await page.getByRole("heading", { name: "Sessions", exact: true }).waitFor();
    expect(page.url()).toBe(`${t.url}/dashboard/w/${slug}/sessions`);
    await page.getByRole("heading", { name: "No sessions yet" }).waitFor();
    await shootBoth(page, "05-sessions-empty");

    // A used link is refused with a readable explanation, in a fresh tab.
    const again = await newPage("reuse");
    await again.goto(link!);
    await again.getByRole("heading", { name: /link/i }).waitFor();
    await again.close();
    expect(problems).toEqual([]);
  });

  it("creates an API key, shows it once, and revokes it; the key works, then gets 401", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "No API keys yet" }).waitFor();
    await shootBoth(page, "06-api-keys-empty");

    await page.getByRole("button", { name: "Create key" }).first().click();
    await page.getByLabel("Name").fill("CI runner");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    const field = page.getByRole("textbox", { name: "New API key" });
    await field.waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Copy" }).click();
    await page.getByRole("dialog").getByText("Copied").waitFor();
    keySecret = await page.evaluate(() => navigator.clipboard.readText());
    expect(keySecret).toBe(await field.inputValue());
    expect(keySecret).toMatch(/^vs_[0-9A-Z]{26}\.[A-Za-z0-9]{32}$/);
    keyPrefix = keySecret.split(".")[0]!;
    await shootBoth(page, "07-api-key-created");
    await page.getByRole("button", { name: "I’ve saved it" }).click();

    expect((await fetch(`${t.url}/v1/health`, { headers: { authorization: `Bearer ${keySecret}` } })).status).toBe(200);
    await page.reload();
    const row = page.locator(`tr[data-key-prefix="${keyPrefix}"]`);
    await row.getByText("just now").waitFor();
    await expect.poll(() => row.textContent()).toContain(`${keyPrefix}.••••••••`);
    await shootBoth(page, "08-api-keys");

    await row.getByRole("button", { name: "Revoke CI runner" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.getByText("Revoked").waitFor();
    expect(await row.getAttribute("class")).toContain("is-revoked");
    expect((await fetch(`${t.url}/v1/health`, { headers: { authorization: `Bearer ${keySecret}` } })).status).toBe(401);
    await shootBoth(page, "09-api-keys-revoked");
    expect(problems).toEqual([]);
  });

  it("invites a member and explains the last-owner rule", async () => {
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByRole("heading", { name: "Members", exact: true }).first().waitFor();
    const invitation = t.mail.waitFor(invitee, /invited/, 10_000);
    await page.getByLabel("Email address").fill(invitee);
    await page.getByLabel("Role", { exact: true }).selectOption("MEMBER");
    await page.getByRole("button", { name: "Send invitation" }).click();
    const row = page.locator(`tr[data-invitation="${invitee}"]`);
    await row.getByText("Pending").waitFor();
    expect(await row.textContent()).toContain("Member");
    expect((await invitation).text).toContain("/dashboard/");

    // The only owner cannot step down: the refusal says why and what to do.
    await page.getByLabel(`Role of ${admin}`).selectOption("MEMBER");
    await page.getByText("A workspace needs an owner").waitFor();
    await page.getByText("Make another member an owner first").first().waitFor();
    await shootBoth(page, "10-members");
    expect(problems).toEqual([]);
  });

  it("starts a session from the UI, sees it run live in another tab, opens its live view, saves a profile and releases it", async () => {
    // A second tab shows the list; it must change by itself.
    const watcher = await newPage("watcher");
    await watcher.goto(`${t.url}/dashboard/w/${slug}/sessions`);
    await watcher.getByRole("heading", { name: "No sessions yet" }).waitFor();
    await watcher.locator(".page-description .live-live").waitFor();

    await page.getByRole("link", { name: "Sessions" }).click();
    await page.getByRole("button", { name: "New session" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Region").selectOption("us-east1");
    await dialog.getByLabel("Instructions for the person in the live view").fill("Log in, then click Done.");
    await shootBoth(page, "11-new-session");
    await dialog.getByRole("button", { name: "Start session" }).click();
    await page.waitForURL(/\/sessions\/ses_/);
    sessionId = page.url().split("/").pop()!;
    await page.locator("h1 [data-status=RUNNING]").waitFor();

    // The other tab saw it arrive, RUNNING, without a reload.
    const listed = watcher.locator(`tr[data-session-id="${sessionId}"]`);
    await listed.locator("[data-status=RUNNING]").waitFor({ timeout: 10_000 });
    await shoot(watcher, "14-sessions-running");

    await page.getByRole("button", { name: "Open live view" }).click();
    const frame = page.frameLocator(`iframe[title="Live view of session ${sessionId}"]`);
    await frame.locator("#state[data-state=live]").waitFor({ timeout: 20_000 });
    await page.locator('[data-event-type="LIVE_VIEW_OPENED"]').waitFor({ timeout: 10_000 });
    await page.locator('[data-event-type="SESSION_RUNNING"]').waitFor();
    await shootBoth(page, "12-session-live", () => frame.locator("#state[data-state=live]").waitFor());

    // A file the session's page downloads shows up, and the signed-in person can save it.
    const driver = await connectToPipe(t.app.deps.runtime.endpoint(sessionId)!.cdp);
    const [tab] = await driver.pages();
    await tab!.evaluate(() => {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob(["quarterly numbers"]));
      link.download = "report.csv";
      document.body.append(link);
      link.click();
    });
    await driver.disconnect();
    const row = page.locator('[data-download-state="finished"]');
    await row.getByText("report.csv").waitFor({ timeout: 10_000 });
    await page.locator('[data-event-type="DOWNLOAD_COMPLETED"]').waitFor();
    const [saved] = await Promise.all([page.waitForEvent("download"), row.getByRole("link", { name: "Save" }).click()]);
    expect(saved.suggestedFilename()).toBe("report.csv");
    expect(fs.readFileSync((await saved.path())!, "utf8")).toBe("quarterly numbers");
    await shootBoth(page, "12b-session-download");

    await page.getByRole("button", { name: "Save as profile" }).click();
    await page.getByLabel("Profile name").fill("Example login");
    await page.getByRole("dialog").getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Profile “Example login” saved").waitFor({ timeout: 20_000 });

    await page.getByRole("button", { name: "Release", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Release session" }).click();
    await page.locator("h1 [data-status=RELEASED]").waitFor();
    await page.locator('[data-event-type="SESSION_RELEASED"]').waitFor();
    await page.getByText("Released by its owner").first().waitFor();
    await page.locator('[data-download-state="finished"]').getByText("deleted with the browser").waitFor();
    await listed.locator("[data-status=RELEASED]").waitFor({ timeout: 10_000 });
    await shootBoth(page, "13-session-released");
    await watcher.reload();
    await watcher.locator(`tr[data-session-id="${sessionId}"]`).waitFor();
    await shootBoth(watcher, "14-sessions-ended");
    await watcher.close();
    await expect.poll(() => t.app.deps.runtime.ids()).not.toContain(sessionId);
    expect(problems).toEqual([]);
  });

  it("lists the profile with its counts, renames, exports and deletes it", async () => {
    await page.getByRole("link", { name: "Profiles" }).click();
    const row = page.locator("tr[data-profile-id]").filter({ hasText: "Example login" });
    await row.waitFor();
    await shootBoth(page, "15-profiles");

    await row.getByRole("button", { name: "Rename Example login" }).click();
    await page.getByRole("dialog").getByLabel("Name").fill("Example portal");
    await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
    const renamed = page.locator("tr[data-profile-id]").filter({ hasText: "Example portal" });
    await renamed.waitFor();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      renamed.getByRole("button", { name: "Export Example portal as storageState" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("example-portal.storage-state.json");
    const state = JSON.parse(fs.readFileSync((await download.path())!, "utf8")) as { cookies: unknown[]; origins: unknown[] };
    expect(Array.isArray(state.cookies) && Array.isArray(state.origins)).toBe(true);

    await renamed.getByRole("button", { name: "Delete Example portal" }).click();
    await shootBoth(page, "16-profile-delete");
    await page.getByRole("dialog").getByRole("button", { name: "Delete profile" }).click();
    await page.getByRole("heading", { name: "No profiles yet" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("filters the audit log by the key's prefix: exactly that key's calls", async () => {
    await t.app.deps.audit.flush();
    const expected = await t.app.deps.db.prisma.auditEntry.findMany({
      where: { keyPrefix },
      orderBy: { id: "desc" },
      select: { id: true, action: true, httpStatus: true },
    });
    // The key's own calls: the health check it made while it worked, and its refusal once revoked
    // (refusals at authentication name the key whose id they presented).
    expect(expected).toContainEqual(expect.objectContaining({ action: "health.get", httpStatus: 200 }));
    expect(expected).toContainEqual(expect.objectContaining({ action: "auth.refused", httpStatus: 401 }));

    // The access cookie is gone (as after its hour): the next call refreshes it, and the page just works.
    const accessCookie = t.app.deps.dashboard.cookies.access;
    await context.clearCookies({ name: accessCookie });
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.locator("tr[data-audit-action]").first().waitFor();
    expect((await context.cookies()).some((c) => c.name === accessCookie)).toBe(true);
    expect(page.url()).toContain("/audit-log");
    await shootBoth(page, "17-audit-log");
    // The page opens on Changes; the key's calls include reads (its health check), shown under All calls.
    await page.getByRole("button", { name: "All calls" }).click();
    await page.waitForURL(/view=all/);

    await page.getByLabel("API key").fill(keyPrefix);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(new RegExp(`key=${keyPrefix}`));
    await page.getByText(`${expected.length} ${expected.length === 1 ? "entry" : "entries"} shown (all)`).waitFor();
    const rows = page.locator("tr[data-audit-action]");
    expect(await rows.count()).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) {
      expect(await rows.nth(i).getAttribute("data-key-prefix")).toBe(keyPrefix);
      expect(await rows.nth(i).getAttribute("data-audit-action")).toBe(expected[i]!.action);
    }
    await shootBoth(page, "18-audit-log-filtered");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const csv = fs
      .readFileSync((await download.path())!, "utf8")
      .trim()
      .split("\r\n");
    expect(csv[0]).toBe("time,action,key_prefix,key_label,actor_user_id,actor_email,target,http_status,ip,request_id,client_request_id");
    expect(csv.slice(1).map((line) => line.split(",")[2])).toEqual(expected.map(() => keyPrefix));
    expect(problems).toEqual([]);
  });

  it("lets the invited member in, with what a member may do and a clear refusal for the rest", async () => {
    const other = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    other.setDefaultTimeout(15_000);
    try {
      const grace = watch(await other.newPage(), "member");
      await grace.goto(`${t.url}/dashboard/w/${slug}/sessions`);
      const mail = t.mail.waitFor(invitee, /sign-in link/, 10_000);
      await grace.getByLabel("Email address").fill(invitee);
      await grace.getByRole("button", { name: "Email me a sign-in link" }).click();
      const link = /https?:\/\/\S+\/dashboard\/sign-in\?token=[A-Za-z0-9_-]{43}/.exec((await mail).text)![0];
      await grace.goto(link);
      // Back where they started, now a member (the invitation was accepted on this first sign-in).
      await grace.locator(`tr[data-session-id="${sessionId}"]`).waitFor();
      expect(grace.url()).toBe(`${t.url}/dashboard/w/${slug}/sessions`);
      await expect.poll(() => grace.getByRole("link", { name: "Audit log" }).count()).toBe(0);

      await grace.goto(`${t.url}/dashboard/w/${slug}/api-keys`);
      await grace.getByText("Only owners and admins create and revoke keys").waitFor();
      expect(await grace.getByRole("button", { name: "Create key" }).count()).toBe(0);
      await shootBoth(grace, "19-member-api-keys");

      await grace.goto(`${t.url}/dashboard/w/${slug}/audit-log`);
      await grace.getByRole("heading", { name: "You don’t have access to this" }).waitFor();
      await shootBoth(grace, "20-member-audit-log-denied");

      await grace.goto(`${t.url}/dashboard/w/nope-${slug}/sessions`);
      await grace.getByRole("heading", { name: "Workspace not found" }).waitFor();
      await shootBoth(grace, "21-unknown-workspace");
    } finally {
      await other.close();
    }
    expect(problems).toEqual([]);
  });

  it("revokes a key together with the sessions it started when the dialog's box is ticked", async () => {
    await page.goto(`${t.url}/dashboard/w/${slug}/api-keys`);
    await page.getByRole("button", { name: "Create key" }).first().click();
    await page.getByLabel("Name").fill("Nightly job");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByRole("textbox", { name: "New API key" }).inputValue();
    await page.getByRole("button", { name: "I’ve saved it" }).click();
    const started = await fetch(`${t.url}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({ region: "us-east1" }),
    });
    expect(started.status).toBe(201);
    const keySession = ((await started.json()) as { id: string }).id;
    const row = page.locator(`tr[data-key-prefix="${secret.split(".")[0]}"]`);
    await row.getByRole("button", { name: "Revoke Nightly job" }).click();
    await page
      .getByRole("dialog")
      .getByLabel(/Also end the sessions this key started/)
      .check();
    await shootBoth(page, "22-api-key-revoke-with-sessions");
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.getByText("Revoked").waitFor();
    expect(await t.app.deps.db.prisma.session.findUniqueOrThrow({ where: { id: keySession } })).toMatchObject({
      status: "RELEASED",
      endReason: "API_KEY_REVOKED",
    });
    expect(problems).toEqual([]);
  });

  it("signs out, and a signed-out visit goes back to the sign-in page", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Vessel" }).waitFor();
    await page.goto(`${t.url}/dashboard/w/${slug}/api-keys`);
    await page.getByRole("heading", { name: "Sign in to Vessel" }).waitFor();
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/dashboard/w/${slug}/api-keys`);
    expect(problems).toEqual([]);
  });
});
