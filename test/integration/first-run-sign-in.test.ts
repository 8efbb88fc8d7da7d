import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionFirstKey } from "../../src/services/api-keys/first-start.ts";
import { CONSOLE_LINK_LIFETIME_SECONDS, issueConsoleSignIn } from "../../src/services/sign-ins/console-sign-in.ts";
import { LOCAL_ADMIN_EMAIL } from "../../src/services/sign-ins/users.ts";
import { consoleBanner } from "../../src/console-banner.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";
import {
  CookieJar,
  EXCHANGE_SIGN_IN,
  REQUEST_SIGN_IN,
  address,
  addMember,
  gql,
  pkce,
  signIn,
  startDashboardApp,
  testClock,
  type DashboardApp,
} from "../support/dashboard.ts";

const ME = `{ me { email organizationAdmin workspaces { slug role } claimableWorkspaces { slug } } }`;

function linkParts(link: string): { token: string; verifier: string } {
  const url = new URL(link);
  return { token: url.searchParams.get("token")!, verifier: new URLSearchParams(url.hash.slice(1)).get("verifier")! };
}

describe("first run of the embedded default: a console sign-in link for the owner of default", () => {
  let t: TestApp;
  let dir: string;
  const clock = testClock();
  beforeAll(async () => {
    // No SMTP: the development mailer, as on `npm start`.
    t = await startTestApp({ users: undefined, now: clock.now });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-first-run-"));
    await provisionFirstKey(t.app.deps, dir);
  });
  afterAll(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("makes the local administrator the owner of default, and an organization admin", async () => {
    const ws = await t.app.deps.db.prisma.workspace.findUniqueOrThrow({ where: { slug: "default" }, include: { memberships: { include: { user: true } } } });
    expect(ws.memberships.map((m) => [m.user.email, m.role])).toEqual([[LOCAL_ADMIN_EMAIL, "OWNER"]]);
  });

  it("signs in once with the printed link, lands on default; the link is then spent", async () => {
    const signIn = await issueConsoleSignIn(t.app.deps);
    expect(signIn?.email).toBe(LOCAL_ADMIN_EMAIL);
    expect(signIn!.link.startsWith(`${t.config.publicBaseUrl}/dashboard/sign-in?token=`)).toBe(true);
    expect(signIn!.expiresAt.getTime() - clock.now().getTime()).toBeLessThanOrEqual(CONSOLE_LINK_LIFETIME_SECONDS * 1000);
    const { token, verifier } = linkParts(signIn!.link);
    const jar = new CookieJar();
    const r = await gql<{
      exchangeSignIn: { redirectTo: string; me: { email: string; organizationAdmin: boolean; workspaces: Array<{ slug: string; role: string }> } };
    }>(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar });
    expect(r.errors).toBeUndefined();
    expect(r.data!.exchangeSignIn.redirectTo).toBe("/dashboard/");
    expect(r.data!.exchangeSignIn.me).toMatchObject({ email: LOCAL_ADMIN_EMAIL, organizationAdmin: true, workspaces: [{ slug: "default", role: "OWNER" }] });
    const again = await gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar: new CookieJar() });
    expect(again.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("dies after its lifetime", async () => {
    const { token, verifier } = linkParts((await issueConsoleSignIn(t.app.deps))!.link);
    clock.advance((CONSOLE_LINK_LIFETIME_SECONDS + 1) * 1000);
    const r = await gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar: new CookieJar() });
    expect(r.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("never mails (to the log) a link for the local administrator: only the console's link signs it in", async () => {
    // The development mailer writes mail to the JSON log: asking for the local administrator's link
    // would put a live owner sign-in there for anyone who can ask and read the log.
    const mailed: string[] = [];
    const mailer = t.app.deps.dashboard.mailer;
    const send = mailer.send;
    mailer.send = (mail) => (mailed.push(mail.to), send(mail));
    try {
      const { challenge } = pkce();
      const r = await gql(t, REQUEST_SIGN_IN, { email: LOCAL_ADMIN_EMAIL.toUpperCase(), codeChallenge: challenge });
      expect(r.errors).toBeUndefined();
      await mailer.flush();
      expect(mailed).toEqual([]);
      const rows = await t.app.deps.db.prisma.loginToken.findMany({ where: { email: LOCAL_ADMIN_EMAIL, codeChallenge: challenge } });
      expect(rows).toHaveLength(1);
      expect(rows[0]!.usedAt).not.toBeNull();
    } finally {
      mailer.send = send;
    }
  });

  it("the console banner names the dashboard and the link; the link is never logged", () => {
    const banner = consoleBanner(
      "http://localhost:8080/dashboard/",
      { email: LOCAL_ADMIN_EMAIL, link: "http://x/dashboard/sign-in?token=a#verifier=b", expiresAt: new Date() },
      "/d/first-api-key",
    );
    expect(banner).toContain("Vessel dashboard: http://localhost:8080/dashboard/");
    expect(banner).toContain("http://x/dashboard/sign-in?token=a#verifier=b");
    expect(banner).toContain("/d/first-api-key");
    expect(consoleBanner("http://h/dashboard/", null, null)).not.toContain("sign-in");
  });
});

describe("with a mail server, or bootstrap admins", () => {
  let t: DashboardApp;
  let dir: string;
  const admin = address("admin");
  beforeAll(async () => {
    t = await startDashboardApp({ admins: [admin, address("second")] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-first-run-"));
    await provisionFirstKey(t.app.deps, dir);
  });
  afterAll(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("never prints a link when a real mail server is configured", async () => {
    expect(await issueConsoleSignIn(t.app.deps)).toBeNull();
  });

  it("the first bootstrap admin owns default and sees it after a mailed sign-in", async () => {
    const user = await signIn(t, admin);
    const me = await gql<{ me: { workspaces: Array<{ slug: string; role: string }> } }>(t, ME, {}, { jar: user.jar });
    expect(me.data!.me.workspaces).toEqual([{ slug: "default", role: "OWNER" }]);
  });
});

describe("claiming an ownerless workspace", () => {
  let t: DashboardApp;
  const admin = address("admin");
  beforeAll(async () => {
    t = await startDashboardApp({ admins: [admin] });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("an organization admin claims it over REST or GraphQL (audited); others are refused; an owned one is a conflict", async () => {
    const ownerless = await seedWorkspace(t);
    const other = await seedWorkspace(t);
    const owned = await seedWorkspace(t);
    await addMember(t, owned.workspace.id, "OWNER");
    const member = await addMember(t, other.workspace.id, "MEMBER");
    const a = await signIn(t, admin);
    const m = await signIn(t, member);

    const listed = await gql<{ me: { claimableWorkspaces: Array<{ slug: string }> } }>(t, ME, {}, { jar: a.jar });
    const slugs = listed.data!.me.claimableWorkspaces.map((w) => w.slug);
    expect(slugs).toContain(ownerless.workspace.slug);
    expect(slugs).not.toContain(owned.workspace.slug);
    const memberView = await gql<{ me: { claimableWorkspaces: unknown[] } }>(t, ME, {}, { jar: m.jar });
    expect(memberView.data!.me.claimableWorkspaces).toEqual([]);

    const refused = await fetch(`${t.url}/v1/dashboard/ws/${other.workspace.slug}/claim`, { method: "POST", headers: m.bearer });
    expect(refused.status).toBe(403);
    expect((await fetch(`${t.url}/v1/dashboard/ws/${owned.workspace.slug}/claim`, { method: "POST", headers: a.bearer })).status).toBe(409);
    expect((await fetch(`${t.url}/v1/dashboard/ws/no-such-ws/claim`, { method: "POST", headers: a.bearer })).status).toBe(404);
    const byKey = await fetch(`${t.url}/v1/dashboard/ws/${ownerless.workspace.slug}/claim`, {
      method: "POST",
      headers: { authorization: `Bearer ${ownerless.key}` },
    });
    expect(byKey.status).toBe(403);

    // The sign-in cookie is ambient: a page elsewhere posting a bodiless form (no preflight) is refused, as every cookie call.
    const crossSites: Array<Record<string, string>> = [
      { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      { origin: "https://evil.example" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const crossSite of crossSites) {
      const forged = await fetch(`${t.url}/v1/dashboard/ws/${ownerless.workspace.slug}/claim`, { method: "POST", headers: { cookie: a.cookie, ...crossSite } });
      expect(forged.status).toBe(403);
    }
    expect(await t.app.deps.db.prisma.membership.count({ where: { workspaceId: ownerless.workspace.id } })).toBe(0);
    const sameOrigin = await fetch(`${t.url}/v1/dashboard/ws/${ownerless.workspace.slug}/claim`, {
      method: "POST",
      headers: { cookie: a.cookie, "sec-fetch-site": "same-origin" },
    });
    expect(sameOrigin.status).toBe(200);
    await t.app.deps.db.prisma.membership.deleteMany({ where: { workspaceId: ownerless.workspace.id } });

    const claimed = await fetch(`${t.url}/v1/dashboard/ws/${ownerless.workspace.slug}/claim`, { method: "POST", headers: a.bearer });
    expect(claimed.status).toBe(200);
    expect(await claimed.json()).toMatchObject({ slug: ownerless.workspace.slug, role: "OWNER" });
    expect((await fetch(`${t.url}/v1/dashboard/ws/${ownerless.workspace.slug}/claim`, { method: "POST", headers: a.bearer })).status).toBe(409);

    const viaGql = await gql<{ claimWorkspace: { slug: string; role: string } }>(
      t,
      `mutation ($slug: String!) { claimWorkspace(slug: $slug) { slug role } }`,
      { slug: other.workspace.slug },
      { jar: a.jar },
    );
    expect(viaGql.data?.claimWorkspace).toEqual({ slug: other.workspace.slug, role: "OWNER" });

    await t.app.deps.audit.flush();
    const audit = await t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: ownerless.workspace.id, action: "workspace.claim" } });
    expect(audit.map((e) => e.httpStatus)).toEqual(expect.arrayContaining([200, 409]));
  });
});
