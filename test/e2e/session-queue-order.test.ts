import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/client.ts";
import { bearer, seedWorkspace, type Seeded, type TestApp, startTestApp } from "../support/app.ts";
import { openMigratedPglite } from "../support/db.ts";
import { eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

/**
 * The admission queue's order (issue 43): fair between workspaces (one with 20 waiting delays another's
 * single create by at most one turn), and durable (a restarted node starts what waited, in order).
 */

const hasChromium = chromiumPath() !== undefined;
if (servicesRequired && !hasChromium) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1)");

type Body = { id: string; status: string; queue_position: number | null };
async function create(base: string, key: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({ region: "us-east1", ...extra }),
  });
  return { res, body: (await res.json()) as Body };
}
const release = (base: string, key: string, id: string) =>
  fetch(`${base}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ status: "REQUEST_RELEASE" }),
  });

/** Releases the one running session and answers the one that starts next (capacity 1). */
async function nextStart(t: TestApp, keys: Map<string, string>): Promise<{ id: string; workspaceId: string }> {
  const prisma = t.app.deps.db.prisma;
  const running = await prisma.session.findFirstOrThrow({ where: { status: "RUNNING" } });
  expect((await release(t.url, keys.get(running.workspaceId)!, running.id)).status).toBe(204);
  const next = await eventually(
    () => prisma.session.findFirst({ where: { status: "RUNNING", id: { not: running.id } } }),
    (s) => s !== null,
  );
  return { id: next!.id, workspaceId: next!.workspaceId };
}

describe.skipIf(!hasChromium)("fairness between workspaces, capacity 1", () => {
  let t: TestApp;
  let a: Seeded;
  let b: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "1" } });
    a = await seedWorkspace(t);
    b = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  it("workspace A queues 20, then B queues 1: B starts within two starts", async () => {
    expect((await create(t.url, a.key)).res.status).toBe(201);
    const queuedA: Body[] = [];
    for (let i = 0; i < 20; i++) {
      const q = await create(t.url, a.key, { queue_timeout_seconds: 600 });
      expect(q.res.status).toBe(202);
      queuedA.push(q.body);
    }
    expect(queuedA.map((q) => q.queue_position)).toEqual(queuedA.map((_, i) => i + 1));
    const queuedB = await create(t.url, b.key, { queue_timeout_seconds: 600 });
    expect(queuedB.res.status).toBe(202);
    // One turn of the round: B's single session is second at worst (it ties A's first, which is older).
    expect(queuedB.body.queue_position).toBeLessThanOrEqual(2);

    const keys = new Map([
      [a.workspace.id, a.key],
      [b.workspace.id, b.key],
    ]);
    const starts = [await nextStart(t, keys), await nextStart(t, keys)];
    expect(starts.map((s) => s.id)).toContain(queuedB.body.id);
    // Within A, the oldest first.
    expect(starts.find((s) => s.workspaceId === a.workspace.id)?.id).toBe(queuedA[0]!.id);
    // A higher priority goes first within its workspace.
    const urgent = await create(t.url, a.key, { queue_timeout_seconds: 600, priority: 10 });
    expect(urgent.body.queue_position).toBe(1);
    expect((await nextStart(t, keys)).id).toBe(urgent.body.id);
  });
});

describe.skipIf(!hasChromium)("durability: a restarted node starts what waited", () => {
  let db: Database;
  const env = { VESSEL_BROWSER_CAPACITY: "1", VESSEL_MASTER_KEY: randomBytes(32).toString("base64") };
  const nodeId = `queue-restart-${randomUUID()}`;
  let t: TestApp | undefined;
  beforeAll(async () => {
    db = await openMigratedPglite();
  });
  afterAll(async () => {
    await t?.stop();
    await db?.close();
  });

  it("restarts with 3 queued; all 3 start, in order, once it is back", async () => {
    t = await startTestApp({ db, nodeId, env });
    const ws = await seedWorkspace(t);
    expect((await create(t.url, ws.key)).res.status).toBe(201);
    const queued: Body[] = [];
    for (let i = 0; i < 3; i++) queued.push((await create(t.url, ws.key, { queue_timeout_seconds: 600 })).body);
    expect(queued.map((q) => [q.status, q.queue_position])).toEqual([
      ["QUEUED", 1],
      ["QUEUED", 2],
      ["QUEUED", 3],
    ]);
    await t.stop();
    t = undefined;

    // Back (its running session ended with node_shutdown): the freed browser starts the first, then each release the next.
    t = await startTestApp({ db, nodeId, env });
    const prisma = t.app.deps.db.prisma;
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const running = await eventually(
        () => prisma.session.findFirst({ where: { status: "RUNNING", workspaceId: ws.workspace.id } }),
        (s) => s !== null,
      );
      order.push(running!.id);
      expect((await release(t.url, ws.key, running!.id)).status).toBe(204);
    }
    expect(order).toEqual(queued.map((q) => q.id));
  });
});

describe.skipIf(!hasChromium)("waiters first: a create that did not wait cannot take the browser a waiting session is owed", () => {
  let t: TestApp;
  let a: Seeded;
  let b: Seeded;
  let c: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "1" } });
    [a, b, c] = [await seedWorkspace(t), await seedWorkspace(t), await seedWorkspace(t)];
  });
  afterAll(async () => t?.stop());

  it("B waits; A's browser is released while C keeps creating without a queue timeout: B starts, C gets none until B has it", async () => {
    const prisma = t.app.deps.db.prisma;
    const running = await create(t.url, a.key);
    expect(running.res.status).toBe(201);
    const waiting = await create(t.url, b.key, { queue_timeout_seconds: 600 });
    expect(waiting.body).toMatchObject({ status: "QUEUED", queue_position: 1 });

    // C retries as hard as it can (four at a time) from the moment A's browser is released until B runs.
    let started = false;
    const statuses: number[] = [];
    const hammer = async () => {
      while (!started) statuses.push((await create(t.url, c.key)).res.status);
    };
    const hammers = [hammer(), hammer(), hammer(), hammer()];
    expect((await release(t.url, a.key, running.body.id)).status).toBe(204);
    await eventually(
      () => prisma.session.findUnique({ where: { id: waiting.body.id } }),
      (s) => s?.status === "RUNNING" || s?.status === "PENDING",
      30_000,
    ).finally(() => {
      started = true;
    });
    await Promise.all(hammers);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([503]));
    expect(await prisma.session.count({ where: { workspaceId: c.workspace.id } })).toBe(0);

    // No one waits: a plain create takes the browser B frees, as it always did.
    expect((await release(t.url, b.key, waiting.body.id)).status).toBe(204);
    const plain = await eventually(
      () => create(t.url, c.key),
      (r) => r.res.status === 201,
      30_000,
    );
    expect(plain.body.status).toBe("RUNNING");
  });
});
