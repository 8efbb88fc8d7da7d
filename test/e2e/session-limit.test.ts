import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

interface Problem {
  status: number;
  detail: string;
  errors?: Array<{ field: string; message: string }>;
}

/** Issue 45 point 6: VESSEL_MAX_SESSION_SECONDS (default 1800, up to 86400) and a workspace's own limit. */
describe.skipIf(!hasChromium)("the session limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_MAX_SESSION_SECONDS: "7200" } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("is 1800 seconds unless set, at most 86400, and refused at start above that", () => {
    expect(loadConfig({}, "/nonexistent").maxSessionSeconds).toBe(1800);
    expect(loadConfig({ VESSEL_MAX_SESSION_SECONDS: "86400" }, "/nonexistent").maxSessionSeconds).toBe(86_400);
    for (const bad of ["86401", "59", "ten", "90.5"]) {
      expect(() => loadConfig({ VESSEL_MAX_SESSION_SECONDS: bad }, "/nonexistent"), bad).toThrow(ConfigError);
    }
  });

  it("lets a session live past 30 minutes, defaults to the limit, and refuses more naming the limit", async () => {
    const ws = await seedWorkspace(t);
    const long = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 3600 });
    expect(long.res.status).toBe(201);
    expect((long.body as unknown as { timeout_seconds: number }).timeout_seconds).toBe(3600);
    const lives = Date.parse(long.body.expires_at) - Date.now();
    expect(lives).toBeGreaterThan(3000 * 1000);
    expect(lives).toBeLessThanOrEqual(3600 * 1000);
    await releaseSession(t, ws.key, long.body.id);

    const plain = await createSession(t, ws.key);
    expect(plain.res.status).toBe(201);
    expect((plain.body as unknown as { timeout_seconds: number }).timeout_seconds).toBe(7200);
    await releaseSession(t, ws.key, plain.body.id);

    const over = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 7201 });
    expect(over.res.status).toBe(400);
    const problem = over.body as unknown as Problem;
    expect(problem.errors).toEqual([
      { field: "timeout_seconds", message: "must be at most 7200 seconds, the session limit (the deployment's VESSEL_MAX_SESSION_SECONDS)" },
    ]);
    expect(problem.detail).toContain("VESSEL_MAX_SESSION_SECONDS");
    // Nothing started, and the Idempotency-Key was not used up.
    expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id, status: "RUNNING" } })).toBe(0);

    const idle = await createSession(t, ws.key, { region: "us-east1", idle_timeout_seconds: 9000 });
    expect(idle.res.status).toBe(400);
    expect((idle.body as unknown as Problem).errors?.[0]?.field).toBe("idle_timeout_seconds");

    // Past any limit: the schema's own bound (a day).
    const beyond = await createSession(t, ws.key, { region: "us-east1", timeout_seconds: 86_401 });
    expect(beyond.res.status).toBe(400);
  });

  it("a workspace's own max_session_seconds overrides the deployment's, in both directions, over REST and GraphQL", async () => {
    const short = await seedWorkspace(t);
    // Set before the key is first used: the key's record (and so the override) is cached for a minute.
    await t.app.deps.db.prisma.workspace.update({ where: { id: short.workspace.id }, data: { maxSessionSeconds: 600 } });
    const refused = await createSession(t, short.key, { region: "us-east1", timeout_seconds: 900 });
    expect(refused.res.status).toBe(400);
    expect((refused.body as unknown as Problem).errors?.[0]?.message).toBe(
      "must be at most 600 seconds, the session limit (this workspace's max_session_seconds)",
    );
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(short.key), "content-type": "application/json" },
      body: JSON.stringify({
        query: `mutation { createSession(idempotencyKey: "${crypto.randomUUID()}", input: { region: "us-east1", timeoutSeconds: 900 }) { id } }`,
      }),
    });
    const gqlBody = (await gql.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> };
    expect(gqlBody.errors?.[0]?.extensions?.code).toBe("VALIDATION_FAILED");
    expect(gqlBody.errors?.[0]?.message).toContain("max_session_seconds");
    const plain = await createSession(t, short.key);
    expect((plain.body as unknown as { timeout_seconds: number }).timeout_seconds).toBe(600);
    await releaseSession(t, short.key, plain.body.id);

    const long = await seedWorkspace(t);
    await t.app.deps.db.prisma.workspace.update({ where: { id: long.workspace.id }, data: { maxSessionSeconds: 86_400 } });
    const day = await createSession(t, long.key, { region: "us-east1", timeout_seconds: 86_400 });
    expect(day.res.status).toBe(201);
    await releaseSession(t, long.key, day.body.id);
  });

  it("the database keeps a workspace's own limit within the ceiling", async () => {
    const ws = await seedWorkspace(t);
    await expect(t.app.deps.db.prisma.workspace.update({ where: { id: ws.workspace.id }, data: { maxSessionSeconds: 86_401 } })).rejects.toThrow();
    await expect(t.app.deps.db.prisma.workspace.update({ where: { id: ws.workspace.id }, data: { maxSessionSeconds: 10 } })).rejects.toThrow();
  });
});
