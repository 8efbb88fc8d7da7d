import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { ensureDashboardBuilt } from "../support/dashboard-build.ts";
import { startLoginSite, type LoginSite } from "../support/login-site.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { createSession, releaseSession } from "../support/sessions.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const shots = path.resolve(import.meta.dirname, "../../.scratch/shots");
const desktop = { width: 1440, height: 900 };
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/**
 * The Credentials page in Chromium against the running app (issue 46): an owner adds a login with a
 * wrong password, replaces it with the right one (the fill then signs in to the fixture site, so the
 * replacement took), sees when it was last used, and deletes it. No secret is ever on the page.
 */
describe.skipIf(!executablePath)("the Credentials page", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let owner: SignedInUser;
  let browser: Browser;
  let site: LoginSite;
  const problems: string[] = [];
  const secret = {
    username: `agent-${randomUUID()}@example.com`,
    password: `pw-${randomUUID()}`,
    totpSecret: Array.from(randomBytes(32), (b) => BASE32[b % 32]).join(""),
  };
  const wrongPassword = `old-${randomUUID()}`;

  beforeAll(async () => {
    ensureDashboardBuilt();
    fs.mkdirSync(shots, { recursive: true });
    site = await startLoginSite(secret);
    t = await startDashboardApp({ env: { VESSEL_BROWSER_CAPACITY: "1", VESSEL_BROWSER_WARM: "0" } });
    ws = await seedWorkspace(t, { scopes: ["credentials:use", "credentials:manage"] });
    owner = await signIn(t, await addMember(t, ws.workspace.id, "OWNER"));
    browser = await chromium.launch({ executablePath, args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await site?.close();
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

  it("adds a credential, replaces its secret, shows when a fill last used it, and deletes it", async () => {
    const { context, page } = await pageAs(owner);
    await page.goto(`${t.url}/dashboard/w/${ws.workspace.slug}/sessions`);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Credentials" }).click();
    await page.getByRole("heading", { name: "No credentials yet" }).waitFor();

    // Added with a wrong password: a fill with it would not sign in.
    await page.getByRole("button", { name: "Add credential" }).click();
    let dialog = page.getByRole("dialog", { name: "Add credential" });
    await dialog.getByLabel("Name", { exact: true }).fill("fixture");
    await dialog.getByLabel("Origins", { exact: true }).fill(site.origin);
    await dialog.getByLabel("Username", { exact: true }).fill(secret.username);
    await dialog.getByLabel("Password", { exact: true }).fill(wrongPassword);
    await dialog.getByLabel(/TOTP secret/).fill(secret.totpSecret);
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    const stored = await t.app.deps.db.prisma.credential.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, name: "fixture" } });
    const row = page.locator(`tr[data-credential-id="${stored.id}"]`);
    await row.waitFor();
    expect(await row.locator('td[data-label="Origins"]').textContent()).toBe(site.origin);
    expect(await row.locator('td[data-label="Last used"]').textContent()).toBe("never");
    await page.screenshot({ path: path.join(shots, "credentials-added-1440x900.png"), fullPage: true });

    // Replaced: only the password; the name, origins, username and TOTP secret stay.
    await page.getByRole("button", { name: "Replace fixture" }).click();
    dialog = page.getByRole("dialog", { name: "Replace “fixture”" });
    await dialog.getByLabel("Password", { exact: true }).fill(secret.password);
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });

    // An agent fills it into a session on the login page: it signs in, so the replacement took.
    const made = await createSession(t, ws.key, { region: "us-east1", start_url: `${site.origin}/login` });
    expect(made.res.status).toBe(201);
    try {
      // The start page loads behind the create's answer: fill once its form is there.
      await expect
        .poll(
          async () => {
            const res = await fetch(`${t.url}/v1/sessions/${made.body.id}/credentials/${stored.id}/fill`, {
              method: "POST",
              headers: { ...bearer(ws.key), "content-type": "application/json" },
              body: JSON.stringify({ submit: true }),
            });
            return res.status === 200 ? ((await res.json()) as { filled: string[] }).filled : res.status;
          },
          { timeout: 30_000, interval: 500 },
        )
        .toEqual(["username", "password", "totp"]);
      await expect.poll(() => site.signIns.at(-1), { timeout: 20_000 }).toMatchObject({ username: secret.username, password: secret.password, ok: true });
    } finally {
      await releaseSession(t, ws.key, made.body.id).catch(() => undefined);
    }

    await page.reload();
    const used = row.locator('td[data-label="Last used"] time');
    await used.waitFor();
    const lastUsed = (await t.app.deps.db.prisma.credential.findUniqueOrThrow({ where: { id: stored.id } })).lastUsedAt;
    expect(await used.getAttribute("datetime")).toBe(lastUsed?.toISOString());
    const html = await page.content();
    for (const value of [secret.password, secret.totpSecret, wrongPassword]) expect(html).not.toContain(value);
    await page.screenshot({ path: path.join(shots, "credentials-used-1440x900.png"), fullPage: true });

    await page.getByRole("button", { name: "Delete fixture" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete credential" }).click();
    await page.getByRole("heading", { name: "No credentials yet" }).waitFor();
    expect(await t.app.deps.db.prisma.credential.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    await context.close();
    expect(problems).toEqual([]);
  }, 180_000);
});
