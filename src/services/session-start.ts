import { Prisma, type Session } from "../generated/prisma/client.ts";
import type { NewEvent } from "./session-events.ts";

/**
 * One statement that records a started session: its row, its first event, and `also` (a
 * data-modifying statement that must commit with them: the creating call's stored answer).
 *
 * Why one statement: with the embedded database every statement costs this process about a
 * millisecond of CPU (PGlite runs in-process), more when the process has been idle, and starting a
 * session is on the path of every client's first request. Folding three statements into one
 * data-modifying CTE is most of what took POST /v1/sessions from ~20 to ~10 ms (bench/sessions).
 *
 * Every column is written from `session`, defaults included, so the row is exactly the object the
 * caller answers with. The `Record<keyof Session, …>` makes a column added to the schema a type
 * error here until it is written too.
 */
export function insertStartedSession(session: Session, event: NewEvent, also: Prisma.Sql): Prisma.Sql {
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
    )
    ${also}`;
}
