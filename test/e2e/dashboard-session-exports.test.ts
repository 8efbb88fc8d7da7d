import fs from "node:fs";
import { unzipSync } from "fflate";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { startColourPage } from "../support/recordings.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/**
 * Issue 47: the session's page offers its evidence bundle and its HAR for download. While a recorded
 * session runs the bundle is not offered (its video is not written); once it has ended, a member's
 * click downloads the zip of five parts (with the cookie, through the REST route) and the HAR.
 */
describe.skipIf(!executablePath)("the session page's Download", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let member: SignedInUser;
  let browser: Browser;
  let page: Page;
  let site: Awaited<ReturnType<typeof startColourPage>>;
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startDashboardApp({ env: { VESSEL_BROWSER_CAPACITY: "2", VESSEL_BROWSER_WARM: "0" } });
    ws = await seedWorkspace(t);
    member = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    site = await startColourPage();
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
    const context = await browser.newContext({ acceptDownloads: true });
    context.setDefaultTimeout(20_000);
    await context.addCookies(
      [...member.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await t?.stop();
  });

  it("waits for a recorded session to end, then downloads its bundle and its HAR", async () => {
    const { body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    const visitor = await chromium.connectOverCDP(body.connect_url!);
    await visitor.contexts()[0]!.pages()[0]!.goto(site.url);
    await visitor.close();

    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions/${body.id}`);
    expect(await page.getByRole("button", { name: "Download bundle" }).isDisabled()).toBe(true);

    await releaseSession(t, ws.key, body.id);
    await eventually(
      () => fetch(`${t.url}/v1/sessions/${body.id}/bundle`, { headers: bearer(ws.key) }).then((r) => (r.body?.cancel(), r.status)),
      (s) => s !== 409,
      60_000,
    );
    await page.reload();
    const link = page.getByRole("link", { name: "Download bundle" });
    const [zip] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(zip.suggestedFilename()).toBe(`${body.id}.zip`);
    const files = unzipSync(fs.readFileSync((await zip.path())!));
    expect(Object.keys(files).sort()).toEqual(["events.json", "logs.ndjson", "recording.mp4", "session.har", "session.json"]);

    const [har] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "HAR" }).click()]);
    const doc = JSON.parse(fs.readFileSync((await har.path())!, "utf8")) as { log: { version: string; entries: Array<{ request: { url: string } }> } };
    expect(doc.log.version).toBe("1.2");
    expect(doc.log.entries.some((e) => e.request.url === site.url)).toBe(true);

    // The member's downloads are audited as theirs.
    await t.app.deps.audit.flush();
    const reads = await t.app.deps.db.prisma.auditEntry.findMany({ where: { action: "session.bundle.read", target: body.id, httpStatus: 200 } });
    expect(reads.some((r) => r.actorUserId !== null)).toBe(true);
    expect(problems).toEqual([]);
  });
});
