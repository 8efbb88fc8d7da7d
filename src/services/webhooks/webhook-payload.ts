import type { Session } from "../../generated/prisma/client.ts";
import type { SessionEventView } from "../session-events/session-events.ts";
import { toSessionDto } from "../sessions/session-wire.ts";

/**
 * What a delivery's body holds: `{"type", "timestamp", "data"}`, data being the session (for
 * `session.*` events) or the event, in the same JSON as the REST API answers them (GET
 * /v1/sessions/{id}, GET …/events). Built once when the delivery is made and kept, so every attempt
 * sends (and signs) the same bytes. The session is the one wire shape (sessions/session-wire.ts); the
 * URLs are left out, as in a list's sessions: they carry tokens. A waiting session carries its
 * `queue_position` as GET answers it (the caller reads it: the place is not in the row).
 */
export function sessionPayload(s: Session, queuePosition: number | null = null): Record<string, unknown> {
  return toSessionDto(s, { connectUrl: null, liveViewUrl: null, queuePosition });
}

export function eventPayload(e: SessionEventView): Record<string, unknown> {
  return { id: e.id, session_id: e.sessionId, type: e.type, created_at: e.createdAt.toISOString(), data: e.data };
}

/** The body of a delivery, as sent. */
export function deliveryBody(type: string, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/** Session events whose data is the session itself; the others carry the event. */
export const carriesSession = (type: string) => type.startsWith("session.");
