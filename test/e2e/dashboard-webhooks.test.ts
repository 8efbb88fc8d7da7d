import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { signedBy, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
/** Pictures to look at, at desktop and phone width. */
const shots = path.join(root, ".scratch/shots");
const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * The Webhooks page in Chromium against the running app: an owner adds a webhook (its secret shown
 * once), sends it a test event and sees it delivered in the log, and turns back on an endpoint that
 * Vessel disabled (the notice says so); a member has no such page. Any console error fails the run.
 */
describe.skipIf(!executablePath)("the Webhooks page", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let owner: SignedInUser;
  let member: SignedInUser;
  let browser: Browser;
  let receiver: Receiver;
  const problems: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    t = await startDashboardApp({});
    ws = await seedWorkspace(t);
    owner = await signIn(t, await addMember(t, ws.workspace.id, "OWNER"));
    member = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    receiver = await startReceiver();
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await receiver?.close();
  });

  async function pageAs(user: SignedInUser): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: desktop, locale: "en-GB", timezoneId: "UTC" });
    context.setDefaultTimeout(20_000);
    await context.addCookies(
      [...user.jar.cookies].map(([name, c]) => ({ name, value: c.value, domain: "127.0.0.1", path: c.path, httpOnly: true, sameSite: "Lax" as const })),
    );
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    return { context, page };
  }
  const shoot = async (page: Page, name: string) => {
    for (const [size, viewport] of [
      ["1440x900", desktop],
      ["390x844", phone],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(shots, `webhooks-${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(desktop);
  };

  it("adds a webhook, shows its secret once, sends a test event and shows it delivered", async () => {
    const { context, page } = await pageAs(owner);
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions`);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "No webhooks yet" }).waitFor();
    await shoot(page, "empty");

    await page.getByRole("button", { name: "Add webhook" }).first().click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Endpoint URL").fill("ftp://nope.example/");
    await dialog.getByRole("button", { name: "Add webhook" }).click();
    await dialog.getByText("must use http:// or https://").waitFor();
    await dialog.getByLabel("Endpoint URL").fill(`${receiver.url}/dashboard`);
    await dialog.getByLabel(/session\.running/).check();
    await dialog.getByLabel("Description (optional)").fill("Billing backend");
    await dialog.getByRole("button", { name: "Add webhook" }).click();
    const secretBox = dialog.getByLabel("Signing secret");
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shoot(page, "secret");
    await dialog.getByRole("button", { name: "I’ve saved it" }).click();

    const row = page.locator("tr[data-webhook-id]");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("session.running");
    await row.getByRole("button", { name: "Send test event" }).click();
    const delivered = page.locator(".delivery-log tr[data-delivery-id]", { hasText: "webhook.test" });
    await delivered.getByText("delivered").waitFor();
    expect(await delivered.textContent()).toContain("HTTP 200");
    const got = receiver.received.filter((r) => r.path === "/dashboard");
    expect(got).toHaveLength(1);
    expect(signedBy([secret], got[0]!)).toEqual([secret]);
    await shoot(page, "list");
    await context.close();
  });

  it("announces an endpoint Vessel disabled, and turns it back on", async () => {
    const hook = await t.app.deps.db.prisma.webhookEndpoint.findFirstOrThrow({ where: { workspaceId: ws.workspace.id } });
    await t.app.deps.db.prisma.webhookEndpoint.update({
      where: { id: hook.id },
      data: { enabled: false, disabledAt: new Date(), disabledReason: "every delivery failed for 3 days" },
    });
    const { context, page } = await pageAs(owner);
    // Every page of the workspace says so to its admins, linking to the Webhooks page.
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions`);
    const banner = page.locator(".webhook-banner");
    await banner.getByText("1 webhook disabled").waitFor();
    await shoot(page, "disabled-banner");
    await banner.getByRole("link", { name: "Review webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    expect(await page.locator(".webhook-banner").count()).toBe(0);
    const notice = page.locator(".notice", { hasText: "Webhook disabled" });
    await notice.waitFor();
    expect(await notice.textContent()).toContain("every delivery failed for 3 days");
    await shoot(page, "disabled");
    await notice.getByRole("button", { name: "Turn it back on" }).click();
    await notice.waitFor({ state: "detached" });
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Sessions" }).click();
    await page.locator("h1", { hasText: "Sessions" }).waitFor();
    await expect.poll(() => page.locator(".webhook-banner").count()).toBe(0);
    expect((await t.app.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } })).enabled).toBe(true);
    await context.close();
  });

  it("has no Webhooks page for members", async () => {
    const { context, page } = await pageAs(member);
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions`);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Sessions" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Webhooks" }).count()).toBe(0);
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/webhooks`);
    await page.getByText("Only owners and admins of the workspace manage its webhooks.").waitFor();
    await context.close();
    expect(problems).toEqual([]);
  });
});
