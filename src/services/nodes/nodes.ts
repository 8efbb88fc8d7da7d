import { Prisma, type EndReason, type PrismaClient } from "../../generated/prisma/client.ts";

/**
 * The node registry (`nodes`): every node's internal address, region, capacity and free slots, as
 * of its last heartbeat. Times are the database's own clock (`now()`), so nodes whose clocks
 * disagree still agree on who is silent.
 *
 * A node is *alive* while its heartbeat is younger than the node timeout and it has not stopped;
 * only alive nodes receive placed sessions and forwarded connections, and a node that is not alive
 * while it still owns live sessions is *dead*: a peer ends those sessions (node_shutdown).
 */

export interface NodeInfo {
  id: string;
  internalUrl: string;
  region: string;
  capacity: number;
  freeSlots: number;
  draining: boolean;
  alive: boolean;
}

export interface NodeState {
  id: string;
  internalUrl: string;
  region: string;
  capacity: number;
  freeSlots: number;
  draining: boolean;
}

type Db = Pick<PrismaClient, "$executeRaw" | "$queryRaw">;

const live = Prisma.sql`('PENDING', 'RUNNING', 'REQUEST_RELEASE')`;

/** Registers this node at start (a restart under the same id takes its row over) and clears any stop mark. */
export async function registerNode(db: Db, node: NodeState): Promise<void> {
  await db.$executeRaw`
    INSERT INTO "nodes" ("id", "internal_url", "region", "started_at", "heartbeat_at", "draining", "capacity", "free_slots", "stopped_at")
    VALUES (${node.id}, ${node.internalUrl}, ${node.region}, now(), now(), ${node.draining}, ${node.capacity}, ${node.freeSlots}, NULL)
    ON CONFLICT ("id") DO UPDATE SET
      "internal_url" = EXCLUDED."internal_url", "region" = EXCLUDED."region", "started_at" = now(), "heartbeat_at" = now(),
      "draining" = EXCLUDED."draining", "capacity" = EXCLUDED."capacity", "free_slots" = EXCLUDED."free_slots", "stopped_at" = NULL`;
}

/** One heartbeat: the node is alive, with this much room. Re-creates the row if someone pruned it. */
export async function heartbeat(db: Db, node: NodeState): Promise<void> {
  const updated = await db.$executeRaw`
    UPDATE "nodes" SET "heartbeat_at" = now(), "draining" = ${node.draining}, "capacity" = ${node.capacity}, "free_slots" = ${node.freeSlots}
    WHERE "id" = ${node.id} AND "stopped_at" IS NULL`;
  if (updated === 0) await registerNode(db, node);
}

/** A clean stop: peers stop sending work here at once instead of waiting for the heartbeat to age. */
export async function markStopped(db: Db, id: string): Promise<void> {
  await db.$executeRaw`UPDATE "nodes" SET "stopped_at" = now(), "draining" = true, "free_slots" = 0 WHERE "id" = ${id}`;
}

interface NodeRow {
  id: string;
  internal_url: string;
  region: string;
  capacity: number;
  free_slots: number;
  draining: boolean;
  alive: boolean;
}

const toInfo = (r: NodeRow): NodeInfo => ({
  id: r.id,
  internalUrl: r.internal_url,
  region: r.region,
  capacity: r.capacity,
  freeSlots: r.free_slots,
  draining: r.draining,
  alive: r.alive,
});

/** Whether node `n` is alive: not stopped, and heard from within the timeout. */
function aliveSql(timeoutSeconds: number): Prisma.Sql {
  return Prisma.sql`(n."stopped_at" IS NULL AND n."heartbeat_at" > now() - make_interval(secs => ${timeoutSeconds}::float8))`;
}

/** The columns of a {@link NodeRow}, read from `nodes` as `n`. */
function nodeColumns(timeoutSeconds: number): Prisma.Sql {
  return Prisma.sql`n."id", n."internal_url", n."region", n."capacity", n."free_slots", n."draining", ${aliveSql(timeoutSeconds)} AS "alive"`;
}

/** Nodes of a region that could take a session now, most free slots first (this node excluded). */
export async function placementCandidates(db: Db, region: string, exclude: string, timeoutSeconds: number): Promise<NodeInfo[]> {
  const rows = await db.$queryRaw<NodeRow[]>`
    SELECT ${nodeColumns(timeoutSeconds)} FROM "nodes" n
    WHERE n."region" = ${region} AND n."id" <> ${exclude} AND NOT n."draining" AND n."free_slots" > 0 AND ${aliveSql(timeoutSeconds)}
    ORDER BY n."free_slots" DESC, n."heartbeat_at" DESC
    LIMIT 8`;
  return rows.map(toInfo);
}

