-- A workspace's network rules (issue 47): null = none.
ALTER TABLE "workspaces" ADD COLUMN "network_policy" JSONB;
