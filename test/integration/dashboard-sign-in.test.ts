import { Writable } from "node:stream";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tokenHash } from "../../src/auth/opaque-tokens.ts";
import { createLogger } from "../../src/logger.ts";
import { seedWorkspace } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type Backend, type TestDatabase } from "../support/db.ts";
import {
  address,
  addMember,
  CookieJar,
  EXCHANGE_SIGN_IN,
  gql,
  linkToken,
  pkce,
  REQUEST_SIGN_IN,
  requestLink,
  signIn,
  startDashboardApp,
  testClock,
  type DashboardApp,
} from "../support/dashboard.ts";
import { redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";

const ME = "{ me { id email organizationAdmin workspaces { slug role } } }";
const REFRESH = "mutation { refreshSignIn { accessTokenExpiresAt } }";
const SIGN_OUT = "mutation { signOut }";
const codeOf = (r: { errors?: Array<{ extensions?: { code?: string } }> }) => r.errors?.[0]?.extensions?.code;

/** An app with the real sign-in on a database of its own, a movable clock, and one bootstrap admin. */
function useDashboard(backend: Backend) {
  const ctx = {} as { db: TestDatabase; t: DashboardApp; clock: ReturnType<typeof testClock>; admin: string };
  beforeAll(async () => {
    ctx.clock = testClock();
    ctx.admin = address("admin");
    ctx.db = await createTestDatabase(backend);
    ctx.t = await startDashboardApp({ db: ctx.db.db, now: ctx.clock.now, admins: [ctx.admin] });
  });
  afterAll(async () => {
    await ctx.t?.stop();
    await ctx.db?.dispose();
  });
  return ctx;
}

describe("dashboard sign-in: answers, cookies and inputs [pglite]", () => {
  const ctx = useDashboard("pglite");
  let t: DashboardApp;
  let db: TestDatabase;
  let clock: ReturnType<typeof testClock>;
  let admin: string;
  beforeAll(() => {
    ({ t, db, clock, admin } = ctx);
  });
  const exchange = (token: string, codeVerifier: string, jar = new CookieJar()) => gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier }, { jar });

  test("E24 no enumeration: invited and uninvited addresses get the same answer; only the invited one gets a mail, nobody gets an account", async () => {
    const ws = await seedWorkspace(t);
    const invited = await addMember(t, ws.workspace.id, "MEMBER");
    const stranger = address("stranger");
    const mailTo = t.mail.waitFor(invited);
    const a = await gql(t, REQUEST_SIGN_IN, { email: invited, codeChallenge: pkce().challenge });
    const b = await gql(t, REQUEST_SIGN_IN, { email: stranger, codeChallenge: pkce().challenge });
    expect(a.status).toBe(200);
    expect(b.status).toBe(a.status);
    expect(b.data).toEqual(a.data);
    expect(b.errors).toBeUndefined();
    await mailTo;
    await t.app.deps.dashboard.mailer.flush();
    expect(t.mail.to(stranger)).toEqual([]);
    expect(await t.app.deps.db.prisma.user.count({ where: { email: stranger } })).toBe(0);
  });

  test("E24 the answer does not wait for the mail server", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const arrived = t.mail.waitFor(member);
    const release = t.mail.hold();
    try {
      const r = await gql(t, REQUEST_SIGN_IN, { email: member, codeChallenge: pkce().challenge });
      expect(r.errors).toBeUndefined();
      // Answered while the mail server still holds the message.
      expect(t.mail.to(member)).toEqual([]);
    } finally {
      release();
    }
    await arrived;
  });

  test("E25 happy path over loopback http: cookies are HttpOnly and SameSite=Lax, Secure only relaxed for http://127.0.0.1", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "ADMIN");
    const { token, verifier } = await requestLink(t, member);
    const jar = new CookieJar();
    const r = await exchange(token, verifier, jar);
    expect(r.status).toBe(200);
    expect(r.errors).toBeUndefined();
    const set = r.res.headers.getSetCookie();
    expect(set).toHaveLength(2);
    expect(set[0]).toMatch(/^vs_at=[\w.-]+; Path=\/; Max-Age=(\d+); HttpOnly; SameSite=Lax$/);
    expect(Number(/Max-Age=(\d+)/.exec(set[0]!)![1])).toBeLessThanOrEqual(3600);
    expect(set[1]).toMatch(/^vs_rt=[\w-]{43}; Path=\/graphql; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    expect(r.res.headers.get("cache-control")).toBe("no-store");
    const me = await gql<{ me: { email: string; workspaces: Array<{ slug: string; role: string }> } }>(t, ME, {}, { jar });
    expect(me.data?.me.email).toBe(member);
    expect(me.data?.me.workspaces).toEqual([{ slug: ws.workspace.slug, role: "ADMIN" }]);
  });

  test("E25 happy path on an https deployment: __Host- and __Secure- cookies with Secure; tokens stored only as hashes and never logged", async () => {
    const lines: string[] = [];
    const log = createLogger("trace", new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }));
    const secure = await startDashboardApp({ db: db.db, now: clock.now, log, env: { VESSEL_PUBLIC_BASE_URL: "https://vessel.example", LOG_LEVEL: "trace" } });
    try {
      const ws = await seedWorkspace(secure);
      const member = await addMember(secure, ws.workspace.id, "OWNER");
      const { verifier, challenge } = pkce();
      const mailed = secure.mail.waitFor(member);
      const origin = { origin: "https://vessel.example" };
      await gql(secure, REQUEST_SIGN_IN, { email: member, codeChallenge: challenge }, { headers: origin });
      const mail = await mailed;
      expect(mail.text).toContain("https://vessel.example/dashboard/sign-in?token=");
      const token = linkToken(mail);
      const jar = new CookieJar();
      const r = await gql(secure, EXCHANGE_SIGN_IN, { token, codeVerifier: verifier }, { jar, headers: origin });
      expect(r.errors).toBeUndefined();
      const [access, refresh] = r.res.headers.getSetCookie();
      expect(access).toMatch(/^__Host-vs_at=[\w.-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
      expect(refresh).toMatch(/^__Secure-vs_rt=[\w-]{43}; Path=\/graphql; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
      expect(r.res.headers.get("cache-control")).toBe("no-store");
      const accessToken = jar.get("__Host-vs_at")!;
      const refreshToken = jar.get("__Secure-vs_rt")!;
      expect(JSON.stringify(r.data)).not.toContain(accessToken);
      expect(JSON.stringify(r.data)).not.toContain(refreshToken);
      // The same credential as a bearer token, over REST, and as the cookie.
      const rest = await fetch(`${secure.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(rest.status).toBe(200);
      const viaCookie = await fetch(`${secure.url}/api/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, { headers: { cookie: `__Host-vs_at=${accessToken}` } });
      expect(viaCookie.status).toBe(200);
      await gql(secure, REFRESH, {}, { jar, headers: origin });

      const linkRow = await db.db.prisma.loginToken.findUnique({ where: { tokenHash: tokenHash(token) } });
      expect(linkRow?.usedAt).toBeInstanceOf(Date);
      const secrets = [token, verifier, accessToken, refreshToken, jar.get("__Secure-vs_rt")!];
      const rows = JSON.stringify([
        await db.db.prisma.loginToken.findMany({ where: { email: member } }),
        await db.db.prisma.refreshToken.findMany({
          where: { userId: r.data ? (r.data as { exchangeSignIn: { me: { id: string } } }).exchangeSignIn.me.id : "" },
        }),
        await db.db.prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id } }),
      ]);
      await secure.app.deps.dashboard.mailer.flush();
      const logged = lines.join("");
      expect(logged).toContain("dashboard sign-in");
      for (const secret of secrets) {
        expect(rows).not.toContain(secret);
        expect(logged).not.toContain(secret);
      }
    } finally {
      await secure.stop();
    }
  });

  test("E29 PKCE S256 only: no challenge, plain, or a malformed challenge is refused and nothing is mailed", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const missing = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query: `mutation { requestSignIn(email: "${member}") { linkLifetimeSeconds } }` }),
    });
    expect(missing.status).toBe(400);
    const { challenge, verifier } = pkce();
    const plain = await gql(t, REQUEST_SIGN_IN, { email: member, codeChallenge: verifier, codeChallengeMethod: "plain" });
    expect(codeOf(plain)).toBe("VALIDATION_FAILED");
    expect(plain.errors?.[0]?.extensions?.status).toBe(400);
    for (const bad of [challenge.slice(1), `${challenge}A`, `${challenge.slice(1)}=`, `${challenge.slice(1)}+`]) {
      expect(codeOf(await gql(t, REQUEST_SIGN_IN, { email: member, codeChallenge: bad })), bad).toBe("VALIDATION_FAILED");
    }
    await t.app.deps.dashboard.mailer.flush();
    expect(t.mail.to(member)).toEqual([]);
  });

  test("E30 no open redirect: only a path on this site is accepted, and the exchange returns it", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    for (const bad of ["https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)", "/ok\nLocation: https://evil.example", "evil"]) {
      const r = await gql(t, REQUEST_SIGN_IN, { email: member, codeChallenge: pkce().challenge, redirectTo: bad });
      expect(codeOf(r), bad).toBe("VALIDATION_FAILED");
    }
    const { token, verifier } = await requestLink(t, member, { redirectTo: `/ws/${ws.workspace.slug}/keys?tab=revoked` });
    const r = await exchange(token, verifier);
    expect((r.data as { exchangeSignIn: { redirectTo: string } }).exchangeSignIn.redirectTo).toBe(`/ws/${ws.workspace.slug}/keys?tab=revoked`);
  });
});

