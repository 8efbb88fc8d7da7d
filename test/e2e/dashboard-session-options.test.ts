import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatBytes } from "../../src/dashboard/src/lib/format.ts";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { connectToPipe } from "../support/pipe-transport.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
/** Pictures to look at (gitignored), at desktop and phone width. */
const shots = path.join(root, ".scratch/screenshots");
const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

/** An extension zip as people make them: manifest.json at the top, a content script beside it. */
function extensionZip(name: string, version: string): Buffer {
  return Buffer.from(
    zipSync({
      "manifest.json": strToU8(JSON.stringify({ manifest_version: 3, name, version, content_scripts: [{ matches: ["<all_urls>"], js: ["mark.js"] }] })),
      "mark.js": strToU8('document.documentElement.dataset.marked = "1";'),
    }),
  );
}

/**
 * Issue 21 in the dashboard, in Chromium against the running app (the default headless shell, so
 * extensions are refused at create): a session started from the dialog with metadata and browser
 * settings (the server's validation shown next to its fields, once), seen on its page and in the
 * list; the list filtered by metadata; a file uploaded into the running session and used by path;
 * an extension uploaded and deleted. Any console error, page error or CSP violation fails the run.
 */
describe.skipIf(!executablePath)("session options in the dashboard", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let owner: SignedInUser;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sessionId = "";
  const started: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    t = await startDashboardApp({ env: { VESSEL_BROWSER_CAPACITY: "3", VESSEL_BROWSER_WARM: "0" } });
    ws = await seedWorkspace(t);
    owner = await signIn(t, await addMember(t, ws.workspace.id, "OWNER"));
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
    context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(20_000);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
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
    for (const id of started) await releaseSession(t, ws.key, id).catch(() => undefined);
    await browser?.close();
    await t?.stop();
  });

  /** The whole page at both widths (back to desktop after); in a dialog, what is on screen around `at`. */
  const shoot = async (name: string, at?: Locator) => {
    for (const [size, viewport] of [
      ["desktop", desktop],
      ["phone", phone],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(400);
      await at?.evaluate((el) => el.scrollIntoView({ block: "center" }));
      await page.screenshot({ path: path.join(shots, `${name}-${size}.png`), fullPage: !at });
    }
    await page.setViewportSize(desktop);
  };
  const sessionsUrl = () => `${t.url}/dashboard/w/${ws.workspace.slug}/sessions`;
  /** The ids the list shows now. */
  const listed = () => page.locator("tbody tr[data-session-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-session-id")!).sort());
  const detail = (label: string): Locator => page.locator(".props > div", { has: page.locator("dt", { hasText: new RegExp(`^${label}$`) }) }).locator("dd");

  it("starts a session with metadata and browser settings from the dialog, the server's complaints next to their fields", async () => {
    await page.goto(sessionsUrl());
    await page
      .getByRole("button", { name: /New session|Start a session/ })
      .first()
      .click();
    const dialog = page.getByRole("dialog");
    // The other options of the dialog are still there.
    expect(await dialog.getByLabel("Capture logs").isChecked()).toBe(true);
    await dialog.getByRole("button", { name: /Advanced/ }).click();
    await dialog.getByRole("button", { name: "Add metadata" }).click();
    await dialog.getByLabel("Key 1").fill("team");
    await dialog.getByLabel("Value 1").fill("qa");
    await dialog.getByRole("button", { name: "Add metadata" }).click();
    await dialog.getByLabel("Key 2").fill("run");
    await dialog.getByLabel("Value 2").fill("42");
    await dialog.getByLabel("Viewport width (px)").fill("100");
    await dialog.getByLabel("Viewport height (px)").fill("800");
    await dialog.getByLabel("User agent").fill("VesselDashboardTest/1.0");
    await dialog.getByLabel("Locale").fill("fr-CH");
    await dialog.getByLabel("Time zone").fill("Mars/Olympus_Mons");
    await dialog.getByLabel("Latitude (°)").fill("46.95");
    await dialog.getByLabel("Longitude (°)").fill("7.45");
    await dialog.getByLabel("Accuracy (m)").fill("25");
    await shoot("options-dialog-advanced", dialog.getByRole("button", { name: /Advanced/ }));
    // Minutes are checked as minutes by the form itself (issue 25): one message, no round trip.
    // Past a day (the most any session may ask): the form's own message; below it, the server judges the session limit (e2e/session-limit).
    await dialog.getByLabel("Time limit (minutes)").fill("1441");
    await dialog.getByRole("button", { name: "Start session" }).click();
    expect(await dialog.locator("#ns-timeout-error").textContent()).toBe("Enter whole minutes from 1 to 1440.");
    expect(await dialog.getByText(/Enter whole minutes/).count()).toBe(1);
    expect(await dialog.getByText(/1800|Too big/).count()).toBe(0);
    await dialog.getByLabel("Time limit (minutes)").fill("30");
    await dialog.getByRole("button", { name: "Start session" }).click();

    // The server refuses both; each message is next to its field, in the field's units, and said once.
    await dialog.locator("#ns-width-error").waitFor();
    expect(await dialog.locator("#ns-width-error").textContent()).toBe("must be at least 200 px");
    expect(await dialog.locator("#ns-timezone-error").textContent()).toMatch(/IANA time zone/);
    expect(await dialog.locator("#ns-timeout-error").count()).toBe(0);
    expect(await dialog.getByText("must be at least 200 px").count()).toBe(1);
    expect(await dialog.getByText(/IANA time zone such as/).count()).toBe(1);
    expect(await dialog.locator(".notice-error").count()).toBe(0);
    await shoot("options-dialog-errors", dialog.locator("#ns-width"));

    // A typo the form can see for itself needs no round trip.
    await dialog.getByLabel("Key 2").fill("Run");
    await dialog.getByRole("button", { name: "Start session" }).click();
    await dialog.getByText("Keys are 1–64 characters of a-z, 0-9, _ . and -.").waitFor();
    await dialog.getByLabel("Key 2").fill("run");

    await dialog.getByLabel("Viewport width (px)").fill("1280");
    await dialog.getByLabel("Time limit (minutes)").fill("30");
    await dialog.getByLabel("Time zone").fill("Europe/Zurich");
    await dialog.getByRole("button", { name: "Start session" }).click();
    await page.waitForURL(/\/sessions\/ses_/);
    sessionId = page.url().split("/").pop()!;
    started.push(sessionId);

    // Its page says what it was given.
    await page.locator("h1 [data-status=RUNNING]").waitFor();
    expect(await detail("Metadata").locator(".chip").allTextContents()).toEqual(["run=42", "team=qa"]);
    expect(await detail("Viewport").textContent()).toBe("1280 × 800 px");
    expect(await detail("User agent").textContent()).toBe("VesselDashboardTest/1.0");
    expect(await detail("Locale").textContent()).toBe("fr-CH");
    expect(await detail("Time zone").textContent()).toBe("Europe/Zurich");
    expect(await detail("Location").textContent()).toBe("46.95° N, 7.45° E, within 25 m");
    // And the browser has them. (Not the viewport: Puppeteer sets its own 800×600 on the pages it attaches to.)
    const driver = await connectToPipe(t.app.deps.runtime.endpoint(sessionId)!.cdp);
    const [tab] = await driver.pages();
    const seen = await tab!.evaluate(() => ({ ua: navigator.userAgent, lang: navigator.language, zone: Intl.DateTimeFormat().resolvedOptions().timeZone }));
    expect(seen).toEqual({ ua: "VesselDashboardTest/1.0", lang: "fr-CH", zone: "Europe/Zurich" });
    await driver.disconnect();
    await shoot("options-session-page");

    // The list shows its metadata as chips.
    await page.goto(sessionsUrl());
    const row = page.locator(`tr[data-session-id="${sessionId}"]`);
    await row.waitFor();
    expect(await row.locator(".chip").allTextContents()).toEqual(["run=42", "team=qa"]);
    expect(problems).toEqual([]);
  });

  it("filters the list by metadata: exactly the sessions with every pair, also as they change", async () => {
    const make = async (metadata: Record<string, string>) => {
      const made = await createSession(t, ws.key, { region: "us-east1", metadata });
      expect(made.res.status).toBe(201);
      await releaseSession(t, ws.key, made.body.id);
      return made.body.id;
    };
    const qa1 = await make({ team: "qa", run: "1" });
    const qa2 = await make({ team: "qa", run: "2" });
    const ops1 = await make({ team: "ops", run: "1" });
    await make({});

    await page.goto(sessionsUrl());
    const filter = page.getByLabel("Filter by metadata, as key=value");
    await filter.fill("team=qa");
    await filter.press("Enter");
    await expect.poll(listed).toEqual([qa1, qa2, sessionId].sort());
    await filter.fill("run=1");
    await filter.press("Enter");
    await expect.poll(listed).toEqual([qa1]);
    expect(new URL(page.url()).searchParams.getAll("meta")).toEqual(["team=qa", "run=1"]);
    await shoot("options-list-filtered");

    // Dropping a filter widens the list; picking a row's chip narrows it again.
    await page.getByRole("button", { name: "Remove the filter team=qa" }).click();
    await expect.poll(listed).toEqual([qa1, ops1].sort());
    await page.locator(`tr[data-session-id="${ops1}"]`).getByRole("button", { name: "team=ops" }).click();
    await expect.poll(listed).toEqual([ops1]);

    // The status filter still works beside them.
    await page.getByRole("button", { name: "Remove the filter run=1" }).click();
    await page.getByRole("button", { name: "Remove the filter team=ops" }).click();
    await filter.fill("team=qa");
    await filter.press("Enter");
    await page.getByRole("group", { name: "Filter by status" }).getByRole("button", { name: "Running" }).click();
    await expect.poll(listed).toEqual([sessionId]);
    await page.getByRole("group", { name: "Filter by status" }).getByRole("button", { name: "All" }).click();
    await expect.poll(listed).toEqual([qa1, qa2, sessionId].sort());

    // Live: a new session shows up only when it matches.
    const other = await make({ team: "ops" });
    const qa3 = await make({ team: "qa", run: "3" });
    await expect.poll(listed).toEqual([qa1, qa2, qa3, sessionId].sort());
    expect(await listed()).not.toContain(other);

    // Something that is not key=value is said, not sent.
    await filter.fill("Team");
    await filter.press("Enter");
    await page.getByText("Write it as key=value, such as team=qa.").waitFor();
    await shoot("options-list-filter-problem");
    expect(problems).toEqual([]);
  });

  it("uploads a file into the running session from its page, and the path works for a file input", async () => {
    await page.goto(`${sessionsUrl()}/${sessionId}`);
    const card = page.getByRole("region", { name: "Files", exact: true });
    const chooser = page.waitForEvent("filechooser");
    await card.getByRole("button", { name: "Upload a file" }).click();
    await (await chooser).setFiles({ name: "invoice.txt", mimeType: "text/plain", buffer: Buffer.from("Invoice 2026-0042: 99.50 CHF\n") });
    const item = card.locator("li[data-file-id]", { hasText: "invoice.txt" });
    await item.waitFor();
    const shown = (await item.locator("[data-path]").getAttribute("data-path"))!;
    expect(shown).toMatch(/\/invoice\.txt$/);
    // The same as the API says.
    const listedFiles = (await (await fetch(`${t.url}/v1/sessions/${sessionId}/files`, { headers: bearer(ws.key) })).json()) as {
      items: Array<{ path: string; size: number }>;
    };
    expect(listedFiles.items).toMatchObject([{ path: shown, size: 29 }]);
    expect(await item.locator(".muted").first().textContent()).toMatch(/^29 B · /);

    // A file the automation uploads meanwhile (REST, API key) shows up without a reload.
    const form = new FormData();
    form.append("file", new Blob(["a,b\n1,2\n"]), "rows.csv");
    expect((await fetch(`${t.url}/v1/sessions/${sessionId}/files`, { method: "POST", headers: bearer(ws.key), body: form })).status).toBe(201);
    await card.locator("li[data-file-id]", { hasText: "rows.csv" }).waitFor();

    await card.locator("li", { hasText: "invoice.txt" }).getByRole("button", { name: "Copy path" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);

    // Automation gives that path to a file input, and the page reads the file's bytes.
    const driver = await connectToPipe(t.app.deps.runtime.endpoint(sessionId)!.cdp);
    const [tab] = await driver.pages();
    await tab!.setContent("<input type=file id=f>");
    const input = (await tab!.$("input#f"))!;
    await input.uploadFile(shown);
    expect(await tab!.evaluate(() => (document.getElementById("f") as HTMLInputElement).files![0]!.text())).toBe("Invoice 2026-0042: 99.50 CHF\n");
    await driver.disconnect();
    await page.waitForTimeout(300);
    await shoot("options-session-files");
    expect(problems).toEqual([]);
  });

  it("uploads an extension, offers it in the dialog (full Chromium only), and deletes it", async () => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Extensions" }).click();
    await page.getByRole("heading", { name: "No extensions yet" }).waitFor();
    await shoot("options-extensions-empty");

    const upload = async (name: string, buffer: Buffer) => {
      const chooser = page.waitForEvent("filechooser");
      await page.getByRole("button", { name: "Upload extension" }).click();
      await (await chooser).setFiles({ name, mimeType: "application/zip", buffer });
    };
    const zip = extensionZip("Price marker", "2.1.0");
    await upload("price-marker.zip", zip);
    const row = page.locator("tr[data-extension-id]", { hasText: "Price marker" });
    await row.waitFor();
    expect(await row.locator('td[data-label="Version"]').textContent()).toBe("2.1.0");
    expect(await row.locator('td[data-label="Size"]').textContent()).toBe(formatBytes(zip.length));
    expect(await row.locator('td[data-label="Uploaded"]').textContent()).toBe("just now");
    const extensionId = (await row.getAttribute("data-extension-id"))!;

    // Not an extension: the server's reason, on the page.
    await upload("notes.zip", Buffer.from(zipSync({ "notes.txt": strToU8("hello") })));
    await page.getByText("Not an extension Vessel can load").waitFor();
    await shoot("options-extensions-list");

    // Chosen at create on the headless shell: the dialog says it needs full Chromium, next to the choice.
    await page.goto(`${sessionsUrl()}?new=1`);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: /Advanced/ }).click();
    await dialog.getByLabel(/Price marker/).check();
    await dialog.getByRole("button", { name: "Start session" }).click();
    const note = dialog.getByRole("alert").filter({ hasText: "Extensions need full Chromium" });
    await note.waitFor();
    expect(await note.textContent()).toContain("headless shell");
    expect(await dialog.getByText("Extensions need full Chromium").count()).toBe(1);
    await shoot("options-dialog-extensions-unsupported", note);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    // Deleted after a confirmation: gone from the page and from the API.
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/extensions`);
    await page.locator(`tr[data-extension-id="${extensionId}"]`).getByRole("button", { name: "Delete Price marker" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete “Price marker”?" });
    await shoot("options-extensions-delete", confirm);
    await confirm.getByRole("button", { name: "Delete extension" }).click();
    await page.getByRole("heading", { name: "No extensions yet" }).waitFor();
    expect((await fetch(`${t.url}/v1/extensions/${extensionId}`, { headers: bearer(ws.key) })).status).toBe(404);
    expect(problems).toEqual([]);
  });
});
