import { Prisma, type EndReason, type Session, type SessionStatus } from "../generated/prisma/client.ts";
import type { NewEvent } from "./session-events.ts";

/**
 * One statement that records a started session: its row, its first event, the call's audit entry
 * (`audit`, from auditedStatement; null when there is none), and `also` (a data-modifying statement
 * that must commit with them: the creating call's stored answer).
 *
 * Why one statement: with the embedded database every statement costs this process about a
 * millisecond of CPU (PGlite runs in-process), more when the process has been idle, and starting a
 * session is on the path of every client's first request. Folding three statements into one
 * data-modifying CTE is most of what took POST /v1/sessions from ~20 to ~10 ms (bench/sessions); the
 * audit entry joining it dropped the transaction (BEGIN, a statement, COMMIT) that was left.
 *
 * Every column is written from `session`, defaults included, so the row is exactly the object the
 * caller answers with. The `Record<keyof Session, …>` makes a column added to the schema a type
 * error here until it is written too.
 */
export function insertStartedSession(session: Session, event: NewEvent, also: Prisma.Sql, audit: Prisma.Sql | null = null): Prisma.Sql {
  const s = session;
  const p = (value: unknown) => Prisma.sql`${value}`;
  const columns: Record<keyof Session, [column: string, value: Prisma.Sql]> = {
    id: ["id", p(s.id)],
    workspaceId: ["workspace_id", p(s.workspaceId)],
    status: ["status", Prisma.sql`${s.status}::"SessionStatus"`],
    region: ["region", p(s.region)],
    endReason: ["end_reason", Prisma.sql`${s.endReason}::"EndReason"`],
    nodeId: ["node_id", p(s.nodeId)],
    apiKeyId: ["api_key_id", p(s.apiKeyId)],
    endedById: ["ended_by_id", p(s.endedById)],
    profileId: ["profile_id", p(s.profileId)],
    saveProfileOnRelease: ["save_profile_on_release", p(s.saveProfileOnRelease)],
    timeoutSeconds: ["timeout_seconds", p(s.timeoutSeconds)],
    idleTimeoutSeconds: ["idle_timeout_seconds", p(s.idleTimeoutSeconds)],
    liveViewInteractive: ["live_view_interactive", p(s.liveViewInteractive)],
    liveViewInstructions: ["live_view_instructions", p(s.liveViewInstructions)],
    liveViewGeneration: ["live_view_generation", p(s.liveViewGeneration)],
    createdAt: ["created_at", p(s.createdAt)],
    startedAt: ["started_at", p(s.startedAt)],
    expiresAt: ["expires_at", p(s.expiresAt)],
    lastActivityAt: ["last_activity_at", p(s.lastActivityAt)],
    endedAt: ["ended_at", p(s.endedAt)],
  };
  const names = Object.values(columns).map(([column]) => `"${column}"`).join(", ");
  const values = Prisma.join(Object.values(columns).map(([, value]) => value));
  // Data-modifying CTEs all run to completion, referenced or not, in one snapshot; the foreign keys
  // (event → session) are checked at the end of the statement, when the session row exists.
  return Prisma.sql`WITH "new_session" AS (
      INSERT INTO "sessions" (${Prisma.raw(names)}) VALUES (${values})
    ), "new_event" AS (
      INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at")
      VALUES (${event.id}, ${event.sessionId}, ${event.type}, ${JSON.stringify(event.data)}::jsonb, ${event.createdAt})
    )${audit ? Prisma.sql`, "new_audit" AS (${audit})` : Prisma.empty}
    ${also}`;
}

const liveStatuses = Prisma.raw(`'PENDING', 'RUNNING', 'REQUEST_RELEASE'`);

/**
 * One statement that ends a session if it is still live: the row takes its final status, end reason,
 * time and who ended it; its final event is written only when the row changed (the INSERT reads the
 * UPDATE's RETURNING); the call's audit entry (`audit`, from auditedStatement) is written either way,
 * as the transaction it replaces did. Answers one row, the session's workspace, when this statement
 * ended the session, and none when it had already ended (or does not exist).
 *
 * Replaces a transaction of five round trips (BEGIN, UPDATE, INSERT event, INSERT audit, COMMIT) on
 * the release path (session-start.ts's note on the embedded database says why that matters).
 */
export function endSessionStatement(
  end: { id: string; status: SessionStatus; reason: EndReason; endedAt: Date; endedById: string | null },
  event: NewEvent,
  audit: Prisma.Sql | null,
): Prisma.Sql {
  return Prisma.sql`WITH "ended" AS (
      UPDATE "sessions" SET "status" = ${end.status}::"SessionStatus", "end_reason" = ${end.reason}::"EndReason",
        "ended_at" = ${end.endedAt}::timestamptz, "ended_by_id" = ${end.endedById}::text
      WHERE "id" = ${end.id} AND "status" IN (${liveStatuses})
      RETURNING "id", "workspace_id"
    ), "end_event" AS (
      INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at")
      SELECT ${event.id}::text, "id", ${event.type}::text, ${JSON.stringify(event.data)}::jsonb, ${event.createdAt}::timestamptz FROM "ended"
    )${audit ? Prisma.sql`, "end_audit" AS (${audit})` : Prisma.empty}
    SELECT "workspace_id" FROM "ended"`;
}

/**
 * The owner's release (PATCH REQUEST_RELEASE) in one statement, read and end together: the session
 * of this workspace, ended (as endSessionStatement does) when it is live and saves nothing on release;
 * the call's audit entry (`audit`, from auditInsertSql with `whenLive` as its condition) is written
 * when it was live. Answers the session's status and save flag as read (no row: no such session in
 * this workspace) and whether this statement ended it. A session that saves its profile on release
 * is left as it is: its caller saves first, then ends it with endSessionStatement.
 */
export function releaseSessionStatement(
  end: { id: string; workspaceId: string; endedAt: Date },
  event: NewEvent,
  audit: ((whenLive: Prisma.Sql) => Prisma.Sql) | null,
): Prisma.Sql {
  const whenLive = Prisma.sql`EXISTS (SELECT 1 FROM "found" WHERE "status" IN (${liveStatuses}) AND NOT "save_profile_on_release")`;
  return Prisma.sql`WITH "found" AS (
      SELECT "status"::text AS "status", "save_profile_on_release" FROM "sessions"
      WHERE "id" = ${end.id} AND "workspace_id" = ${end.workspaceId}
    ), "ended" AS (
      UPDATE "sessions" SET "status" = 'RELEASED'::"SessionStatus", "end_reason" = 'CLIENT_RELEASE'::"EndReason",
        "ended_at" = ${end.endedAt}::timestamptz, "ended_by_id" = NULL
      WHERE "id" = ${end.id} AND "workspace_id" = ${end.workspaceId} AND "status" IN (${liveStatuses}) AND NOT "save_profile_on_release"
      RETURNING "id"
    ), "end_event" AS (
      INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at")
      SELECT ${event.id}::text, "id", ${event.type}::text, ${JSON.stringify(event.data)}::jsonb, ${event.createdAt}::timestamptz FROM "ended"
    )${audit ? Prisma.sql`, "end_audit" AS (${audit(whenLive)})` : Prisma.empty}
    SELECT "status", "save_profile_on_release" AS "saves", EXISTS (SELECT 1 FROM "ended") AS "ended" FROM "found"`;
}
