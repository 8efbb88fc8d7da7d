import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addKey, bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type Backend, type TestDatabase } from "../support/db.ts";
import {
  address,
  addMember,
  gql,
  pkce,
  REQUEST_SIGN_IN,
  signIn,
  startDashboardApp,
  testClock,
  type DashboardApp,
  type GqlResult,
  type SignedInUser,
} from "../support/dashboard.ts";
import { eventually } from "../support/sessions.ts";

type Actor = "owner" | "admin" | "member" | "key";
const DAY = 24 * 3600_000;
const outcome = (r: GqlResult) => r.errors?.[0]?.extensions?.code ?? "ok";

/** The suite on one backend: the role matrix (authorization logic, run on PGlite), or everything else (run on both). */
function adminSuite(backend: Backend, part: "matrix" | "rest"): void {
  let db: TestDatabase;
  let t: DashboardApp;
  let ws: Seeded;
  let slug: string;
  const users = {} as Record<Exclude<Actor, "key">, SignedInUser>;
  const clock = testClock();

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    t = await startDashboardApp({ db: db.db, now: clock.now, maintenanceIntervalMs: 250 });
    ws = await seedWorkspace(t);
    slug = ws.workspace.slug;
    for (const role of ["OWNER", "ADMIN", "MEMBER"] as const) {
      users[role.toLowerCase() as "owner"] = await signIn(t, await addMember(t, ws.workspace.id, role));
    }
  });
  afterAll(async () => {
    await t?.stop();
    await db?.dispose();
  });

  /** A GraphQL call as one of the four callers: users by their cookies, the key by its bearer. */
  const as = (actor: Actor, query: string, variables: Record<string, unknown> = {}) =>
    actor === "key" ? gql(t, query, variables, { headers: bearer(ws.key) }) : gql(t, query, variables, { jar: users[actor].jar });
  const rest = (actor: Actor, method: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: {
        ...(actor === "key" ? bearer(ws.key) : users[actor].bearer),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // A key record to revoke; it never authenticates, so it skips the (slow) argon2 hash of a real one.
  const freshKey = async () => {
    const id = ulid();
    await t.app.deps.db.prisma.apiKey.create({ data: { id, workspaceId: ws.workspace.id, label: "to revoke", prefix: `vs_${id}`, secretHash: "unused" } });
    return id;
  };
  const freshMember = async (role: "MEMBER" | "OWNER" = "MEMBER") => {
    const email = await addMember(t, ws.workspace.id, role);
    return (await t.app.deps.db.prisma.user.findUniqueOrThrow({ where: { email } })).id;
  };
  const freshInvitation = async () => {
    const r = await as("owner", `mutation ($e: String!) { createInvitation(workspace: "${slug}", email: $e, role: MEMBER) { id } }`, { e: address("inv") });
    return (r.data as { createInvitation: { id: string } }).createInvitation.id;
  };

  if (part === "matrix") {
    test("role matrix: every administrative operation for owner, admin, member and API key", async () => {
      const F = "FORBIDDEN";
      const rows: Array<[string, (a: Actor) => Promise<string>, Record<Actor, string>]> = [
        [
          "createApiKey",
          async (a) => outcome(await as(a, `mutation { createApiKey(workspace: "${slug}", label: "m") { secret } }`)),
          { owner: "ok", admin: "ok", member: F, key: F },
        ],
        [
          "revokeApiKey",
          async (a) => outcome(await as(a, `mutation ($id: String!) { revokeApiKey(workspace: "${slug}", id: $id) { id } }`, { id: await freshKey() })),
          { owner: "ok", admin: "ok", member: F, key: F },
        ],
        [
          "POST /v1/dashboard/…/api-keys",
          async (a) => String((await rest(a, "POST", `/v1/dashboard/ws/${slug}/api-keys`, { label: "m" })).status),
          { owner: "201", admin: "201", member: "403", key: "403" },
        ],
        [
          "DELETE /api/v1/dashboard/…/api-keys/{id}",
          async (a) => String((await rest(a, "DELETE", `/api/v1/dashboard/ws/${slug}/api-keys/${await freshKey()}`)).status),
          { owner: "204", admin: "204", member: "403", key: "403" },
        ],
        ["apiKeys", async (a) => outcome(await as(a, `{ apiKeys(workspace: "${slug}") { id } }`)), { owner: "ok", admin: "ok", member: "ok", key: F }],
        [
          "createInvitation (member)",
          async (a) =>
            outcome(await as(a, `mutation ($e: String!) { createInvitation(workspace: "${slug}", email: $e, role: MEMBER) { id } }`, { e: address("m") })),
          { owner: "ok", admin: "ok", member: F, key: F },
        ],
        [
          "createInvitation (owner)",
          async (a) =>
            outcome(await as(a, `mutation ($e: String!) { createInvitation(workspace: "${slug}", email: $e, role: OWNER) { id } }`, { e: address("o") })),
          { owner: "ok", admin: F, member: F, key: F },
        ],
        [
          "revokeInvitation",
          async (a) =>
            outcome(await as(a, `mutation ($id: String!) { revokeInvitation(workspace: "${slug}", id: $id) { id } }`, { id: await freshInvitation() })),
          { owner: "ok", admin: "ok", member: F, key: F },
        ],
        ["invitations", async (a) => outcome(await as(a, `{ invitations(workspace: "${slug}") { id } }`)), { owner: "ok", admin: "ok", member: F, key: F }],
        [
          "changeMemberRole (member → admin)",
          async (a) =>
            outcome(
              await as(a, `mutation ($u: String!) { changeMemberRole(workspace: "${slug}", userId: $u, role: ADMIN) { role } }`, { u: await freshMember() }),
            ),
          { owner: "ok", admin: "ok", member: F, key: F },
        ],
        [
          "changeMemberRole (member → owner)",
          async (a) =>
            outcome(
              await as(a, `mutation ($u: String!) { changeMemberRole(workspace: "${slug}", userId: $u, role: OWNER) { role } }`, { u: await freshMember() }),
            ),
          { owner: "ok", admin: F, member: F, key: F },
        ],
        [
          "changeMemberRole (owner → member)",
          async (a) =>
            outcome(
              await as(a, `mutation ($u: String!) { changeMemberRole(workspace: "${slug}", userId: $u, role: MEMBER) { role } }`, {
                u: await freshMember("OWNER"),
              }),
            ),
          { owner: "ok", admin: F, member: F, key: F },
        ],
        [
          "removeMember (a member)",
          async (a) => outcome(await as(a, `mutation ($u: String!) { removeMember(workspace: "${slug}", userId: $u) { userId } }`, { u: await freshMember() })),
          { owner: "ok", admin: "ok", member: F, key: F },
        ],
        [
          "removeMember (an owner)",
          async (a) =>
            outcome(await as(a, `mutation ($u: String!) { removeMember(workspace: "${slug}", userId: $u) { userId } }`, { u: await freshMember("OWNER") })),
          { owner: "ok", admin: F, member: F, key: F },
        ],
        ["members", async (a) => outcome(await as(a, `{ members(workspace: "${slug}") { userId } }`)), { owner: "ok", admin: "ok", member: "ok", key: F }],
        ["auditLog", async (a) => outcome(await as(a, `{ auditLog(workspace: "${slug}") { hasMore } }`)), { owner: "ok", admin: "ok", member: F, key: F }],
        [
          "GET /v1/dashboard/…/audit-log",
          async (a) => String((await rest(a, "GET", `/v1/dashboard/ws/${slug}/audit-log`)).status),
          { owner: "200", admin: "200", member: "403", key: "403" },
        ],
        [
          "createWorkspace (not an organization admin)",
          async (a) =>
            outcome(await as(a, `mutation ($s: String!) { createWorkspace(slug: $s, name: "x") { id } }`, { s: `x-${a}-${Date.now().toString(36)}` })),
          { owner: F, admin: F, member: F, key: F },
        ],
        ["me", async (a) => outcome(await as(a, "{ me { id } }")), { owner: "ok", admin: "ok", member: "ok", key: F }],
      ];
      const actual: Record<string, Record<Actor, string>> = {};
      const expected: Record<string, Record<Actor, string>> = {};
      for (const [name, run, want] of rows) {
        expected[name] = want;
        actual[name] = {} as Record<Actor, string>;
        for (const actor of ["owner", "admin", "member", "key"] as const) actual[name][actor] = await run(actor);
      }
      expect(actual).toEqual(expected);
    });
  }
  if (part === "rest") {
    test("the last owner cannot be demoted or removed (409 last-owner); another owner can", async () => {
      const own = await seedWorkspace(t);
      const sole = await signIn(t, await addMember(t, own.workspace.id, "OWNER"));
      const s = own.workspace.slug;
      const demote = await gql(
        t,
        `mutation ($u: String!) { changeMemberRole(workspace: "${s}", userId: $u, role: ADMIN) { role } }`,
        { u: sole.userId },
        { jar: sole.jar },
      );
      expect(outcome(demote)).toBe("LAST_OWNER");
      expect(demote.errors?.[0]?.extensions?.status).toBe(409);
      const leave = await gql(t, `mutation ($u: String!) { removeMember(workspace: "${s}", userId: $u) { userId } }`, { u: sole.userId }, { jar: sole.jar });
      expect(outcome(leave)).toBe("LAST_OWNER");
      await t.app.deps.audit.flush();
      const entry = await t.app.deps.db.prisma.auditEntry.findFirst({ where: { workspaceId: own.workspace.id, action: "member.change_role" } });
      expect(entry).toMatchObject({ actorUserId: sole.userId, httpStatus: 409 });

      const second = await addMember(t, own.workspace.id, "OWNER");
      const secondId = (await t.app.deps.db.prisma.user.findUniqueOrThrow({ where: { email: second } })).id;
      expect(
        outcome(await gql(t, `mutation ($u: String!) { removeMember(workspace: "${s}", userId: $u) { userId } }`, { u: sole.userId }, { jar: sole.jar })),
      ).toBe("ok");
      expect(await t.app.deps.db.prisma.membership.findMany({ where: { workspaceId: own.workspace.id }, select: { userId: true, role: true } })).toEqual([
        { userId: secondId, role: "OWNER" },
      ]);
    });

    test("last-owner checks hold under parallel requests: two owners demoting or removing each other leave exactly one owner", async () => {
      const home = await seedWorkspace(t);
      const a = await signIn(t, await addMember(t, home.workspace.id, "MEMBER"));
      const b = await signIn(t, await addMember(t, home.workspace.id, "MEMBER"));
      const prisma = t.app.deps.db.prisma;
      for (const op of ["demote", "remove", "leave"] as const) {
        for (let round = 0; round < 2; round++) {
          const own = await prisma.workspace.create({ data: { id: ulid(), slug: `race-${op}-${round}-${Date.now().toString(36)}`, name: "Race" } });
          await prisma.membership.createMany({ data: [a, b].map((u) => ({ workspaceId: own.id, userId: u.userId, role: "OWNER" as const })) });
          const call = (actor: SignedInUser, other: SignedInUser) => {
            const target = op === "leave" ? actor.userId : other.userId;
            return op === "demote"
              ? gql(
                  t,
                  `mutation ($u: String!) { changeMemberRole(workspace: "${own.slug}", userId: $u, role: MEMBER) { role } }`,
                  { u: target },
                  { jar: actor.jar },
                )
              : gql(t, `mutation ($u: String!) { removeMember(workspace: "${own.slug}", userId: $u) { userId } }`, { u: target }, { jar: actor.jar });
          };
          const results = (await Promise.all([call(a, b), call(b, a)])).map(outcome).sort();
          // The loser is refused as the last owner, or (demoted or removed first) no longer allowed at all.
          expect(
            results.filter((r) => r === "ok"),
            `${op} round ${round}: ${results.join(", ")}`,
          ).toHaveLength(1);
          expect(["FORBIDDEN", "LAST_OWNER", "NOT_FOUND"]).toContain(results[0]);
          expect(await prisma.membership.count({ where: { workspaceId: own.id, role: "OWNER" } })).toBe(1);
        }
      }
    });

    test("audit log: filtered by key prefix it holds exactly that key's calls; also by actor, action, target and time; newest first, paginated", async () => {
      const own = await seedWorkspace(t);
      const s = own.workspace.slug;
      const owner = await signIn(t, await addMember(t, own.workspace.id, "OWNER"));
      const k2 = await addKey(t, own.workspace.id);
      const since = clock.now();
      for (const path of ["/v1/health", "/v1/sessions", "/v1/health"]) await fetch(`${t.url}${path}`, { headers: bearer(own.key) });
      for (const path of ["/v1/health", "/v1/sessions/ses_01ARZ3NDEKTSV4RRFFQ69G5FAV"]) await fetch(`${t.url}${path}`, { headers: bearer(k2.key) });
      const invited = await gql<{ createInvitation: { id: string } }>(
        t,
        `mutation ($e: String!) { createInvitation(workspace: "${s}", email: $e, role: MEMBER) { id } }`,
        { e: address("audit") },
        { jar: owner.jar },
      );
      await t.app.deps.audit.flush();

      const q = `query ($k: String, $a: String, $u: String, $t: String, $since: DateTime, $until: DateTime, $limit: Int, $cursor: String) {
        auditLog(workspace: "${s}", keyPrefix: $k, action: $a, actorUserId: $u, target: $t, since: $since, until: $until, limit: $limit, cursor: $cursor) {
          items { id keyPrefix actorUserId action target httpStatus createdAt } nextCursor hasMore } }`;
      type Page = {
        auditLog: {
          items: Array<{ id: string; keyPrefix: string | null; actorUserId: string | null; action: string; target: string | null; httpStatus: number }>;
          nextCursor: string | null;
          hasMore: boolean;
        };
      };
      const read = async (v: Record<string, unknown>) => (await gql<Page>(t, q, v, { jar: owner.jar })).data!.auditLog;

      const mine = await read({ k: own.prefix });
      expect(mine.items.map((e) => [e.keyPrefix, e.action])).toEqual([
        [own.prefix, "health.get"],
        [own.prefix, "session.list"],
        [own.prefix, "health.get"],
      ]);
      expect(mine.items.map((e) => e.id)).toEqual([...mine.items.map((e) => e.id)].sort().reverse());
      const theirs = await read({ k: k2.prefix });
      expect(theirs.items.map((e) => [e.action, e.httpStatus, e.target])).toEqual([
        ["session.get", 404, "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV"],
        ["health.get", 200, null],
      ]);

      const byActor = await read({ u: owner.userId, a: "invitation.create" });
      expect(byActor.items).toEqual([
        expect.objectContaining({ actorUserId: owner.userId, keyPrefix: null, target: invited.data!.createInvitation.id, httpStatus: 200 }),
      ]);
      expect((await read({ t: "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV" })).items).toHaveLength(1);
      expect((await read({ since: new Date(since.getTime() + DAY).toISOString() })).items).toEqual([]);
      expect((await read({ until: since.toISOString(), k: own.prefix })).items).toEqual([]);

      const first = await read({ k: own.prefix, limit: 2 });
      expect(first.hasMore).toBe(true);
      const second = await read({ k: own.prefix, limit: 2, cursor: first.nextCursor });
      expect([...first.items, ...second.items].map((e) => e.id)).toEqual(mine.items.map((e) => e.id));
      expect(second.hasMore).toBe(false);
    });

    test("invitations: duplicates and members are 409, a revoked invitation cannot be used, an accepted one cannot be revoked", async () => {
      const email = address("twice");
      const create = (e: string) =>
        as("owner", `mutation ($e: String!) { createInvitation(workspace: "${slug}", email: $e, role: MEMBER) { id status expiresAt } }`, { e });
      const first = await create(email);
      expect(outcome(first)).toBe("ok");
      const inv = (first.data as { createInvitation: { id: string; status: string; expiresAt: string } }).createInvitation;
      expect(inv.status).toBe("PENDING");
      expect(new Date(inv.expiresAt).getTime() - clock.now().getTime()).toBeGreaterThan(7 * DAY - 60_000);
      expect(outcome(await create(email))).toBe("CONFLICT");
      expect(outcome(await create(users.member.email))).toBe("CONFLICT");
      expect(outcome(await create("not an address"))).toBe("VALIDATION_FAILED");

      const revoke = (id: string) => as("admin", `mutation { revokeInvitation(workspace: "${slug}", id: "${id}") { status } }`);
      expect((await revoke(inv.id)).data).toEqual({ revokeInvitation: { status: "REVOKED" } });
      expect((await revoke(inv.id)).data).toEqual({ revokeInvitation: { status: "REVOKED" } });
      expect(outcome(await revoke("01ARZ3NDEKTSV4RRFFQ69G5FAV"))).toBe("NOT_FOUND");
      await gql(t, REQUEST_SIGN_IN, { email, codeChallenge: pkce().challenge });
      await t.app.deps.dashboard.mailer.flush();
      expect(t.mail.to(email).filter((m) => /sign-in link/.test(m.subject))).toEqual([]);

      const joiner = address("joiner");
      const accepted = (await create(joiner)).data as { createInvitation: { id: string } };
      await signIn(t, joiner);
      expect(outcome(await revoke(accepted.createInvitation.id))).toBe("CONFLICT");
    });

    test("cookie-authenticated REST calls from another site are refused (403); API keys on dashboard routes are 403", async () => {
      const cookie = { cookie: users.owner.cookie };
      const path = `/v1/dashboard/ws/${slug}/api-keys`;
      expect((await fetch(`${t.url}${path}`, { headers: { ...cookie, "sec-fetch-site": "same-origin" } })).status).toBe(200);
      expect((await fetch(`${t.url}${path}`, { headers: { ...cookie, "sec-fetch-site": "cross-site" } })).status).toBe(403);
      expect((await fetch(`${t.url}${path}`, { headers: { ...cookie, origin: "https://evil.example" } })).status).toBe(403);
      const post = await fetch(`${t.url}/api${path}`, {
        method: "POST",
        headers: { ...cookie, origin: "https://evil.example", "content-type": "application/json" },
        body: '{"label":"csrf"}',
      });
      expect(post.status).toBe(403);
      expect(await t.app.deps.db.prisma.apiKey.count({ where: { label: "csrf" } })).toBe(0);
      expect(
        (await fetch(`${t.url}/api${path}`, { method: "POST", headers: { ...bearer(ws.key), "content-type": "application/json" }, body: '{"label":"k"}' }))
          .status,
      ).toBe(403);
    });

    // Last: it moves the clock 91 days, past every sign-in of this suite.
    test("API keys: the secret is shown once, never listed; revoked → the key's next /v1 call is 401; listed as revoked, deleted after 90 days by the sweep", async () => {
      const created = await as(
        "admin",
        `mutation { createApiKey(workspace: "${slug}", label: "rotating") { secret apiKey { id prefix label createdByUserId } } }`,
      );
      const { secret, apiKey } = (created.data as { createApiKey: { secret: string; apiKey: { id: string; prefix: string; createdByUserId: string } } })
        .createApiKey;
      expect(secret.startsWith(`${apiKey.prefix}.`)).toBe(true);
      expect(apiKey.createdByUserId).toBe(users.admin.userId);
      const secretPart = secret.split(".")[1]!;
      expect((await fetch(`${t.url}/v1/health`, { headers: bearer(secret) })).status).toBe(200);

      const listQuery = `{ apiKeys(workspace: "${slug}") { id prefix label createdByUserId createdAt lastUsedAt revokedAt } }`;
      const listed = await as("member", listQuery);
      expect(JSON.stringify(listed)).not.toContain(secretPart);
      const restList = await (await rest("owner", "GET", `/v1/dashboard/ws/${slug}/api-keys`)).text();
      expect(restList).toContain(apiKey.prefix);
      expect(restList).not.toContain(secretPart);

      const revoked = await as("owner", `mutation { revokeApiKey(workspace: "${slug}", id: "${apiKey.id}") { revokedAt } }`);
      expect(outcome(revoked)).toBe("ok");
      expect((await fetch(`${t.url}/v1/health`, { headers: bearer(secret) })).status).toBe(401);
      const row = () =>
        as("owner", listQuery).then((r) => (r.data as { apiKeys: Array<{ id: string; revokedAt: string | null }> }).apiKeys.find((k) => k.id === apiKey.id));
      expect((await row())?.revokedAt).toBeTruthy();

      clock.advance(89 * DAY);
      users.owner = await signIn(t, users.owner.email);
      await t.app.jobs.runNow("purge-revoked-api-keys");
      expect(await row()).toBeDefined();
      clock.advance(2 * DAY);
      users.owner = await signIn(t, users.owner.email);
      // The sweep runs by itself (every 250 ms in this app).
      await eventually(row, (k) => k === undefined, 5000);
      expect(await t.app.deps.db.prisma.apiKey.count({ where: { id: apiKey.id } })).toBe(0);
      expect((await fetch(`${t.url}/v1/health`, { headers: bearer(secret) })).status).toBe(401);
    });
  }
}

describe("dashboard administration: role matrix [pglite]", () => adminSuite("pglite", "matrix"));
describeEachBackend("dashboard administration", (backend) => adminSuite(backend, "rest"));
