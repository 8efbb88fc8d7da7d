-- AlterEnum
ALTER TYPE "SessionStatus" ADD VALUE 'QUEUED';

-- AlterEnum
ALTER TYPE "EndReason" ADD VALUE 'QUEUE_TIMEOUT';

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "queue_weight" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "session_queue" (
    "session_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "enqueued_at" TIMESTAMPTZ(3) NOT NULL,
    "deadline" TIMESTAMPTZ(3) NOT NULL,
    "input" BYTEA NOT NULL,
    "master_key_id" TEXT NOT NULL,
    "claimed_by" TEXT,
    "claimed_at" TIMESTAMPTZ(3),

    CONSTRAINT "session_queue_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "queue_turns" (
    "workspace_id" TEXT NOT NULL,
    "pass" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "queue_turns_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateIndex
CREATE INDEX "session_queue_workspace_id_priority_enqueued_at_idx" ON "session_queue"("workspace_id", "priority", "enqueued_at");

-- CreateIndex
CREATE INDEX "session_queue_deadline_idx" ON "session_queue"("deadline");

-- AddForeignKey
ALTER TABLE "session_queue" ADD CONSTRAINT "session_queue_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A workspace's weight in the queue's round is at least 1 (services/sessions/queue, docs/decisions/0300).
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_queue_weight_check" CHECK ("queue_weight" BETWEEN 1 AND 1000);

-- The admission queue's fair order (docs/decisions/0300): stride scheduling over the workspaces with
-- someone waiting. Each workspace has a pass (queue_turns; the row '' is the round's clock, the tag of
-- the last start); a workspace's k-th waiting session (by priority desc, then oldest) gets the tag
-- GREATEST(pass, clock) + (k - 1) / queue_weight, and the queue is in tag order (then oldest). A start
-- moves the clock to the started tag and the workspace's pass one step of 1 / queue_weight past it, so
-- starts go round-robin over waiting workspaces, queue_weight per turn; a workspace that was not
-- waiting banks nothing (its pass is lifted to the clock). Claimed entries (starting) are out of it.
CREATE FUNCTION "vessel_queue_order"()
RETURNS TABLE ("session_id" TEXT, "workspace_id" TEXT, "region" TEXT, "enqueued_at" TIMESTAMPTZ, "deadline" TIMESTAMPTZ, "tag" DOUBLE PRECISION, "position" BIGINT)
LANGUAGE sql STABLE AS $$
  WITH "clock" AS (
    SELECT COALESCE((SELECT t."pass" FROM "queue_turns" t WHERE t."workspace_id" = ''), 0) AS "v"
  ), "waiting" AS (
    SELECT q."session_id" AS "sid", q."workspace_id" AS "ws", q."region" AS "rg", q."enqueued_at" AS "at", q."deadline" AS "dl",
      GREATEST(COALESCE(t."pass", 0), (SELECT c."v" FROM "clock" c))
        + (row_number() OVER (PARTITION BY q."workspace_id" ORDER BY q."priority" DESC, q."enqueued_at", q."session_id") - 1)::float8
          / GREATEST(w."queue_weight", 1) AS "tg"
    FROM "session_queue" q
    JOIN "sessions" s ON s."id" = q."session_id" AND s."status"::text = 'QUEUED'
    JOIN "workspaces" w ON w."id" = q."workspace_id"
    LEFT JOIN "queue_turns" t ON t."workspace_id" = q."workspace_id"
    WHERE q."claimed_by" IS NULL
  )
  SELECT "sid", "ws", "rg", "at", "dl", "tg", row_number() OVER (ORDER BY "tg", "at", "sid") FROM "waiting"
$$;

-- Takes the first session of the fair order this node may start (one of its regions, before its
-- deadline, its workspace below its cap of live sessions), race-free across nodes: the queue's advisory
-- lock is held until the statement commits and every query here takes its snapshot after it is granted
-- (VOLATILE), so two nodes never take the same session nor read a stale round. The session becomes
-- PENDING on `node` (counting toward its workspace's cap, checked under that cap's own lock as a create
-- is), its entry claimed; the round moves on. NULL when there is nothing to take.
CREATE FUNCTION "vessel_queue_claim"("node" TEXT, "regions" TEXT[], "default_cap" INTEGER, "now_at" TIMESTAMPTZ)
RETURNS TEXT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  "picked" RECORD;
BEGIN
  PERFORM pg_advisory_xact_lock(1986359160, 0);
  SELECT o."session_id" AS "sid", o."workspace_id" AS "ws", o."tag" AS "tg", w."queue_weight" AS "weight",
    COALESCE(w."max_sessions", "default_cap") AS "cap"
  INTO "picked"
  FROM "vessel_queue_order"() o
  JOIN "workspaces" w ON w."id" = o."workspace_id"
  WHERE o."region" = ANY("regions") AND o."deadline" > "now_at"
    AND (COALESCE(w."max_sessions", "default_cap") IS NULL OR (
      SELECT count(*) FROM "sessions" l
      WHERE l."workspace_id" = o."workspace_id" AND l."status" IN ('PENDING', 'RUNNING', 'REQUEST_RELEASE')
    ) < COALESCE(w."max_sessions", "default_cap"))
  ORDER BY o."position"
  LIMIT 1;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF "picked"."cap" IS NOT NULL AND NOT "vessel_session_room"("picked"."ws", "picked"."cap") THEN
    RETURN NULL;
  END IF;
  UPDATE "sessions" SET "status" = 'PENDING', "node_id" = "node" WHERE "id" = "picked"."sid" AND "status" = 'QUEUED';
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  UPDATE "session_queue" SET "claimed_by" = "node", "claimed_at" = "now_at" WHERE "session_id" = "picked"."sid";
  INSERT INTO "queue_turns" ("workspace_id", "pass") VALUES ('', "picked"."tg")
    ON CONFLICT ("workspace_id") DO UPDATE SET "pass" = EXCLUDED."pass";
  INSERT INTO "queue_turns" ("workspace_id", "pass") VALUES ("picked"."ws", "picked"."tg" + 1.0 / GREATEST("picked"."weight", 1))
    ON CONFLICT ("workspace_id") DO UPDATE SET "pass" = EXCLUDED."pass";
  RETURN "picked"."sid";
END
$$;

-- Whether one more session may wait (VESSEL_WORKSPACE_MAX_QUEUED for workspace `ws`, VESSEL_MAX_QUEUED
-- in all), decided race-free under the queue's lock: an enqueue reserves its place in the statement
-- that writes it, never check-then-act.
CREATE FUNCTION "vessel_queue_room"("ws" TEXT, "ws_max" INTEGER, "all_max" INTEGER) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1986359160, 0);
  RETURN (
    SELECT count(*) FROM "session_queue" q JOIN "sessions" s ON s."id" = q."session_id" AND s."status" IN ('QUEUED', 'PENDING')
    WHERE q."workspace_id" = "ws"
  ) < "ws_max" AND (
    SELECT count(*) FROM "session_queue" q JOIN "sessions" s ON s."id" = q."session_id" AND s."status" IN ('QUEUED', 'PENDING')
  ) < "all_max";
END
$$;
