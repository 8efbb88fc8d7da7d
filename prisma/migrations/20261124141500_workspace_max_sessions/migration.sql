-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "max_sessions" INTEGER;

-- Whether workspace `ws` may start one more session under a cap of `cap` live sessions, decided race-free
-- across nodes (src/services/session-cap.ts): the per-workspace advisory lock is held until the calling
-- statement commits, and the count, a query of this VOLATILE function, takes its snapshot after the lock
-- is granted, so it sees every session a concurrent create committed while this one waited.
CREATE FUNCTION "vessel_session_room"("ws" TEXT, "cap" INTEGER) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1986359150, hashtext("ws"));
  RETURN (
    SELECT count(*) FROM (
      SELECT 1 FROM "sessions"
      WHERE "workspace_id" = "ws" AND "status" IN ('PENDING', 'RUNNING', 'REQUEST_RELEASE')
      LIMIT "cap"
    ) AS "live"
  ) < "cap";
END
$$;
