// The admission queue's statements (docs/decisions/0300). The fair order, the claim and the bound are
// SQL functions of the migration that added the queue (20261129100000_admission_queue): each takes the
// queue's advisory lock where it must, so every node reads and moves the same round.
import { Prisma } from "../../../generated/prisma/client.ts";
import type { Database } from "../../../db/client.ts";
import { queryStatement } from "../../../kernel/support.ts";

type Db = Pick<Database, "prisma" | "direct">;

/** A condition, true when one more session of `workspaceId` may wait; evaluate it once per statement. */
export function queueRoomFor(workspaceId: string, workspaceMax: number, max: number): Prisma.Sql {
  return Prisma.sql`"vessel_queue_room"(${workspaceId}::text, ${workspaceMax}::int, ${max}::int)`;
}

/** Takes the next session this node may start (the fair order's first it may run), or null. */
export async function claimNext(db: Db, node: { id: string; regions: string[]; defaultCap: number | null; now: Date }): Promise<string | null> {
  const [row] = await queryStatement<{ id: string | null }>(
    db,
    Prisma.sql`SELECT "vessel_queue_claim"(${node.id}::text, ${node.regions}::text[], ${node.defaultCap}::int, ${node.now}::timestamptz) AS "id"`,
  );
  return row?.id ?? null;
}

/** The places of these sessions in the fair order (1 = next); a session not waiting is absent. */
export async function queuePositions(db: Db, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await queryStatement<{ session_id: string; position: number }>(
    db,
    Prisma.sql`SELECT "session_id", "position"::int AS "position" FROM "vessel_queue_order"() WHERE "session_id" = ANY(${ids}::text[])`,
  );
  return new Map(rows.map((r) => [r.session_id, r.position]));
}

/** A claimed session back to waiting (its start could not go on here): it keeps its place. */
export function unclaimStatement(id: string, nodeId: string): Prisma.Sql {
  return Prisma.sql`WITH "back" AS (
      UPDATE "sessions" SET "status" = 'QUEUED'::"SessionStatus", "node_id" = NULL
      WHERE "id" = ${id} AND "status" = 'PENDING'::"SessionStatus" AND "node_id" = ${nodeId}
      RETURNING "id"
    )
    UPDATE "session_queue" SET "claimed_by" = NULL, "claimed_at" = NULL WHERE "session_id" IN (SELECT "id" FROM "back")`;
}

/**
 * Claims a node left behind (it stopped or died mid-start) go back to waiting: `nodeId`'s own at its
 * start, anyone's older than `before` in the sweep. Nothing of a start is recorded until its last
 * statement, which checks the claim is still its own, so a slow start that loses its claim gives its
 * browser back.
 */
export function requeueStatement(where: { nodeId: string } | { before: Date }): Prisma.Sql {
  const which = "nodeId" in where ? Prisma.sql`q."claimed_by" = ${where.nodeId}` : Prisma.sql`q."claimed_at" < ${where.before}::timestamptz`;
  return Prisma.sql`WITH "stale" AS (
      SELECT q."session_id" FROM "session_queue" q WHERE q."claimed_by" IS NOT NULL AND ${which}
    ), "back" AS (
      UPDATE "sessions" SET "status" = 'QUEUED'::"SessionStatus", "node_id" = NULL
      WHERE "id" IN (SELECT "session_id" FROM "stale") AND "status" = 'PENDING'::"SessionStatus"
      RETURNING "id"
    )
    UPDATE "session_queue" SET "claimed_by" = NULL, "claimed_at" = NULL WHERE "session_id" IN (SELECT "session_id" FROM "stale")`;
}

/** Waiting sessions past their deadline (each is ended TIMED_OUT queue_timeout by the one end path). */
export async function expiredQueued(db: Db, now: Date, limit = 100): Promise<string[]> {
  const rows = await queryStatement<{ id: string }>(
    db,
    Prisma.sql`SELECT q."session_id" AS "id" FROM "session_queue" q JOIN "sessions" s ON s."id" = q."session_id"
      WHERE q."deadline" <= ${now}::timestamptz AND s."status" = 'QUEUED'::"SessionStatus" AND q."claimed_by" IS NULL
      ORDER BY q."deadline" LIMIT ${limit}::int`,
  );
  return rows.map((r) => r.id);
}

/** Entries whose session no longer waits nor starts (released, timed out): gone. */
export const dropEndedEntries = Prisma.sql`DELETE FROM "session_queue" q USING "sessions" s
  WHERE s."id" = q."session_id" AND s."status" NOT IN ('QUEUED'::"SessionStatus", 'PENDING'::"SessionStatus")`;

/** What a sweep has to do: entries not claimed (all, and past their deadline), and claims older than `staleBefore`. */
export async function queueWork(db: Db, now: Date, staleBefore: Date): Promise<{ waiting: number; expired: number; stale: number }> {
  const [row] = await queryStatement<{ waiting: number; expired: number; stale: number }>(
    db,
    Prisma.sql`SELECT (count(*) FILTER (WHERE "claimed_by" IS NULL))::int AS "waiting",
        (count(*) FILTER (WHERE "claimed_by" IS NULL AND "deadline" <= ${now}::timestamptz))::int AS "expired",
        (count(*) FILTER (WHERE "claimed_by" IS NOT NULL AND "claimed_at" < ${staleBefore}::timestamptz))::int AS "stale"
      FROM "session_queue"`,
  );
  return row ?? { waiting: 0, expired: 0, stale: 0 };
}

/** Sessions started in the last `seconds`, cluster-wide: the start rate a queue-full refusal estimates its wait from. */
export async function recentStarts(db: Db, now: Date, seconds: number): Promise<number> {
  const [row] = await queryStatement<{ n: number }>(
    db,
    Prisma.sql`SELECT count(*)::int AS "n" FROM "sessions" WHERE "started_at" > ${new Date(now.getTime() - seconds * 1000)}::timestamptz`,
  );
  return row?.n ?? 0;
}
