import type { Session } from "../../generated/prisma/client.ts";

/** A session as the services hand it out: its row, and in single-session answers while it runs its addresses. */
export interface SessionView {
  session: Session;
  connectUrl: string | null;
  liveViewUrl: string | null;
  /** While QUEUED: its place in the admission queue (queue/queue-order.ts), 1 = next; absent otherwise. */
  queuePosition?: number | null;
}

/**
 * A SessionView as JSON, transport-neutral: what an idempotent create stores as its answer (each
 * transport presents a replay its own way) and what a placed create sends back between nodes.
 */
export interface StoredSessionView {
  /** Tells a stored view from the REST bodies older versions stored (see fromStoredView). */
  view: 1;
  session: Record<string, unknown>;
  connectUrl: string | null;
  liveViewUrl: string | null;
}

const sessionDates = ["createdAt", "startedAt", "expiresAt", "lastActivityAt", "endedAt"] as const;

export function toStoredView(v: SessionView): StoredSessionView {
  return { view: 1, session: JSON.parse(JSON.stringify(v.session)) as Record<string, unknown>, connectUrl: v.connectUrl, liveViewUrl: v.liveViewUrl };
}

/** A SessionView whose row crossed JSON: its dates become Dates again. */
export function reviveSessionView(v: { session: unknown; connectUrl: string | null; liveViewUrl: string | null }): SessionView {
  const session = { ...(v.session as Record<string, unknown>) };
  for (const key of sessionDates) if (typeof session[key] === "string") session[key] = new Date(session[key] as string);
  // Stored before sessions had logs and recordings: those sessions had neither.
  session.logs ??= false;
  session.recording ??= false;
  session.metadata ??= {};
  session.browser ??= null;
  session.extensionIds ??= [];
  return { session: session as unknown as Session, connectUrl: v.connectUrl, liveViewUrl: v.liveViewUrl };
}

/**
 * The view a stored answer holds, or null for an answer stored by a version before stored views:
 * those stored the REST body itself, which the REST transport replays as it is (they expire 24 hours
 * after their call, so the fallback matters only across an upgrade).
 */
export function fromStoredView(body: unknown): SessionView | null {
  const b = body as Partial<StoredSessionView> | null;
  if (!b || b.view !== 1 || typeof b.session !== "object" || b.session === null) return null;
  return reviveSessionView({ session: b.session, connectUrl: b.connectUrl ?? null, liveViewUrl: b.liveViewUrl ?? null });
}

/** The session a stored answer is about, in either form. */
export function storedSessionId(body: unknown): string {
  return fromStoredView(body)?.session.id ?? String((body as { id?: unknown } | null)?.id ?? "");
}
