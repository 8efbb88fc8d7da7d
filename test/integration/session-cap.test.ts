// The workspace session cap as the database decides it (src/services/sessions/session-cap.ts and the
// `vessel_session_room` function of its migration): the statement that records a session admits it
// only with room, and concurrent statements, one connection each, are decided one after the other.
import { sessionRow } from "../support/session-row.ts";
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Prisma, type Session } from "../../src/generated/prisma/client.ts";
import { roomFor } from "../../src/services/sessions/session-cap.ts";
import { newEvent } from "../../src/services/session-events/session-events.ts";
import { insertStartedSession, roomHolds } from "../../src/services/sessions/session-start.ts";
import { queryStatement } from "../../src/kernel/support.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

describeEachBackend("the workspace session cap in the database", (backend) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(backend);
  });
  afterAll(async () => t?.dispose());

  async function workspace(): Promise<string> {
    const id = `ws_${ulid()}`;
    await t.db.prisma.workspace.create({ data: { id, slug: `cap-${ulid().toLowerCase()}`, name: "cap" } });
    return id;
  }
  const session = (workspaceId: string): Session => sessionRow(workspaceId);
  const live = (workspaceId: string) => t.db.prisma.session.count({ where: { workspaceId, status: "RUNNING" } });

  /** The two-statement way's recording statement (`also`), capped: answers whether it admitted the session. */
  async function startCapped(workspaceId: string, cap: number): Promise<boolean> {
    const s = session(workspaceId);
    const sql = insertStartedSession(
      s,
      newEvent(s.id, "session.running", {}, s.createdAt),
      { also: Prisma.sql`SELECT ${roomHolds} AS "admitted"` },
      null,
      roomFor(workspaceId, cap),
    );
    const [row] = await queryStatement<{ admitted: boolean }>(t.db, sql);
    return row!.admitted;
  }

  test("30 capped starts at once, on as many connections as the pool gives: exactly the cap are admitted", async () => {
    const ws = await workspace();
    const admitted = await Promise.all(Array.from({ length: 30 }, () => startCapped(ws, 3)));
    expect(admitted.filter(Boolean)).toHaveLength(3);
    expect(await live(ws)).toBe(3);
    // Nothing of a refused start is written: its event neither.
    expect(await t.db.prisma.sessionEvent.count({ where: { session: { workspaceId: ws } } })).toBe(3);
    // Another workspace counts its own.
    const other = await workspace();
    expect(await startCapped(other, 1)).toBe(true);
    expect(await startCapped(other, 1)).toBe(false);
  });

  test("an ended session frees its slot", async () => {
    const ws = await workspace();
    expect(await startCapped(ws, 1)).toBe(true);
    expect(await startCapped(ws, 1)).toBe(false);
    await t.db.prisma.session.updateMany({ where: { workspaceId: ws }, data: { status: "RELEASED", endedAt: new Date() } });
    expect(await startCapped(ws, 1)).toBe(true);
  });

  test("the one-statement way: a capped claim takes the key only with room, and nothing else is written without it", async () => {
    const ws = await workspace();
    const claimed = async (key: string) => {
      const s = session(ws);
      const now = new Date();
      const claim = Prisma.sql`INSERT INTO "idempotency_records" ("workspace_id", "key", "fingerprint", "state", "response_status", "response_body", "resource_id", "locked_until", "expires_at", "created_at")
        SELECT ${ws}::text, ${key}::text, 'fp'::text, 'COMPLETED'::"IdempotencyState", 201::int, '{}'::jsonb, ${s.id}::text, NULL::timestamptz, ${new Date(now.getTime() + 86_400_000)}::timestamptz, ${now}::timestamptz
        WHERE ${roomHolds} ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
      const [row] = await queryStatement<{ taken: boolean }>(
        t.db,
        insertStartedSession(s, newEvent(s.id, "session.running", {}, now), { claim }, null, roomFor(ws, 1)),
      );
      return row!.taken;
    };
    expect(await claimed("k1")).toBe(true);
    expect(await claimed("k2")).toBe(false);
    expect(await t.db.prisma.idempotencyRecord.count({ where: { workspaceId: ws } })).toBe(1);
    expect(await live(ws)).toBe(1);
  });
});
