-- CreateTable
CREATE TABLE "extension_reservations" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "extension_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "extension_reservations_workspace_id_idx" ON "extension_reservations"("workspace_id");

-- AddForeignKey
ALTER TABLE "extension_reservations" ADD CONSTRAINT "extension_reservations_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What workspace `ws` may still store, decided race-free across nodes (services/extensions/extension-quota.ts):
-- 'ok' when one more extension of `bytes` bytes fits under `max_count` extensions and `max_bytes` bytes,
-- else 'count' or 'bytes'. Extensions stored and uploads in progress (their reservations) both count.
-- The per-workspace advisory lock is held until the calling statement commits, and the count, a query of
-- this VOLATILE function, takes its snapshot after the lock is granted (as "vessel_session_room").
-- Reservations past their expiry (their node died mid-upload) are dropped here.
CREATE FUNCTION "vessel_extension_room"("ws" TEXT, "max_count" INTEGER, "max_bytes" BIGINT, "bytes" BIGINT) RETURNS TEXT
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  "held" BIGINT;
  "held_bytes" BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(1986359151, hashtext("ws"));
  DELETE FROM "extension_reservations" WHERE "workspace_id" = "ws" AND "expires_at" < now();
  SELECT count(*), coalesce(sum("size_bytes"), 0) INTO "held", "held_bytes" FROM (
    SELECT "size_bytes" FROM "extensions" WHERE "workspace_id" = "ws"
    UNION ALL
    SELECT "size_bytes" FROM "extension_reservations" WHERE "workspace_id" = "ws"
  ) AS "stored";
  IF "held" + 1 > "max_count" THEN RETURN 'count'; END IF;
  IF "held_bytes" + "bytes" > "max_bytes" THEN RETURN 'bytes'; END IF;
  RETURN 'ok';
END
$$;
