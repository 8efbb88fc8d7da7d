import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createSession } from "../support/sessions.ts";
import { LOCAL_ADMIN_EMAIL } from "../../src/services/sign-ins/users.ts";

/**
 * GET/PATCH /v1/workspace and GraphQL workspaceSettings (issue 45; queue_weight from issue 43): who
 * may change what, the bounds named in refusals, the audit entry and the next create taking a new limit.
 */
// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; each assertion says what it expects
type Body = Record<string, any>;

describe("workspace settings", () => {
  let t: TestApp;
  let ws: Seeded;
  let slug: string;
  let owner: string;
  let admin: string;
  let member: string;
  let orgAdmin: string;

  beforeAll(async () => {
    // The deployment grants at most 5 live sessions and 900 s per session.
    t = await startTestApp({ env: { VESSEL_WORKSPACE_MAX_SESSIONS: "5", VESSEL_MAX_SESSION_SECONDS: "900" } });
    ws = await seedWorkspace(t);
    slug = ws.workspace.slug;
    owner = await seedUser(t, ws.workspace.id, "OWNER");
    admin = await seedUser(t, ws.workspace.id, "ADMIN");
    member = await seedUser(t, ws.workspace.id, "MEMBER");
    // The local administrator is the organization admin when no bootstrap list is set; not a member here.
    const existing = await t.app.deps.db.prisma.user.findUnique({ where: { email: LOCAL_ADMIN_EMAIL } });
    orgAdmin = existing?.id ?? (await t.app.deps.db.prisma.user.create({ data: { id: ulid(), email: LOCAL_ADMIN_EMAIL } })).id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const patch = (auth: Record<string, string>, body: unknown, withSlug = true) =>
    fetch(`${t.url}/v1/workspace${withSlug ? `?workspace=${slug}` : ""}`, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = async (auth: Record<string, string>, withSlug = true) => {
    const res = await fetch(`${t.url}/v1/workspace${withSlug ? `?workspace=${slug}` : ""}`, { headers: auth });
    return { status: res.status, body: (await res.json()) as Body };
  };

  it("shows any member and the workspace's keys its own limits and the deployment's defaults applied", async () => {
    const byKey = await get(bearer(ws.key), false);
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({
      id: ws.workspace.id,
      slug,
      limits: { max_sessions: null, max_session_seconds: null, queue_weight: 1, rate_limit_per_minute: null },
      effective: { max_sessions: 5, max_session_seconds: 900, queue_weight: 1, rate_limit_per_minute: 600 },
      owner_bounds: { max_sessions: 5, max_session_seconds: 900, queue_weight: 1 },
    });
    expect((await get(userAuth(member))).status).toBe(200);
  });

  it("lets an owner rename and set limits within what the deployment grants, audited with the changed fields", async () => {
    const res = await patch(userAuth(owner), { name: "Research", max_sessions: 3, max_session_seconds: 600 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.name).toBe("Research");
    expect(body.limits).toMatchObject({ max_sessions: 3, max_session_seconds: 600 });
    expect(body.effective).toMatchObject({ max_sessions: 3, max_session_seconds: 600, rate_limit_per_minute: 600 });
    const entry = await t.app.deps.db.prisma.auditEntry.findFirst({
      where: { workspaceId: ws.workspace.id, action: "workspace.update" },
      orderBy: { id: "desc" },
    });
    expect(entry).toMatchObject({ actorUserId: owner, httpStatus: 200, target: `${ws.workspace.id}#name,max_sessions,max_session_seconds` });
  });

  it("refuses an owner a limit above the deployment's grant with 403 naming the bound, changing nothing", async () => {
    for (const [field, value, bound] of [
      ["max_sessions", 6, 5],
      ["max_session_seconds", 901, 900],
      ["rate_limit_per_minute", 601, 600],
      ["queue_weight", 2, 1],
    ] as const) {
      const res = await patch(userAuth(owner), { name: "Changed", [field]: value });
      expect(res.status, field).toBe(403);
      const problem = (await res.json()) as Body;
      expect(problem).toMatchObject({ field, bound });
      expect(problem.detail).toContain(`at most ${bound}`);
    }
    expect((await get(userAuth(owner))).body.name).toBe("Research");
  });

  it("refuses values outside the hard bounds to everyone (400 naming the field)", async () => {
    const res = await patch(userAuth(orgAdmin), { queue_weight: 1001 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body).errors[0]).toMatchObject({ field: "body.queue_weight" });
    expect((await patch(userAuth(orgAdmin), { max_session_seconds: 59 })).status).toBe(400);
    expect((await patch(userAuth(orgAdmin), { surprise: 1 })).status).toBe(400);
  });

  it("refuses workspace admins, members and API keys (403)", async () => {
    expect((await patch(userAuth(admin), { name: "Nope" })).status).toBe(403);
    expect((await patch(userAuth(member), { name: "Nope" })).status).toBe(403);
    expect((await patch(bearer(ws.key), { name: "Nope" }, false)).status).toBe(403);
  });

  it("lets an organization admin raise queue_weight and limits up to the hard bounds; an owner may send them back unchanged", async () => {
    const res = await patch(userAuth(orgAdmin), { queue_weight: 7, max_sessions: 50, max_session_seconds: 3600 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).limits).toMatchObject({ queue_weight: 7, max_sessions: 50, max_session_seconds: 3600 });
    expect((await t.app.deps.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.workspace.id } })).queueWeight).toBe(7);
    // A settings form sends every field back: the unchanged ones are not the owner's to justify.
    expect((await patch(userAuth(owner), { name: "Research 2", queue_weight: 7, max_sessions: 50, max_session_seconds: 3600 })).status).toBe(200);
    // null = back to the deployment's default.
    const back = await patch(userAuth(orgAdmin), { queue_weight: null, max_sessions: null, max_session_seconds: 600 });
    expect(((await back.json()) as Body).effective).toMatchObject({ queue_weight: 1, max_sessions: 5, max_session_seconds: 600 });
  });

  it("applies a new limit to the next create at once, even for a key whose record this node has cached", async () => {
    // The key was used above (its record is cached); the limit is 600 s now.
    expect((await get(bearer(ws.key), false)).body.effective.max_session_seconds).toBe(600);
    expect((await patch(userAuth(owner), { max_session_seconds: 120 })).status).toBe(200);
    const { res, body } = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 300 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(body)).toContain("must be at most 120 seconds");
  });

  it("answers the same over GraphQL", async () => {
    const gql = async (auth: Record<string, string>, query: string) =>
      (await (
        await fetch(`${t.url}/graphql`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ query }) })
      ).json()) as Body;
    const read = await gql(bearer(ws.key), "{ workspaceSettings { slug effective { maxSessionSeconds queueWeight } } }");
    expect(read.data.workspaceSettings).toEqual({ slug, effective: { maxSessionSeconds: 120, queueWeight: 1 } });
    const refused = await gql(userAuth(owner), `mutation { updateWorkspaceSettings(workspace: "${slug}", queueWeight: 3) { name } }`);
    expect(refused.errors[0].extensions.code).toBe("FORBIDDEN");
    const done = await gql(
      userAuth(owner),
      `mutation { updateWorkspaceSettings(workspace: "${slug}", name: "Via GraphQL", maxSessionSeconds: null) { name limits { maxSessionSeconds } } }`,
    );
    expect(done.data.updateWorkspaceSettings).toEqual({ name: "Via GraphQL", limits: { maxSessionSeconds: null } });
  });
});
