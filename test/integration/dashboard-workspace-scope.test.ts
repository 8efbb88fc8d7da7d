import { ulid } from "ulid";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { addMember, gql, signIn, startDashboardApp, type DashboardApp, type GqlResult, type SignedInUser } from "../support/dashboard.ts";
import { eventually } from "../support/sessions.ts";

const code = (r: GqlResult) => r.errors?.[0]?.extensions?.code ?? "ok";

/**
 * Sessions and profiles for people signed in to the dashboard (GraphQL `workspace` argument), next
 * to the unchanged API-key behaviour, and the live `workspaceSessions` subscription.
 */
describe("sessions and profiles of a workspace for its members", () => {
  let t: DashboardApp;
  let ws: Seeded;
  let other: Seeded;
  let member: SignedInUser;
  let outsider: SignedInUser;
  let slug: string;

  beforeAll(async () => {
    t = await startDashboardApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    slug = ws.workspace.slug;
    member = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    outsider = await signIn(t, await addMember(t, other.workspace.id, "OWNER"));
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** A session row as a node would have written it (no browser needed to read, list or end it). */
  async function runningSession(workspaceId = ws.workspace.id): Promise<string> {
    const id = `ses_${ulid()}`;
    const now = new Date();
    await t.app.deps.db.prisma.session.create({
      data: {
        id,
        workspaceId,
        status: "RUNNING",
        region: "us-east1",
        timeoutSeconds: 1800,
        idleTimeoutSeconds: 300,
        createdAt: now,
        startedAt: now,
        expiresAt: new Date(now.getTime() + 1800_000),
      },
    });
    return id;
  }

  const asMember = (query: string, variables: Record<string, unknown> = {}) => gql(t, query, variables, { jar: member.jar });

  it("lists and reads the sessions of a workspace the user belongs to, newest first on request", async () => {
    const first = await runningSession();
    const second = await runningSession();
    await runningSession(other.workspace.id);

    const list = await asMember(`query ($w: String!) { sessions(workspace: $w, newestFirst: true) { items { id status } } }`, { w: slug });
    expect(code(list)).toBe("ok");
    const ids = (list.data as { sessions: { items: Array<{ id: string }> } }).sessions.items.map((s) => s.id);
    expect(ids.slice(0, 2)).toEqual([second, first]);

    const one = await asMember(`query ($w: String!, $id: String!) { session(workspace: $w, id: $id) { id status connectUrl liveViewUrl } }`, {
      w: slug,
      id: first,
    });
    expect(one.data).toMatchObject({ session: { id: first, status: "RUNNING" } });
    expect((one.data as { session: { liveViewUrl: string } }).session.liveViewUrl).toMatch(/\/\?token=/);

    // Without the workspace, users are asked to name it; someone else's workspace is missing; its session too.
    expect(code(await asMember(`{ sessions { items { id } } }`))).toBe("VALIDATION_FAILED");
    expect(code(await asMember(`query ($w: String!) { sessions(workspace: $w) { items { id } } }`, { w: other.workspace.slug }))).toBe("NOT_FOUND");
    const probe = await gql(
      t,
      `query ($w: String!, $id: String!) { session(workspace: $w, id: $id) { id } }`,
      { w: other.workspace.slug, id: first },
      { jar: outsider.jar },
    );
    expect(code(probe)).toBe("NOT_FOUND");
  });

  it("keeps API keys in their own workspace: naming it is fine, naming another is 403", async () => {
    const own = await gql(t, `query ($w: String) { sessions(workspace: $w) { items { id } } }`, { w: slug }, { headers: bearer(ws.key) });
    expect(code(own)).toBe("ok");
    const none = await gql(t, `{ sessions { items { id } } }`, {}, { headers: bearer(ws.key) });
    expect(code(none)).toBe("ok");
    const elsewhere = await gql(t, `query ($w: String) { sessions(workspace: $w) { items { id } } }`, { w: other.workspace.slug }, { headers: bearer(ws.key) });
    expect(code(elsewhere)).toBe("FORBIDDEN");
    // REST is unchanged: dashboard users are not API keys there.
    expect((await fetch(`${t.url}/v1/sessions`, { headers: member.bearer })).status).toBe(401);
  });

  it("lets a member release a session, audited as them, and streams the change to workspaceSessions", async () => {
    const id = await runningSession();
    const client: Client = createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      retryAttempts: 0,
      lazy: false,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { cookie: member.cookie } });
        }
      },
    });
    const seen: Array<{ id: string; status: string; endReason: string | null }> = [];
    let failed: unknown;
    const stop = client.subscribe<{ workspaceSessions: { id: string; status: string; endReason: string | null } }>(
      { query: `subscription ($w: String!) { workspaceSessions(workspace: $w) { id status endReason } }`, variables: { w: slug } },
      { next: (r) => r.data && seen.push(r.data.workspaceSessions), error: (e) => (failed = e), complete: () => {} },
    );
    try {
      // The subscription is in place once the server acknowledged it; a release then reaches it.
      await new Promise((r) => setTimeout(r, 300));
      const released = await asMember(`mutation ($w: String!, $id: String!) { releaseSession(workspace: $w, id: $id) }`, { w: slug, id });
      expect(code(released)).toBe("ok");
      const change = await eventually(
        async () => seen.find((s) => s.id === id),
        (s) => s !== undefined,
        5000,
      );
      expect(change).toEqual({ id, status: "RELEASED", endReason: "CLIENT_RELEASE" });
      expect(failed).toBeUndefined();
    } finally {
      stop();
      await client.dispose();
    }
    await t.app.deps.audit.flush();
    const entry = await t.app.deps.db.prisma.auditEntry.findFirst({ where: { action: "session.release", target: id } });
    expect(entry).toMatchObject({ workspaceId: ws.workspace.id, actorUserId: member.userId, keyPrefix: null, httpStatus: 200 });

    // Another workspace's member cannot watch this one.
    const refused = await gql(t, `subscription ($w: String!) { workspaceSessions(workspace: $w) { id } }`, { w: slug }, { jar: outsider.jar });
    expect(refused.errors?.[0]).toBeDefined();
  });

  it("lets a member list, rename, export and delete the workspace's profiles", async () => {
    const imported = await fetch(`${t.url}/v1/profiles`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({
        label: "shop",
        storage_state: {
          cookies: [{ name: "sid", value: "s3cret", domain: "shop.example", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" }],
          origins: [{ origin: "https://shop.example", localStorage: [{ name: "cart", value: "3" }] }],
        },
      }),
    });
    expect(imported.status).toBe(201);
    const { profile_id: id } = (await imported.json()) as { profile_id: string };

    const list = await asMember(`query ($w: String!) { profiles(workspace: $w) { items { profileId label cookieCount sizeBytes } } }`, { w: slug });
    expect((list.data as { profiles: { items: unknown[] } }).profiles.items).toContainEqual(
      expect.objectContaining({ profileId: id, label: "shop", cookieCount: 1 }),
    );

    const renamed = await asMember(`mutation ($w: String!, $id: String!) { updateProfile(workspace: $w, id: $id, label: "shop login") { label } }`, {
      w: slug,
      id,
    });
    expect(renamed.data).toEqual({ updateProfile: { label: "shop login" } });

    const exported = await asMember(`query ($w: String!, $id: String!) { profileStorageState(workspace: $w, id: $id) { cookies { name value } } }`, {
      w: slug,
      id,
    });
    expect(exported.data).toEqual({ profileStorageState: { cookies: [{ name: "sid", value: "s3cret" }] } });

    const outsiderDelete = await gql(
      t,
      `mutation ($w: String!, $id: String!) { deleteProfile(workspace: $w, id: $id) }`,
      { w: other.workspace.slug, id },
      { jar: outsider.jar },
    );
    expect(code(outsiderDelete)).toBe("NOT_FOUND");
    const deleted = await asMember(`mutation ($w: String!, $id: String!) { deleteProfile(workspace: $w, id: $id) }`, { w: slug, id });
    expect(deleted.data).toEqual({ deleteProfile: true });

    await t.app.deps.audit.flush();
    const actions = await t.app.deps.db.prisma.auditEntry.findMany({
      where: { target: id, actorUserId: member.userId },
      orderBy: { id: "asc" },
      select: { action: true, workspaceId: true },
    });
    expect(actions).toEqual(["profile.update", "profile.export", "profile.delete"].map((action) => ({ action, workspaceId: ws.workspace.id })));
  });
});
