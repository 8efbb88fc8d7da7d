import { afterAll, beforeAll, expect, it } from "vitest";
import { openSecret } from "../../src/services/webhooks/webhook-secrets.ts";
import { MAX_ENDPOINTS_PER_WORKSPACE } from "../../src/services/webhooks/webhook-endpoints.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

/**
 * Issue 41: a workspace's webhook cap is reserved, not checked. Creates sent all at once (more than
 * the cap allows) must leave exactly the cap stored: the statement that inserts decides under the
 * workspace's lock (vessel_webhook_room), where a count-then-insert let every one of them through.
 */
describeEachBackend("webhook endpoints per workspace", (backend) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    t = await startTestApp({ db: tdb.db, startBrowsers: false });
    ws = await seedWorkspace(t, { rateLimitPerMinute: 1_000_000 });
  });
  afterAll(async () => {
    await t?.stop();
    await tdb?.dispose();
  });

  const create = (i: number) =>
    fetch(`${t.url}/v1/webhooks`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ url: `https://receiver.example/hook/${i}`, events: ["session.released"], description: `hook ${i}` }),
    });

  it("stores at most the cap when more creates than it allows arrive at once", async () => {
    const tries = MAX_ENDPOINTS_PER_WORKSPACE + 10;
    const statuses = await Promise.all(Array.from({ length: tries }, (_, i) => create(i).then(async (r) => (await r.arrayBuffer(), r.status))));
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_ENDPOINTS_PER_WORKSPACE);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    expect(await t.app.deps.db.prisma.webhookEndpoint.count({ where: { workspaceId: ws.workspace.id } })).toBe(MAX_ENDPOINTS_PER_WORKSPACE);
    const list = (await (await fetch(`${t.url}/v1/webhooks?limit=100`, { headers: bearer(ws.key) })).json()) as {
      items: Array<{ id: string; events: string[] }>;
    };
    expect(list.items).toHaveLength(MAX_ENDPOINTS_PER_WORKSPACE);
    expect(list.items[0]!.events).toEqual(["session.released"]);
    // A stored endpoint is whole: its sealed secret opens under the node's master key for its own id.
    const row = await t.app.deps.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: list.items[0]!.id } });
    expect(openSecret(t.app.deps.masterKey, row.id, row.secret)).toHaveLength(32);
  });
});
