import { Prisma, type EndReason, type Session, type SessionStatus } from "../../generated/prisma/client.ts";
import type { NewEvent } from "../session-events/session-events.ts";

/**
 * How a started session's statement stores the creating call's answer (idempotency.ts): `also`, a
 * data-modifying statement run with the rest (the UPDATE of a record claimed beforehand); or
 * `claim`, the INSERT that takes the key with the answer, on which every other part depends: when
 * the key is taken already it inserts nothing, and so neither does the rest.
 */
export type StartedAnswer = { also: Prisma.Sql } | { claim: Prisma.Sql };

/**
 * True when the statement's `room` (see insertStartedSession) admitted the session: the condition to
 * give the claim or the stored answer of a capped create, so neither is written without the session.
 */
export const roomHolds = Prisma.sql`EXISTS (SELECT 1 FROM "room" WHERE "ok")`;

/**
 * One statement that records a started session: its row, its first event, the call's audit entry
 * (`audit`, from auditedStatement; null when there is none), and the creating call's stored answer
 * (`answer`). With a `claim` it answers one row, `taken`: whether it took the key (and wrote anything).
 *
 * Why one statement: with the embedded database every statement costs this process one to two
 * milliseconds of CPU (PGlite runs in-process), and starting a session is on the path of every
 * client's first request. Folding three statements into one data-modifying CTE is most of what took
 * POST /v1/sessions from ~20 to ~10 ms (bench/sessions); the audit entry joining it dropped the
 * transaction (BEGIN, a statement, COMMIT) that was left, and the claim joining it the statement
 * before it.
 *
 * Every column is written from `session`, defaults included, so the row is exactly the object the
 * caller answers with. The `Record<keyof Session, …>` makes a column added to the schema a type
 * error here until it is written too. Every value is cast to its column's type, as a SELECT (the
 * claimed form) gives its parameters no type of their own.
 *
 * `room`, for a workspace with a session cap (session-cap.ts), is the condition that admits one more
 * session; it is evaluated once, first, as the CTE "room", and nothing is written unless it holds.
 * The caller makes the stored answer or the claim conditional on {@link roomHolds} too, and learns the
 * outcome from the answer's row count (`also`) or `taken` (`claim`: false when the key was taken
 * already or there was no room; the two-statement way tells which). Without a cap the statement is
 * exactly what it was before caps existed.
 */
export function insertStartedSession(
  session: Session,
  event: NewEvent,
  answer: StartedAnswer,
  audit: ((when?: Prisma.Sql) => Prisma.Sql) | null = null,
  room: Prisma.Sql | null = null,
): Prisma.Sql {
  const s = session;
  const columns: Record<keyof Session, [column: string, value: unknown, type: string]> = {
    id: ["id", s.id, "text"],
    workspaceId: ["workspace_id", s.workspaceId, "text"],
    status: ["status", s.status, '"SessionStatus"'],
    region: ["region", s.region, "text"],
    endReason: ["end_reason", s.endReason, '"EndReason"'],
    nodeId: ["node_id", s.nodeId, "text"],
    apiKeyId: ["api_key_id", s.apiKeyId, "text"],
    endedById: ["ended_by_id", s.endedById, "text"],
    profileId: ["profile_id", s.profileId, "text"],
    saveProfileOnRelease: ["save_profile_on_release", s.saveProfileOnRelease, "boolean"],
    timeoutSeconds: ["timeout_seconds", s.timeoutSeconds, "int"],
    idleTimeoutSeconds: ["idle_timeout_seconds", s.idleTimeoutSeconds, "int"],
    liveViewInteractive: ["live_view_interactive", s.liveViewInteractive, "boolean"],
    liveViewInstructions: ["live_view_instructions", s.liveViewInstructions, "text"],
    liveViewGeneration: ["live_view_generation", s.liveViewGeneration, "int"],
    logs: ["logs", s.logs, "boolean"],
    recording: ["recording", s.recording, "boolean"],
    metadata: ["metadata", JSON.stringify(s.metadata ?? {}), "jsonb"],
    extensionIds: ["extension_ids", s.extensionIds ?? [], "text[]"],
    options: ["options", JSON.stringify(s.options ?? {}), "jsonb"],
    browser: ["browser", s.browser === null || s.browser === undefined ? null : JSON.stringify(s.browser), "jsonb"],
    createdAt: ["created_at", s.createdAt, "timestamptz"],
    startedAt: ["started_at", s.startedAt, "timestamptz"],
    expiresAt: ["expires_at", s.expiresAt, "timestamptz"],
    lastActivityAt: ["last_activity_at", s.lastActivityAt, "timestamptz"],
    endedAt: ["ended_at", s.endedAt, "timestamptz"],
  };
  const names = Object.values(columns)
    .map(([column]) => `"${column}"`)
    .join(", ");
  const values = Prisma.join(Object.values(columns).map(([, value, type]) => Prisma.sql`${value}::${Prisma.raw(type)}`));
  const eventValues = Prisma.sql`${event.id}::text, ${event.sessionId}::text, ${event.type}::text, ${JSON.stringify(event.data)}::jsonb, ${event.createdAt}::timestamptz`;
  // Data-modifying CTEs all run to completion, referenced or not, in one snapshot; the foreign keys
  // (event → session) are checked at the end of the statement, when the session row exists.
  if (room) {
    const roomCte = Prisma.sql`"room" AS MATERIALIZED (SELECT ${room} AS "ok")`;
    if ("also" in answer) {
      return Prisma.sql`WITH ${roomCte}, "new_session" AS (
          INSERT INTO "sessions" (${Prisma.raw(names)}) SELECT ${values} FROM "room" WHERE "ok"
        ), "new_event" AS (
          INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at") SELECT ${eventValues} FROM "room" WHERE "ok"
        )${audit ? Prisma.sql`, "new_audit" AS (${audit(roomHolds)})` : Prisma.empty}
        ${answer.also}`;
    }
    const takenHere = Prisma.sql`EXISTS (SELECT 1 FROM "claim")`;
    return Prisma.sql`WITH ${roomCte}, "claim" AS (${answer.claim}), "new_session" AS (
        INSERT INTO "sessions" (${Prisma.raw(names)}) SELECT ${values} FROM "claim"
      ), "new_event" AS (
        INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at") SELECT ${eventValues} FROM "claim"
      )${audit ? Prisma.sql`, "new_audit" AS (${audit(takenHere)})` : Prisma.empty}
      SELECT ${takenHere} AS "taken"`;
  }
  if ("also" in answer) {
    return Prisma.sql`WITH "new_session" AS (
        INSERT INTO "sessions" (${Prisma.raw(names)}) VALUES (${values})
      ), "new_event" AS (
        INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at") VALUES (${eventValues})
      )${audit ? Prisma.sql`, "new_audit" AS (${audit()})` : Prisma.empty}
      ${answer.also}`;
  }
  const taken = Prisma.sql`EXISTS (SELECT 1 FROM "claim")`;
  return Prisma.sql`WITH "claim" AS (${answer.claim}), "new_session" AS (
      INSERT INTO "sessions" (${Prisma.raw(names)}) SELECT ${values} FROM "claim"
    ), "new_event" AS (
      INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at") SELECT ${eventValues} FROM "claim"
    )${audit ? Prisma.sql`, "new_audit" AS (${audit(taken)})` : Prisma.empty}
    SELECT ${taken} AS "taken"`;
}

