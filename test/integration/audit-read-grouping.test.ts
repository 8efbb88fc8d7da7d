import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_GROUP_MS } from "../../src/services/audit/read-grouping.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";

/**
 * Issue 45, point 13: a person's page views are not each an audit entry. The same successful read
 * by the same person is written once per window; an API key's reads, a refused read and a change
 * are always written. decisions/0320 takes its figure from here.
 */
describe("a person's reads in the audit log", () => {
  let t: TestApp;
  let ws: Seeded;
  let owner: string;
  let member: string;
  let clock = Date.parse("2026-11-29T08:00:00Z");
  beforeAll(async () => {
    t = await startTestApp({ now: () => new Date(clock) });
    ws = await seedWorkspace(t);
    owner = await seedUser(t, ws.workspace.id, "OWNER");
    member = await seedUser(t, ws.workspace.id, "MEMBER");
  });
  afterAll(async () => {
    await t?.stop();
  });

  const entries = async (where: Record<string, unknown>) => {
    await t.app.deps.audit.flush();
    return t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, ...where }, orderBy: { id: "asc" } });
  };
  const webhooksPage = (auth: Record<string, string>) => fetch(`${t.url}/v1/webhooks?workspace=${ws.workspace.slug}`, { headers: auth });

  it("writes a person's repeated read once per window, and again after it", async () => {
    for (let i = 0; i < 8; i++) expect((await webhooksPage(userAuth(owner))).status).toBe(200);
    expect(await entries({ actorUserId: owner, action: "webhook.list" })).toHaveLength(1);
    clock += READ_GROUP_MS;
    expect((await webhooksPage(userAuth(owner))).status).toBe(200);
    expect(await entries({ actorUserId: owner, action: "webhook.list" })).toHaveLength(2);
    // The figure of decisions/0320: 8 views of the Webhooks page were 8 entries, now 1.
    console.log(`webhook.list entries for 8 page views by a person: 1 (was 8); after ${READ_GROUP_MS / 60_000} minutes: 1 more`);
  });

  it("writes every read of an API key, every refused read and every change", async () => {
    for (let i = 0; i < 3; i++) expect((await webhooksPage(bearer(ws.key))).status).toBe(200);
    expect(await entries({ keyPrefix: ws.prefix, action: "webhook.list" })).toHaveLength(3);
    for (let i = 0; i < 3; i++) expect((await webhooksPage(userAuth(member))).status).toBe(403);
    expect(await entries({ actorUserId: member, action: "webhook.list" })).toHaveLength(3);
    for (let i = 0; i < 2; i++) {
      const made = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, {
        method: "POST",
        headers: { ...userAuth(owner), "content-type": "application/json" },
        body: JSON.stringify({ label: `k${i}` }),
      });
      expect(made.status).toBe(201);
    }
    expect(await entries({ actorUserId: owner, action: "api_key.create" })).toHaveLength(2);
  });
});
