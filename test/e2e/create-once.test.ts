import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/**
 * Issue 42: a create's replay and its metric are decided once, in the service (create-once.ts), not
 * per transport. A key first used over REST and replayed over GraphQL presents the first answer, and
 * both calls are timed.
 */
describe.skipIf(!hasChromium)("one create answer for every transport", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "0", VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  const counts = async () => {
    const { values } = await t.app.deps.metrics!.sessionCreate.get();
    const count = (outcome: string) => values.find((v) => v.metricName?.endsWith("_count") && v.labels.outcome === outcome)?.value ?? 0;
    return { created: count("created"), replayed: count("replayed") };
  };

  it("a REST create replayed over GraphQL answers the first call's session, and both are timed and audited as before", async () => {
    const before = await counts();
    const key = randomUUID();
    const first = await createSession(t, ws.key, { region: "us-east1" }, key);
    expect(first.res.status).toBe(201);

    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { createSession(idempotencyKey: "${key}", input: { region: "us-east1" }) { id status connectUrl } }` }),
    });
    const replay = ((await res.json()) as { data: { createSession: { id: string; status: string; connectUrl: string | null } } }).data.createSession;
    // The first answer again: its id, and the address minted for it then (a fresh read would mint another).
    expect(replay).toEqual({ id: first.body.id, status: "RUNNING", connectUrl: first.body.connect_url });
    expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(1);

    expect(await counts()).toEqual({ created: before.created + 1, replayed: before.replayed + 1 });
    await t.app.deps.audit.flush();
    const entries = await t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, action: "session.create" } });
    expect(entries.map((e) => [e.httpStatus, e.target]).sort()).toEqual([
      [200, null],
      [201, first.body.id],
    ]);
    await releaseSession(t, ws.key, first.body.id);
  });
});