describeEachBackend("dashboard sign-in: single use, expiry, rotation and invitations", (backend) => {
  const ctx = useDashboard(backend);
  let t: DashboardApp;
  let db: TestDatabase;
  let clock: ReturnType<typeof testClock>;
  let admin: string;
  beforeAll(() => {
    ({ t, db, clock, admin } = ctx);
  });
  const exchange = (token: string, codeVerifier: string, jar = new CookieJar()) => gql(t, EXCHANGE_SIGN_IN, { token, codeVerifier }, { jar });

  test("E26 the verifier binds the flow: a wrong verifier burns the link; no verifier fails", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const first = await requestLink(t, member);
    const wrong = await exchange(first.token, pkce().verifier);
    expect(codeOf(wrong)).toBe("UNAUTHENTICATED");
    expect(wrong.res.headers.getSetCookie()).toEqual([]);
    expect(codeOf(await exchange(first.token, first.verifier))).toBe("UNAUTHENTICATED");

    const second = await requestLink(t, member);
    expect(codeOf(await exchange(second.token, ""))).toBe("UNAUTHENTICATED");
    expect(codeOf(await exchange(second.token, second.verifier))).toBe("UNAUTHENTICATED");
  });

  test("E27 expiry: at 61 s the link is refused and no cookie is set; at 59 s it works", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const late = await requestLink(t, member);
    clock.advance(61_000);
    const refused = await exchange(late.token, late.verifier);
    expect(codeOf(refused)).toBe("UNAUTHENTICATED");
    expect(refused.res.headers.getSetCookie()).toEqual([]);

    const inTime = await requestLink(t, member);
    clock.advance(59_000);
    const ok = await exchange(inTime.token, inTime.verifier);
    expect(ok.errors).toBeUndefined();
  });

  test("E28 single use and races: of parallel exchanges exactly one succeeds; a replay after the grace period revokes that sign-in", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const { token, verifier } = await requestLink(t, member);
    const jars = Array.from({ length: 5 }, () => new CookieJar());
    const results = await Promise.all(jars.map((jar) => exchange(token, verifier, jar)));
    const winners = results.filter((r) => !r.errors);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => codeOf(r) === "UNAUTHENTICATED")).toHaveLength(4);
    const jar = jars[results.indexOf(winners[0]!)]!;
    expect((await gql(t, ME, {}, { jar })).errors).toBeUndefined();

    clock.advance(11_000);
    expect(codeOf(await exchange(token, verifier))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(t, ME, {}, { jar }))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(t, REFRESH, {}, { jar }))).toBe("UNAUTHENTICATED");
  });

  test("refreshSession, the deprecated name of refreshSignIn, still rotates the refresh cookie", async () => {
    const ws = await seedWorkspace(t);
    const user = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    const old = user.jar.clone();
    const refreshed = await gql(t, "mutation { refreshSession { accessTokenExpiresAt } }", {}, { jar: user.jar });
    expect(refreshed.errors).toBeUndefined();
    expect(user.jar.get(t.app.deps.dashboard.cookies.refresh)).not.toBe(old.get(t.app.deps.dashboard.cookies.refresh));
    expect((await gql(t, ME, {}, { jar: user.jar })).errors).toBeUndefined();
  });

  test("E31 refresh rotates; replaying the old refresh token revokes the whole sign-in", async () => {
    const ws = await seedWorkspace(t);
    const user = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    const old = user.jar.clone();
    const refreshed = await gql(t, REFRESH, {}, { jar: user.jar });
    expect(refreshed.errors).toBeUndefined();
    expect(refreshed.res.headers.getSetCookie()).toHaveLength(2);
    const policy = t.app.deps.dashboard.cookies;
    expect(user.jar.get(policy.refresh)).not.toBe(old.get(policy.refresh));
    expect(user.jar.get(policy.access)).not.toBe(old.get(policy.access));
    expect((await gql(t, ME, {}, { jar: user.jar })).errors).toBeUndefined();

    clock.advance(11_000);
    expect(codeOf(await gql(t, REFRESH, {}, { jar: old.clone() }))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(t, REFRESH, {}, { jar: user.jar.clone() }))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(t, ME, {}, { jar: user.jar }))).toBe("UNAUTHENTICATED");
    const entries = await t.app.deps.db.prisma.auditEntry.findMany({ where: { actorUserId: user.userId, action: "auth.refresh_reuse" } });
    expect(entries).toHaveLength(1);
  });

  test("E31 two tabs refreshing at once: one rotation wins, the other is refused without ending the sign-in", async () => {
    const ws = await seedWorkspace(t);
    const user = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    const tabs = [user.jar.clone(), user.jar.clone()];
    const results = await Promise.all(tabs.map((jar) => gql(t, REFRESH, {}, { jar })));
    expect(results.filter((r) => !r.errors)).toHaveLength(1);
    const winner = tabs[results.findIndex((r) => !r.errors)]!;
    expect((await gql(t, ME, {}, { jar: winner })).errors).toBeUndefined();
    expect((await gql(t, REFRESH, {}, { jar: winner })).errors).toBeUndefined();
  });

  test("E31 sign-out revokes on the server and clears both cookies; an access token older than an hour is refused", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const user = await signIn(t, member);
    const before = user.jar.clone();
    const out = await gql(t, SIGN_OUT, {}, { jar: user.jar });
    expect(out.data).toEqual({ signOut: true });
    const cleared = out.res.headers.getSetCookie();
    expect(cleared).toHaveLength(2);
    for (const c of cleared) expect(c).toMatch(/^\w+=; Path=\/\w*; Max-Age=0; HttpOnly; SameSite=Lax/);
    expect(user.jar.cookies.size).toBe(0);
    expect(await t.app.deps.db.prisma.refreshToken.count({ where: { userId: user.userId, revokedAt: null } })).toBe(0);
    expect(codeOf(await gql(t, ME, {}, { headers: user.bearer }))).toBe("UNAUTHENTICATED");
    expect(codeOf(await gql(t, REFRESH, {}, { jar: before }))).toBe("UNAUTHENTICATED");
    expect((await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, { headers: user.bearer })).status).toBe(401);

    const again = await signIn(t, member);
    clock.advance(3600_000);
    expect(codeOf(await gql(t, ME, {}, { jar: again.jar }))).toBe("UNAUTHENTICATED");
    expect((await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, { headers: again.bearer })).status).toBe(401);
    expect((await gql(t, REFRESH, {}, { jar: again.jar })).errors).toBeUndefined();
    expect((await gql(t, ME, {}, { jar: again.jar })).errors).toBeUndefined();
  });

  test("E32 invitation-only sign-up: an invitation for a@x cannot be used by b@x, is accepted once, and expires", async () => {
    const owner = await signIn(t, admin);
    const slug = `inv-${Date.now().toString(36)}`;
    expect((await gql(t, `mutation { createWorkspace(slug: "${slug}", name: "Invites") { role } }`, {}, { jar: owner.jar })).errors).toBeUndefined();
    const a = address("a");
    const b = address("b");
    const invite = await gql<{ createInvitation: { id: string } }>(
      t,
      `mutation ($e: String!) { createInvitation(workspace: "${slug}", email: $e, role: ADMIN) { id status } }`,
      { e: a.toUpperCase() },
      { jar: owner.jar },
    );
    expect(invite.errors).toBeUndefined();
    await t.mail.waitFor(a, /invited/);

    const asB = await gql(t, REQUEST_SIGN_IN, { email: b, codeChallenge: pkce().challenge });
    expect(asB.errors).toBeUndefined();
    await t.app.deps.dashboard.mailer.flush();
    expect(t.mail.to(b)).toEqual([]);
    expect(await t.app.deps.db.prisma.user.count({ where: { email: b } })).toBe(0);

    const signedA = await signIn(t, a);
    const me = await gql<{ me: { workspaces: Array<{ slug: string; role: string }> } }>(t, ME, {}, { jar: signedA.jar });
    expect(me.data?.me.workspaces).toEqual([{ slug, role: "ADMIN" }]);
    const list = await gql<{ invitations: Array<{ id: string; status: string }> }>(
      t,
      `{ invitations(workspace: "${slug}") { id status } }`,
      {},
      { jar: owner.jar },
    );
    expect(list.data?.invitations).toEqual([{ id: invite.data!.createInvitation.id, status: "ACCEPTED" }]);
    await signIn(t, a);
    expect(await t.app.deps.db.prisma.membership.count({ where: { user: { email: a } } })).toBe(1);

    const c = address("c");
    await gql(t, `mutation ($e: String!) { createInvitation(workspace: "${slug}", email: $e, role: MEMBER) { id } }`, { e: c }, { jar: owner.jar });
    clock.advance(7 * 24 * 3600_000 + 1000);
    const expired = await gql(t, REQUEST_SIGN_IN, { email: c, codeChallenge: pkce().challenge });
    expect(expired.errors).toBeUndefined();
    await t.app.deps.dashboard.mailer.flush();
    expect(t.mail.to(c).filter((m) => /sign-in link/.test(m.subject))).toEqual([]);
    expect(await t.app.deps.db.prisma.user.count({ where: { email: { in: [b, c] } } })).toBe(0);
  });

  test("E32 a bootstrap admin signs in without an invitation, is an organization admin, and owns the workspaces they create", async () => {
    const user = await signIn(t, admin);
    const me = await gql<{ me: { organizationAdmin: boolean } }>(t, ME, {}, { jar: user.jar });
    expect(me.data?.me.organizationAdmin).toBe(true);
    const slug = `boot-${Date.now().toString(36)}`;
    const created = await gql(t, `mutation { createWorkspace(slug: "${slug}", name: "Boot") { slug role } }`, {}, { jar: user.jar });
    expect(created.data).toEqual({ createWorkspace: { slug, role: "OWNER" } });
    const entry = await t.app.deps.db.prisma.auditEntry.findFirst({ where: { action: "workspace.create", actorUserId: user.userId, workspace: { slug } } });
    expect(entry?.httpStatus).toBe(200);

    const ws = await seedWorkspace(t);
    const plain = await signIn(t, await addMember(t, ws.workspace.id, "OWNER"));
    const refused = await gql(t, `mutation { createWorkspace(slug: "${slug}-x", name: "No") { slug } }`, {}, { jar: plain.jar });
    expect(codeOf(refused)).toBe("FORBIDDEN");
  });
});

