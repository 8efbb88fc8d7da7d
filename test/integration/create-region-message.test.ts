import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

/**
 * Issue 45, point 2: a create without a region, or with one that is not a string, says which regions
 * this deployment serves (zod alone said "expected string, received undefined"); an unknown one too.
 */
describe("a create's region problem names the valid regions", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_REGIONS: "us-east1,eu-west1", VESSEL_NODE_REGION: "us-east1" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  const create = (body: unknown) =>
    fetch(`${t.url}/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify(body),
    });

  it.each([
    ["missing", {}],
    ["not a string", { region: 5 }],
    ["empty", { region: "" }],
  ])("%s → 400 naming us-east1 and eu-west1", async (_name, body) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string; errors: Array<{ field: string; message: string }> };
    expect(problem.errors).toHaveLength(1);
    expect(problem.errors[0]).toMatchObject({ field: "body.region", message: expect.stringContaining("this deployment serves: us-east1, eu-west1") });
    expect(problem.detail).toContain("us-east1, eu-west1");
    expect(problem.detail).not.toMatch(/received undefined/);
  });

  it("an unknown one → 422 unknown-region, naming them too", async () => {
    const res = await create({ region: "mars-1" });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toContain("This deployment serves: us-east1, eu-west1.");
  });
});
