import type { Session } from "../../generated/prisma/client.ts";
import type { SessionEventView } from "../session-events/session-events.ts";

/**
 * What a delivery's body holds: `{"type", "timestamp", "data"}`, data being the session (for
 * `session.*` events) or the event, in the same JSON as the REST API answers them (GET
 * /v1/sessions/{id}, GET …/events). Built once when the delivery is made and kept, so every attempt
 * sends (and signs) the same bytes. Kept field for field with the REST session (a unit test compares
 * the two); the URLs are left out, as in a list's sessions: they carry tokens.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function sessionPayload(s: Session): Record<string, unknown> {
  return {
    id: s.id,
    status: s.status,
    end_reason: s.endReason ? s.endReason.toLowerCase() : null,
    region: s.region,
    created_at: s.createdAt.toISOString(),
    started_at: iso(s.startedAt),
    expires_at: s.expiresAt.toISOString(),
    ended_at: iso(s.endedAt),
    timeout_seconds: s.timeoutSeconds,
    idle_timeout_seconds: s.idleTimeoutSeconds,
    profile_id: s.profileId,
    live_view: { interactive: s.liveViewInteractive, instructions: s.liveViewInstructions, viewers: 0 },
    metadata: s.metadata ?? {},
    browser: s.browser ?? null,
    extension_ids: s.extensionIds ?? [],
    logs: s.logs,
    recording: s.recording,
    connect_url: null,
    live_view_url: null,
  };
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
