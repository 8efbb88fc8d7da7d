import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionFirstKey } from "../../src/services/api-keys/first-start.ts";
import { issueConsoleSignIn } from "../../src/services/sign-ins/console-sign-in.ts";
import { LOCAL_ADMIN_EMAIL } from "../../src/services/sign-ins/users.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { CookieJar, EXCHANGE_SIGN_IN, REQUEST_SIGN_IN, address, gql, pkce, signIn, startDashboardApp, type DashboardApp } from "../support/dashboard.ts";

function linkParts(link: string): { token: string; verifier: string } {
  const url = new URL(link);
  return { token: url.searchParams.get("token")!, verifier: new URLSearchParams(url.hash.slice(1)).get("verifier")! };
}

const INVITE = `mutation ($e: String!) { createInvitation(workspace: "default", email: $e, role: MEMBER) { id email status signInLink } }`;
const REQUESTED = `mutation ($email: String!, $codeChallenge: String!) { requestSignIn(email: $email, codeChallenge: $codeChallenge) { linkLifetimeSeconds mailConfigured } }`;
const ME = `{ me { email workspaces { slug role } } }`;

/** Issue 45 point 4: on a server without mail, the sign-in page says so and an inviter gets the link to pass on. */
describe("a server without mail", () => {
  let t: TestApp;
  let dir: string;
  let owner: CookieJar;
  beforeAll(async () => {
    t = await startTestApp({ users: undefined });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-no-mail-"));
    await provisionFirstKey(t.app.deps, dir);
    owner = new CookieJar();
    const { token, verifier } = linkParts((await issueConsoleSignIn(t.app.deps))!.link);
    const r = await gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar: owner });
    expect(r.errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("requestSignIn says no mail is configured (whatever the address)", async () => {
    for (const email of [LOCAL_ADMIN_EMAIL, address("stranger")]) {
      const r = await gql<{ requestSignIn: { mailConfigured: boolean } }>(t, REQUESTED, { email, codeChallenge: pkce().challenge });
      expect(r.errors).toBeUndefined();
      expect(r.data!.requestSignIn.mailConfigured).toBe(false);
    }
  });

  it("an invitation answers a one-time link that signs the invitee in and makes them a member; it is not logged or stored", async () => {
    const invitee = address("invitee");
    const logged: string[] = [];
    const mailer = t.app.deps.dashboard.mailer;
    const send = mailer.send;
    mailer.send = (mail) => (logged.push(mail.text), send(mail));
    let link: string;
    try {
      const r = await gql<{ createInvitation: { email: string; status: string; signInLink: string | null } }>(t, INVITE, { e: invitee }, { jar: owner });
      expect(r.errors).toBeUndefined();
      expect(r.data!.createInvitation).toMatchObject({ email: invitee, status: "PENDING" });
      link = r.data!.createInvitation.signInLink!;
      expect(link).toMatch(new RegExp(`^${t.url}/dashboard/sign-in\\?token=[A-Za-z0-9_-]{43}#verifier=[A-Za-z0-9_-]+$`));
      await mailer.flush();
    } finally {
      mailer.send = send;
    }
    const { token, verifier } = linkParts(link);
    // The development mailer's text (written to the log) never carries it.
    expect(logged.some((text) => text.includes(token))).toBe(false);
    // Stored only as its hash, for the invitee, lasting a day.
    const rows = await t.app.deps.db.prisma.loginToken.findMany({ where: { email: invitee } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toContain(token);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(24 * 3600 * 1000);

    // Listing invitations never shows it again.
    const list = await gql<{ invitations: Array<{ signInLink: string | null }> }>(
      t,
      `{ invitations(workspace: "default") { signInLink } }`,
      {},
      { jar: owner },
    );
    expect(list.data!.invitations.every((i) => i.signInLink === null)).toBe(true);

    const jar = new CookieJar();
    const ex = await gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar });
    expect(ex.errors).toBeUndefined();
    const me = await gql<{ me: { email: string; workspaces: Array<{ slug: string; role: string }> } }>(t, ME, {}, { jar });
    expect(me.data!.me).toEqual({ email: invitee, workspaces: [{ slug: "default", role: "MEMBER" }] });
    // Once.
    expect((await gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar: new CookieJar() })).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("a server with mail", () => {
  let t: DashboardApp;
  const admin = address("admin");
  beforeAll(async () => {
    t = await startDashboardApp({ admins: [admin] });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("says mail is configured, and an invitation carries no link (the mail does the work)", async () => {
    const r = await gql<{ requestSignIn: { mailConfigured: boolean } }>(t, REQUESTED, { email: address("nobody"), codeChallenge: pkce().challenge });
    expect(r.data!.requestSignIn.mailConfigured).toBe(true);
    const user = await signIn(t, admin);
    const created = await gql<{ createWorkspace: { slug: string } }>(
      t,
      `mutation { createWorkspace(slug: "mailed", name: "Mailed") { slug } }`,
      {},
      { jar: user.jar },
    );
    expect(created.errors).toBeUndefined();
    const inv = await gql<{ createInvitation: { signInLink: string | null } }>(
      t,
      `mutation ($e: String!) { createInvitation(workspace: "mailed", email: $e, role: MEMBER) { signInLink } }`,
      { e: address("mailed") },
      { jar: user.jar },
    );
    expect(inv.errors).toBeUndefined();
    expect(inv.data!.createInvitation.signInLink).toBeNull();
  });
});
