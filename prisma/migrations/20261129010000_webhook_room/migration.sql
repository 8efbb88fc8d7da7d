-- Whether workspace `ws` may add one more webhook endpoint under a cap of `cap`, decided race-free across
-- nodes (src/services/webhooks/webhook-endpoints.ts): the per-workspace advisory lock is held until the
-- calling statement commits, and the count, a query of this VOLATILE function, takes its snapshot after the
-- lock is granted, so it sees every endpoint a concurrent create committed while this one waited (as
-- "vessel_session_room"; its own lock class, so webhooks and sessions never wait on each other).
CREATE FUNCTION "vessel_webhook_room"("ws" TEXT, "cap" INTEGER) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1986359153, hashtext("ws"));
  RETURN (SELECT count(*) FROM (SELECT 1 FROM "webhook_endpoints" WHERE "workspace_id" = "ws" LIMIT "cap") AS "held") < "cap";
END
$$;