/** Whether any live node serves `region` (a single node listing several regions serves them all). */
export async function regionHasNodes(db: Db, region: string, timeoutSeconds: number): Promise<boolean> {
  const rows = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS "n" FROM "nodes" n WHERE n."region" = ${region} AND ${aliveSql(timeoutSeconds)}`;
  return (rows[0]?.n ?? 0) > 0;
}

/** The node that runs a session (while the session is live), or null. */
export async function ownerOf(db: Db, sessionId: string, timeoutSeconds: number): Promise<NodeInfo | null> {
  const rows = await db.$queryRaw<NodeRow[]>`
    SELECT ${nodeColumns(timeoutSeconds)}
    FROM "sessions" s JOIN "nodes" n ON n."id" = s."node_id"
    WHERE s."id" = ${sessionId} AND s."status" IN ${live}`;
  return rows[0] ? toInfo(rows[0]) : null;
}

/** Live sessions whose node is dead (silent past the timeout, or stopped) or gone, oldest first. */
export async function sessionsOfDeadNodes(db: Db, self: string, timeoutSeconds: number, limit = 200): Promise<Array<{ id: string; nodeId: string | null }>> {
  const rows = await db.$queryRaw<Array<{ id: string; node_id: string | null }>>`
    SELECT s."id", s."node_id" FROM "sessions" s LEFT JOIN "nodes" n ON n."id" = s."node_id"
    WHERE s."status" IN ${live} AND (s."node_id" IS NULL OR s."node_id" <> ${self})
      AND (n."id" IS NULL OR NOT ${aliveSql(timeoutSeconds)})
    ORDER BY s."id"
    LIMIT ${limit}`;
  return rows.map((r) => ({ id: r.id, nodeId: r.node_id }));
}

/** Of these sessions (run by this node), the ones that are no longer live in the database, with why they ended. */
export async function endedAmong(db: Db, ids: string[]): Promise<Array<{ id: string; reason: EndReason | null }>> {
  if (ids.length === 0) return [];
  return db.$queryRaw<Array<{ id: string; reason: EndReason | null }>>`
    SELECT "id", "end_reason" AS "reason" FROM "sessions" WHERE "id" IN (${Prisma.join(ids)}) AND "status" NOT IN ${live}`;
}

/** Rows of nodes silent for `days` that own no live session (pod names come and go). */
export async function pruneNodes(db: Db, days: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "nodes" n WHERE n."heartbeat_at" < now() - make_interval(days => ${days}::int)
      AND NOT EXISTS (SELECT 1 FROM "sessions" s WHERE s."node_id" = n."id" AND s."status" IN ${live})`;
}

/** The node a session names (live or not), with whether that node is alive; null without one. */
export async function nodeOfSession(db: Db, sessionId: string, timeoutSeconds: number): Promise<NodeInfo | null> {
  const rows = await db.$queryRaw<NodeRow[]>`
    SELECT ${nodeColumns(timeoutSeconds)} FROM "sessions" s JOIN "nodes" n ON n."id" = s."node_id" WHERE s."id" = ${sessionId}`;
  return rows[0] ? toInfo(rows[0]) : null;
}

/** Ids of the live sessions that name node `id`. */
export async function liveSessionsOfNode(db: Db, id: string): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "sessions" WHERE "node_id" = ${id} AND "status" IN ${live}`;
  return rows.map((r) => r.id);
}

/**
 * Whether node `nodeId` still holds its lease on live session `sessionId` as the database sees it:
 * the session is live there, and the node has not stopped and renewed within `leaseSeconds`.
 */
export async function ownerHoldsLease(db: Db, sessionId: string, nodeId: string, leaseSeconds: number): Promise<boolean> {
  const rows = await db.$queryRaw<Array<{ ok: boolean }>>`
    SELECT true AS "ok" FROM "sessions" s JOIN "nodes" n ON n."id" = s."node_id"
    WHERE s."id" = ${sessionId} AND s."node_id" = ${nodeId} AND s."status" IN ${live}
      AND n."stopped_at" IS NULL AND n."heartbeat_at" > now() - make_interval(secs => ${leaseSeconds}::float8)`;
  return rows.length > 0;
}

/** How many browsers the live nodes of a region run at most, together. */
export async function clusterCapacity(db: Db, region: string, timeoutSeconds: number): Promise<number> {
  const rows = await db.$queryRaw<Array<{ n: number }>>`
    SELECT coalesce(sum(n."capacity"), 0)::int AS "n" FROM "nodes" n WHERE n."region" = ${region} AND ${aliveSql(timeoutSeconds)}`;
  return rows[0]?.n ?? 0;
}
