import { ulid } from "ulid";
import { afterAll, beforeAll, expect, it } from "vitest";
import { claimNext, queuePositions } from "../../src/services/sessions/queue/queue-sql.ts";
import { queryStatement } from "../../src/kernel/support.ts";
import { Prisma } from "../../src/generated/prisma/client.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";
import { sessionRow } from "../support/session-row.ts";

/**
 * The admission queue's SQL (migration 20261129100000, docs/decisions/0300) on both databases: the fair
 * order (stride over queue_weight, priority then age within a workspace), the claim that follows it and
 * moves the round, and the bound on waiting sessions.
 */
describeEachBackend("the admission queue's order and claim", (backend) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(backend);
    await t.db.prisma.node.create({ data: { id: "node-a", internalUrl: "http://127.0.0.1:1", region: "us-east1" } });
  });
  afterAll(async () => t?.dispose());

  async function workspace(weight = 1, maxSessions: number | null = null): Promise<string> {
    const id = `ws_${ulid()}`;
    await t.db.prisma.workspace.create({ data: { id, slug: `q-${id.toLowerCase()}`, name: "q", queueWeight: weight, maxSessions } });
    return id;
  }
  let clock = Date.parse("2026-11-29T07:00:00Z");
  async function enqueue(workspaceId: string, priority = 0): Promise<string> {
    const at = new Date((clock += 1000));
    const s = sessionRow(workspaceId, { status: "QUEUED", startedAt: null, createdAt: at });
    await t.db.prisma.session.create({ data: { ...s, metadata: {}, options: {}, browser: Prisma.DbNull } });
    await t.db.prisma.sessionQueueEntry.create({
      data: {
        sessionId: s.id,
        workspaceId,
        region: "us-east1",
        priority,
        enqueuedAt: at,
        deadline: new Date(at.getTime() + 3_600_000),
        input: Buffer.from("x"),
        masterKeyId: "k",
      },
    });
    return s.id;
  }
  const claim = () => claimNext(t.db, { id: "node-a", regions: ["us-east1"], defaultCap: null, now: new Date(clock) });
  async function order(ids: string[]): Promise<string[]> {
    const positions = await queuePositions(t.db, ids);
    return [...positions.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }
  async function reset(): Promise<void> {
    await t.db.prisma.sessionQueueEntry.deleteMany({});
    await t.db.prisma.session.deleteMany({});
    await t.db.prisma.queueTurn.deleteMany({});
  }

  it("goes round-robin over waiting workspaces, queue_weight per turn; priority then age within one; each claim moves the round", async () => {
    await reset();
    const [a, b, heavy] = [await workspace(), await workspace(), await workspace(2)];
    const as = [await enqueue(a), await enqueue(a), await enqueue(a)];
    const bs = [await enqueue(b)];
    const hs = [await enqueue(heavy), await enqueue(heavy), await enqueue(heavy), await enqueue(heavy)];
    const urgent = await enqueue(a, 5);
    const all = [...as, ...bs, ...hs, urgent];
    // Tags: a 0,1,2,3 (urgent first), b 0, heavy 0,0.5,1,1.5; ties by age (urgent is the youngest).
    const fair = [bs[0], hs[0], urgent, hs[1], as[0], hs[2], hs[3], as[1], as[2]];
    expect(await order(all)).toEqual(fair);
    const claimed: string[] = [];
    for (let i = 0; i < all.length; i++) claimed.push((await claim())!);
    expect(claimed).toEqual(fair);
    expect(await claim()).toBeNull();
    // Claimed: PENDING on the node, no longer in the order.
    expect(await t.db.prisma.session.count({ where: { id: { in: all }, status: "PENDING", nodeId: "node-a" } })).toBe(all.length);
    expect((await queuePositions(t.db, all)).size).toBe(0);
  });

  it("a workspace arriving late banks nothing and waits at most one turn; a workspace at its cap is passed over", async () => {
    await reset();
    const [a, b, capped] = [await workspace(), await workspace(), await workspace(1, 1)];
    const as = [];
    for (let i = 0; i < 20; i++) as.push(await enqueue(a));
    expect(await claim()).toBe(as[0]);
    expect(await claim()).toBe(as[1]);
    const late = await enqueue(b);
    expect((await queuePositions(t.db, [late])).get(late)).toBeLessThanOrEqual(2);
    // The capped workspace already runs one session: its waiting one is skipped, not blocking others.
    await t.db.prisma.session.create({ data: { ...sessionRow(capped), metadata: {}, options: {}, browser: Prisma.DbNull } });
    const blocked = await enqueue(capped);
    const next = [await claim(), await claim()];
    expect(next).toContain(late);
    expect(next).not.toContain(blocked);
  });

  it("bounds what waits: vessel_queue_room under its lock", async () => {
    await reset();
    const a = await workspace();
    const room = async (wsMax: number, max: number) =>
      (await queryStatement<{ ok: boolean }>(t.db, Prisma.sql`SELECT "vessel_queue_room"(${a}::text, ${wsMax}::int, ${max}::int) AS "ok"`))[0]!.ok;
    await enqueue(a);
    await enqueue(a);
    expect(await room(3, 10)).toBe(true);
    expect(await room(2, 10)).toBe(false);
    expect(await room(10, 2)).toBe(false);
  });
});
