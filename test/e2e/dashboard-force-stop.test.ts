import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";
import { createSession, getSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

describe.skipIf(!hasChromium)("admin force-stop by people signed in to the dashboard", () => {
  let db: TestDatabase;
  let t: DashboardApp;
  let ws: Seeded;
  let other: Seeded;
  const people = {} as Record<"owner" | "admin" | "member" | "outsider", SignedInUser>;

  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    t = await startDashboardApp({ db: db.db, env: { VESSEL_BROWSER_WARM: "0", VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    for (const role of ["OWNER", "ADMIN", "MEMBER"] as const)
      people[role.toLowerCase() as "owner"] = await signIn(t, await addMember(t, ws.workspace.id, role));
    people.outsider = await signIn(t, await addMember(t, other.workspace.id, "OWNER"));
  });
  afterAll(async () => {
    await t?.stop();
    await db?.dispose();
  });

  const forceStop = (id: string, headers: Record<string, string>, prefix = "") => fetch(`${t.url}${prefix}/v1/sessions/${id}`, { method: "DELETE", headers });

  it("a member, an API key and another workspace's owner cannot; an admin (cookie) and an owner (bearer) can, and it is audited as them", async () => {
    const first = await createSession(t, ws.key);
    expect(first.body.status).toBe("RUNNING");
    const id = first.body.id;

    expect((await forceStop(id, people.member.bearer)).status).toBe(403);
    expect((await forceStop(id, bearer(ws.key))).status).toBe(403);
    expect((await forceStop(id, people.outsider.bearer)).status).toBe(404);
    expect((await getSession(t, ws.key, id)).status).toBe("RUNNING");

    const byAdmin = await forceStop(id, { cookie: people.admin.cookie, "sec-fetch-site": "same-origin" });
    expect(byAdmin.status).toBe(204);
    const ended = await getSession(t, ws.key, id);
    expect(ended).toMatchObject({ status: "RELEASED", end_reason: "force_stop" });
    expect(t.app.deps.runtime.ids()).not.toContain(id);

    const second = await createSession(t, ws.key);
    expect((await forceStop(second.body.id, people.owner.bearer, "/api")).status).toBe(204);
    expect((await getSession(t, ws.key, second.body.id)).status).toBe("RELEASED");

    await t.app.deps.audit.flush();
    const entries = await t.app.deps.db.prisma.auditEntry.findMany({
      where: { workspaceId: ws.workspace.id, action: "session.force_stop" },
      orderBy: { id: "asc" },
      select: { actorUserId: true, keyPrefix: true, target: true, httpStatus: true },
    });
    expect(entries).toEqual([
      { actorUserId: people.member.userId, keyPrefix: null, target: id, httpStatus: 403 },
      { actorUserId: null, keyPrefix: ws.prefix, target: id, httpStatus: 403 },
      { actorUserId: people.admin.userId, keyPrefix: null, target: id, httpStatus: 204 },
      { actorUserId: people.owner.userId, keyPrefix: null, target: second.body.id, httpStatus: 204 },
    ]);
  });
});
