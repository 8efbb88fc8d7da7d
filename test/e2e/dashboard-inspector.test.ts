import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, gql, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { connectToPipe } from "../support/pipe-transport.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
/** Pictures to look at (gitignored): the inspector at desktop and phone width. */
const shots = path.join(root, ".scratch/screenshots");
const desktop = { width: 1280, height: 900 };
const phone = { width: 390, height: 844 };
/** A wider desktop, for the delete-recording pictures. */
const wide = { width: 1440, height: 900 };

/** The page the session visits: a counter that changes the picture four times a second, and a /missing that is 404. */
async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url !== "/") {
      res.writeHead(404, { "content-type": "text/plain" }).end("no such thing");
      return;
    }
    res.setHeader("content-type", "text/html");
    res.end(`<!doctype html><title>Checkout</title>
<style>body{margin:0;font:64px system-ui,sans-serif;display:grid;place-items:center;height:100vh;background:#f8fafc;color:#0f172a}</style>
<main><h1 id="step">Step 0</h1></main>
<script>let n = 0; setInterval(() => { document.getElementById("step").textContent = "Step " + ++n; }, 250);</script>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const RECORDING_INFO = `query ($workspace: String!, $id: String!) {
  session(workspace: $workspace, id: $id) { recordingInfo { status startedAt endedAt durationMs } }
}`;

/**
 * The session inspector in Chromium: a session with a recording and logs visits a loopback page
 * that logs a console error and makes a request that fails, watched live from its page in the
 * dashboard; after release, once the recording is ready, the page plays it, and picking the console
 * error on the timeline (and the failed request in the network table) moves the video to that moment;
 * then a member deletes the recording with the inspector's button.
 * Any console error, page error or CSP violation in the dashboard fails the run.
 */
describe.skipIf(!executablePath)("the session inspector in Chromium", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let owner: SignedInUser;
  let site: Awaited<ReturnType<typeof startSite>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    t = await startDashboardApp({ env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_BROWSER_WARM: "0" } });
    ws = await seedWorkspace(t);
    owner = await signIn(t, await addMember(t, ws.workspace.id, "OWNER"));
    site = await startSite();
    browser = await chromium.launch({
      executablePath,
      args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run", "--autoplay-policy=no-user-gesture-required"],
    });
    context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(20_000);
    await context.addCookies(
      [...owner.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    await context.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await t?.stop();
  });

  const shoot = async (name: string) => {
    await page.screenshot({ path: path.join(shots, `${name}-desktop.png`), fullPage: true });
    await page.setViewportSize(phone);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-phone.png`), fullPage: true });
    await page.setViewportSize(desktop);
  };

  /** The page at 1440x900, then at phone width (the viewport stays wide after). */
  const shootAt = async (name: string) => {
    await page.screenshot({ path: path.join(shots, `${name}-desktop.png`), fullPage: true });
    await page.setViewportSize(phone);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-phone.png`), fullPage: true });
    await page.setViewportSize(wide);
  };

  it("offers logs (on) and a recording (off) in the new-session dialog", async () => {
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions`);
    await page
      .getByRole("button", { name: /New session|Start a session/ })
      .first()
      .click();
    const dialog = page.getByRole("dialog");
    expect(await dialog.getByLabel("Capture logs").isChecked()).toBe(true);
    expect(await dialog.getByLabel("Record video").isChecked()).toBe(false);
    await dialog.getByLabel("Record video").check();
    await page.waitForTimeout(400);
    await shoot("new-session-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(problems).toEqual([]);
  });

  it("streams the logs live, then plays the recording, seeks to the console error and the failed request, and deletes it", async () => {
    const made = await createSession(t, ws.key, { region: "us-east1", recording: true, logs: true });
    expect(made.res.status).toBe(201);
    const id = made.body.id;
    const driver = await connectToPipe(t.app.deps.runtime.endpoint(id)!.cdp);
    const [tab] = await driver.pages();
    await tab!.goto(site.url);

    // Watched while it runs: entries arrive without a reload.
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions/${id}`);
    await page.locator("h1 [data-status=RUNNING]").waitFor();
    await page.locator('.log-row[data-kind="navigation"]').first().waitFor();
    await page.waitForTimeout(1500);
    const errorAt = Date.now();
    await tab!.evaluate(() => {
      document.body.style.background = "#dc2626";
      document.getElementById("step")!.style.color = "#fff";
      console.error("inspector-boom: the basket is empty");
    });
    await page.locator(".log-row", { hasText: "inspector-boom" }).waitFor({ timeout: 10_000 });
    await page.waitForTimeout(1500);
    await tab!.evaluate(async () => {
      document.body.style.background = "#f8fafc";
      document.getElementById("step")!.style.color = "";
      await fetch("/missing").catch(() => {});
    });
    const failedAt = Date.now();
    await page.locator(".log-row[data-kind=network]", { hasText: "/missing" }).waitFor({ timeout: 10_000 });
    await shoot("inspector-live");
    await page.waitForTimeout(1500);
    await driver.disconnect();
    expect((await releaseSession(t, ws.key, id)).ok).toBe(true);
    // While the video is processed the page says so (often for only a moment: photographed when seen).
    await page
      .getByText("Processing the recording")
      .waitFor({ timeout: 8_000 })
      .then(
        () => page.screenshot({ path: path.join(shots, "inspector-processing-desktop.png"), fullPage: true }),
        () => undefined,
      );

    // The recording becomes ready (409 while it is processed), then the page plays it by itself.
    await eventually(
      async () => (await fetch(`${t.url}/v1/sessions/${id}/recording`, { headers: { ...bearer(ws.key), range: "bytes=0-0" } })).status,
      (s) => s === 206 || s === 200,
      90_000,
    );
    const info = (
      await gql<{ session: { recordingInfo: { status: string; startedAt: string } } }>(
        t,
        RECORDING_INFO,
        { workspace: ws.workspace.slug, id },
        { jar: owner.jar },
      )
    ).data!.session.recordingInfo;
    expect(info.status).toBe("READY");
    const recordingStart = Date.parse(info.startedAt);

    const video = page.locator(".player video");
    await video.waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => ((document.querySelector(".player video") as HTMLVideoElement | null)?.readyState ?? 0) >= 1);
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    // The playhead follows the video.
    const playhead = () => page.locator(".strip").evaluate((el) => parseFloat(getComputedStyle(el).getPropertyValue("--playhead")) || 0);
    const before = await playhead();
    await page.waitForTimeout(700);
    expect(await playhead()).toBeGreaterThan(before);

    const mark = page.locator('[data-lane="errors"] .mark[data-kind="console"]').first();
    const markAt = Date.parse((await mark.getAttribute("data-at"))!);
    await mark.click();
    const atError = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    // Where the entry says it happened, and where this test made it happen (within a second).
    expect(Math.abs(atError - (markAt - recordingStart) / 1000)).toBeLessThan(0.4);
    expect(Math.abs(atError - (errorAt - recordingStart) / 1000)).toBeLessThan(1);
    await video.evaluate((v: HTMLVideoElement) => v.pause());
    await page.locator(".log-row.is-selected", { hasText: "inspector-boom" }).waitFor();
    await page.waitForTimeout(500);
    await shoot("inspector-console-error");

    await page.getByRole("tab", { name: /Network/ }).click();
    const missing = page.locator(".network-table tr", { hasText: "/missing" });
    expect(await missing.getAttribute("data-status-class")).toBe("client");
    await missing.getByRole("button").click();
    const atRequest = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    expect(atRequest).toBeGreaterThan(atError + 1);
    expect(Math.abs(atRequest - (failedAt - recordingStart) / 1000)).toBeLessThan(1.5);
    await page.waitForTimeout(500);
    await shoot("inspector-network");

    // By keyboard: the errors lane is one tab stop; Home goes to its first mark, Enter picks it.
    await page.locator('[data-lane="errors"] .mark[tabindex="0"]').focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("Enter");
    expect(Math.abs((await video.evaluate((v: HTMLVideoElement) => v.currentTime)) - atError)).toBeLessThan(0.4);
    await page.getByRole("tab", { name: /Log/, selected: true }).waitFor();
    await page.getByRole("tab", { name: /Network/ }).click();

    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: path.join(shots, "inspector-network-dark-desktop.png"), fullPage: true });
    await page.emulateMedia({ colorScheme: "light" });

    // Filters: without errors and console, the console error leaves the timeline.
    const chips = page.getByRole("group", { name: "Show on the timeline and in the lists" });
    await chips.getByRole("button", { name: /^Errors/ }).click();
    await chips.getByRole("button", { name: /^Console/ }).click();
    expect(await page.locator('[data-lane="errors"] .mark[data-kind="console"]').count()).toBe(0);

    await deleteFromTheInspector(id);
    expect(problems).toEqual([]);
  });

  /**
   * Deleted with the inspector's button by a MEMBER, the least of the roles: the service lets every
   * role delete a recording (it acts for any member of the session's workspace), so there is no role
   * the button is hidden from. Escape keeps it; confirmed, the player goes at once, the bytes answer
   * 404, the audit log names the member, and a reload shows no recording and no button.
   */
  async function deleteFromTheInspector(id: string) {
    const member = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    await context.clearCookies();
    await context.addCookies(
      [...member.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    await page.setViewportSize(wide);
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions/${id}`);
    await page.locator(".player video").waitFor();
    const button = page.getByRole("button", { name: "Delete recording" });
    await page.locator(".log-row", { hasText: "inspector-boom" }).waitFor();
    await shootAt("inspector-delete-button");

    // By keyboard: Enter opens the question, Escape leaves everything as it was.
    await button.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Delete this recording?" });
    await dialog.waitFor();
    await shootAt("inspector-delete-confirm");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await page.locator(".player video").count()).toBe(1);

    await button.click();
    await dialog.getByRole("button", { name: "Delete recording" }).click();
    const note = page.getByRole("status").filter({ hasText: "The recording was deleted." });
    await note.waitFor();
    expect(await page.locator(".player video").count()).toBe(0);
    expect(await button.count()).toBe(0);
    expect(await note.evaluate((el) => el === document.activeElement)).toBe(true);
    await shootAt("inspector-delete-done");

    const bytes = await fetch(`${t.url}/v1/sessions/${id}/recording`, { headers: bearer(ws.key) });
    expect(bytes.status).toBe(404);
    await t.app.deps.audit.flush();
    const entries = await t.app.deps.db.prisma.auditEntry.findMany({
      where: { workspaceId: ws.workspace.id, action: "session.recording.delete" },
      select: { actorUserId: true, keyPrefix: true, target: true, httpStatus: true },
    });
    expect(entries).toEqual([{ actorUserId: member.userId, keyPrefix: null, target: id, httpStatus: 200 }]);

    // Seen again: no recording (the player says it is gone), nothing to delete, and the logs stay.
    await page.reload();
    await page.getByText("The recording is gone").waitFor();
    await page.locator(".log-row", { hasText: "inspector-boom" }).waitFor();
    expect(await page.locator(".player video").count()).toBe(0);
    expect(await button.count()).toBe(0);
    await page.screenshot({ path: path.join(shots, "inspector-recording-gone-desktop.png"), fullPage: true });
    await page.setViewportSize(desktop);
  }
});
