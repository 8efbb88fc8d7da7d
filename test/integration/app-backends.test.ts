import { afterAll, beforeAll, expect, it } from "vitest";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

describeEachBackend("the service on its database", (backend) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let seeded: Seeded;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    t = await startTestApp({ db: tdb.db });
    seeded = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    await tdb?.dispose();
  });

  it("reports the database it runs on, over REST and GraphQL", async () => {
    const rest = (await (await fetch(`${t.url}/v1/health`, { headers: bearer(seeded.key) })).json()) as {
      database: { kind: string; status: string; latency_ms: number };
    };
    expect(rest.database).toMatchObject({ kind: backend, status: "ok" });
    expect(rest.database.latency_ms).toBeGreaterThanOrEqual(0);
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(seeded.key) },
      body: JSON.stringify({ query: "{ health { database { kind } } }" }),
    });
    expect(((await res.json()) as { data: { health: { database: { kind: string } } } }).data.health.database.kind).toBe(backend.toUpperCase());
  });

  it("is ready while the database answers, and says so when it stops answering", async () => {
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
    await tdb.db.close();
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await res.json()) as { type: string }).type).toMatch(/\/errors\/service-unavailable$/);
    const health = (await (await fetch(`${t.url}/v1/health`, { headers: bearer(seeded.key) })).json()) as { status: string; database: { status: string } };
    expect(health).toMatchObject({ status: "degraded", database: { status: "unavailable" } });
  });
});
