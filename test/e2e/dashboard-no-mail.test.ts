import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionFirstKey } from "../../src/services/api-keys/first-start.ts";
import { issueConsoleSignIn } from "../../src/services/sign-ins/console-sign-in.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** Issue 45 point 4 in the dashboard, on a server without mail (the embedded default): no dead ends. */
describe.skipIf(!executablePath)("the dashboard without mail", () => {
  let t: TestApp;
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ users: undefined });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-no-mail-ui-"));
    await provisionFirstKey(t.app.deps, dir);
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the sign-in page says plainly that no mail is sent and what to run", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${t.url}/dashboard/sign-in`);
    await page.getByLabel("Email address").fill("someone@example.test");
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByRole("heading", { name: "This server does not send mail" }).waitFor();
    expect(await page.getByText("npm run sign-in-link").count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Check your mail" }).count()).toBe(0);
  });

  it("an owner who invites someone is shown the link to pass on, with a copy button; the link signs the invitee in", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto((await issueConsoleSignIn(t.app.deps))!.link);
    await page.waitForURL(/\/dashboard\/w\/default\//);
    await page.goto(`${t.url}/dashboard/w/default/members`);
    await page.getByLabel("Email address").fill("invitee@example.test");
    await page.getByRole("button", { name: "Send invitation" }).click();
    const notice = page.locator(".invite-link");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("nothing was sent to invitee@example.test");
    const link = (await notice.locator("code").textContent())!;
    expect(link).toMatch(new RegExp(`^${t.url}/dashboard/sign-in\\?token=[A-Za-z0-9_-]{43}#verifier=`));
    await notice.getByRole("button", { name: "Copy link" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

    const invitee = await (await browser.newContext()).newPage();
    await invitee.goto(link);
    await invitee.waitForURL(/\/dashboard\/w\/default\//, { timeout: 20_000 });
    const me = await t.app.deps.db.prisma.membership.findMany({ where: { user: { email: "invitee@example.test" } } });
    expect(me.map((m) => m.role)).toEqual(["MEMBER"]);
  });
});