const redisUp = await redisReachable();
if (!redisUp && servicesRequired) throw new Error(`Redis at ${testRedisUrl} is required (VESSEL_REQUIRE_SERVICES=1) but unreachable`);

describe.skipIf(!redisUp)("dashboard sign-in limits [pglite, Redis]", () => {
  let db: TestDatabase;
  let t: DashboardApp;
  const prefix = `vessel-test-${Date.now()}-${Math.random().toString(36).slice(2)}:`;
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    t = await startDashboardApp({
      db: db.db,
      signInLimits: { perAddressPerHour: 3, perClientPerHour: 8 },
      env: { REDIS_URL: testRedisUrl },
      redisPrefix: prefix,
    });
  });
  afterAll(async () => {
    await t?.stop();
    await db?.dispose();
  });

  test("E24 send limits: the (N+1)th link within the hour for one address, or from one client, is 429 (in Redis), invited or not", async () => {
    const ws = await seedWorkspace(t);
    const member = await addMember(t, ws.workspace.id, "MEMBER");
    const stranger = address("stranger");
    for (const email of [member, stranger]) {
      for (let i = 0; i < 3; i++) expect((await gql(t, REQUEST_SIGN_IN, { email, codeChallenge: pkce().challenge })).errors).toBeUndefined();
      const limited = await gql(t, REQUEST_SIGN_IN, { email, codeChallenge: pkce().challenge });
      expect(codeOf(limited)).toBe("RATE_LIMITED");
      expect(limited.errors?.[0]?.extensions?.status).toBe(429);
    }
    // Eight links were asked for from this client; the ninth, for a fresh address, is refused.
    const perClient = await gql(t, REQUEST_SIGN_IN, { email: address("fresh"), codeChallenge: pkce().challenge });
    expect(codeOf(perClient)).toBe("RATE_LIMITED");
    // The budgets live in Redis (shared by every node), keyed by a hash, never the address itself.
    const redis = new Redis(testRedisUrl);
    try {
      const keys = await redis.keys(`${prefix}*sign-in*`);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(keys.join(" ")).not.toContain("@");
    } finally {
      redis.disconnect();
    }
  });
});