// QUEUED too: a waiting session is released (client_release) or timed out (queue_timeout) by the same statements.
const liveStatuses = Prisma.raw(`'QUEUED', 'PENDING', 'RUNNING', 'REQUEST_RELEASE'`);

/**
 * The INSERT of an end's events, one row each per row of "ended" (the UPDATE's RETURNING): none when
 * the statement did not end the session. The session's waiting background events (EventRecorder's
 * `take`) come first, its final event last, so they land in the order they happened.
 */
function endEventsInsert(events: NewEvent[]): Prisma.Sql {
  const rows = events.map((e) => Prisma.sql`(${e.id}::text, ${e.type}::text, ${JSON.stringify(e.data)}::jsonb, ${e.createdAt}::timestamptz)`);
  return Prisma.sql`INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at")
      SELECT "e"."id", "ended"."id", "e"."type", "e"."data", "e"."created_at"
      FROM (VALUES ${Prisma.join(rows)}) AS "e" ("id", "type", "data", "created_at") CROSS JOIN "ended"`;
}

/**
 * One statement that ends a session if it is still live: the row takes its final status, end reason,
 * time and who ended it; `events` (its waiting background events, then its final event) are written
 * only when the row changed (endEventsInsert); the call's audit entry (`audit`, from auditedStatement) is written either way,
 * as the transaction it replaces did. Answers one row, the session's workspace, when this statement
 * ended the session, and none when it had already ended (or does not exist).
 *
 * Replaces a transaction of five round trips (BEGIN, UPDATE, INSERT event, INSERT audit, COMMIT) on
 * the release path (session-start.ts's note on the embedded database says why that matters).
 */
export function endSessionStatement(
  end: { id: string; status: SessionStatus; reason: EndReason; endedAt: Date; endedById: string | null },
  events: NewEvent[],
  audit: Prisma.Sql | null,
): Prisma.Sql {
  return Prisma.sql`WITH "ended" AS (
      UPDATE "sessions" SET "status" = ${end.status}::"SessionStatus", "end_reason" = ${end.reason}::"EndReason",
        "ended_at" = ${end.endedAt}::timestamptz, "ended_by_id" = ${end.endedById}::text
      WHERE "id" = ${end.id} AND "status" IN (${liveStatuses})
      RETURNING "id", "workspace_id"
    ), "end_events" AS (${endEventsInsert(events)})${audit ? Prisma.sql`, "end_audit" AS (${audit})` : Prisma.empty}
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
  events: NewEvent[],
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
    ), "end_events" AS (${endEventsInsert(events)})${audit ? Prisma.sql`, "end_audit" AS (${audit(whenLive)})` : Prisma.empty}
    SELECT "status", "save_profile_on_release" AS "saves", EXISTS (SELECT 1 FROM "ended") AS "ended" FROM "found"`;
}
