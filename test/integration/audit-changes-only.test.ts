import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isReadAction } from "../../src/services/audit/audit.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";

/** Issue 25: browsing fills the audit log with reads; `changes_only` leaves them out, on REST and GraphQL alike. */
describe("the audit log's changes-only view", () => {
  let t: TestApp;
  let ws: Seeded;
  let owner: string;
  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
    owner = await seedUser(t, ws.workspace.id, "OWNER");
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("tells reads from changes by their action", () => {
    for (const read of [
      "session.list",
      "session.get",
      "profile.export",
      "session.logs.read",
      "session.recording.read",
      "api_key.list",
      "audit.list",
      "webhook.deliveries",
    ]) {
      expect(isReadAction(read), read).toBe(true);
    }
    for (const change of ["session.create", "session.release", "api_key.create", "api_key.revoke", "profile.delete", "workspace.claim", "auth.refused"]) {
      expect(isReadAction(change), change).toBe(false);
    }
  });

  it("lists only changes with changes_only=true (REST) and changesOnly: true (GraphQL); everything without", async () => {
    const created = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, {
      method: "POST",
      headers: { ...userAuth(owner), "content-type": "application/json" },
      body: JSON.stringify({ label: "second" }),
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/v1/sessions`, { headers: bearer(ws.key) })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/profiles`, { headers: bearer(ws.key) })).status).toBe(200);
    await t.app.deps.audit.flush();

    const rest = async (query: string) => {
      const res = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/audit-log${query}`, { headers: userAuth(owner) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: Array<{ action: string }> }).items.map((e) => e.action);
    };
    const all = await rest("");
    expect(all).toEqual(expect.arrayContaining(["session.list", "profile.list", "api_key.create"]));
    const changes = await rest("?changes_only=true");
    expect(changes).toContain("api_key.create");
    expect(changes.filter(isReadAction)).toEqual([]);
    // Each listing is itself audited (audit.list), written a moment later: one call may see the entry of the one before it.
    const withoutListings = (actions: string[]) => actions.filter((a) => a !== "audit.list");
    expect(withoutListings(await rest("?changes_only=false"))).toEqual(withoutListings(await rest("")));
    const bad = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/audit-log?changes_only=yes`, { headers: userAuth(owner) });
    expect(bad.status).toBe(400);

    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...userAuth(owner), "content-type": "application/json" },
      body: JSON.stringify({
        query: `query ($ws: String!) { auditLog(workspace: $ws, changesOnly: true) { items { action } } }`,
        variables: { ws: ws.workspace.slug },
      }),
    });
    const body = (await gql.json()) as { data: { auditLog: { items: Array<{ action: string }> } } };
    const gqlActions = body.data.auditLog.items.map((e) => e.action);
    expect(gqlActions).toContain("api_key.create");
    expect(gqlActions.filter(isReadAction)).toEqual([]);
  });
});
