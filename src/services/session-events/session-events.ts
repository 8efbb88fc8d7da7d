import { monotonicFactory } from "../../ids.ts";
import { Prisma, type SessionEvent } from "../../generated/prisma/client.ts";
import type { Logger } from "../../logger.ts";
import type { PubSub } from "../../pubsub.ts";
import type { AppDeps } from "../../kernel/context.ts";

/** Everything that can happen to a session, in the order a reader sees it (event ids are ULIDs). */
export const sessionEventTypes = [
  // Waiting in the admission queue (queue_timeout_seconds), then started from it (waited_ms) just before session.running.
  "session.queued",
  "session.started",
  "session.running",
  "session.released",
  "session.timed_out",
  "session.failed",
  "live_view.opened",
  "live_view.closed",
  "live_view.done",
  "cdp.connected",
  "cdp.disconnected",
  // The browser policy refused something: a CDP command (method, reason) or a connection (host, port, reason).
  "cdp.refused",
  "egress.refused",
  // A download (download_id, name, bytes): begun, finished, cancelled by the page or a client, or refused (reason).
  "download.started",
  "download.completed",
  "download.canceled",
  "download.refused",
  // A file was uploaded into the session's folder (file_id, name, size, sha256, path): POST …/files.
  "file.uploaded",
  // After the end, the session's recording (services/recordings) was stored (size_bytes, duration_ms), or failed (reason).
  "recording.ready",
  "recording.failed",
] as const;
export type SessionEventType = (typeof sessionEventTypes)[number];

/** The events after which nothing more happens to a session. */
export const finalTypes: ReadonlySet<string> = new Set(["session.released", "session.timed_out", "session.failed"]);

/** A long poll holds the request at most this long (spec: a waiting client needs no tight loop). */
export const MAX_WAIT_SECONDS = 30;

// Monotonic within this process, so two events of one session written in the same millisecond keep their order.
const nextUlid = monotonicFactory();

export interface NewEvent {
  id: string;
  sessionId: string;
  type: SessionEventType;
  data: Prisma.InputJsonObject;
  createdAt: Date;
}

export function newEvent(sessionId: string, type: SessionEventType, data: Prisma.InputJsonObject, at: Date): NewEvent {
  return { id: `evt_${nextUlid(at.getTime())}`, sessionId, type, data, createdAt: at };
}

/** Something that happened to a session, as the services hand it out. */
export interface SessionEventView {
  id: string;
  sessionId: string;
  type: string;
  createdAt: Date;
  /** Details by type: an end's `reason`, a viewer's `viewer_id`, a CDP client count. */
  data: Record<string, unknown>;
}

export function eventView(e: Pick<SessionEvent, "id" | "sessionId" | "type" | "createdAt" | "data"> | NewEvent): SessionEventView {
  return { id: e.id, sessionId: e.sessionId, type: e.type, createdAt: e.createdAt, data: (e.data ?? {}) as Record<string, unknown> };
}

/**
 * An event as it travels between nodes on pub/sub. Its JSON keeps the form older nodes publish and
 * read (snake_case, ISO time), so nodes of two versions understand each other during a rollout.
 */
export function eventMessage(e: SessionEventView): string {
  return JSON.stringify({ id: e.id, session_id: e.sessionId, type: e.type, created_at: e.createdAt.toISOString(), data: e.data });
}

export function readEventMessage(message: string): SessionEventView {
  const m = JSON.parse(message) as { id: string; session_id: string; type: string; created_at: string; data?: Record<string, unknown> };
  return { id: m.id, sessionId: m.session_id, type: m.type, createdAt: new Date(m.created_at), data: m.data ?? {} };
}

export const channelOf = (sessionId: string) => `session-events:${sessionId}`;

/**
 * The INSERT of events, as one plain statement (valid on PGlite and PostgreSQL); publish them with
 * {@link publishEvents} once it has run. Raw rather than Prisma's create: it returns nothing to map,
 * and on the embedded database each statement's preparation costs this process CPU.
 */
export function insertEventsSql(events: NewEvent[]): Prisma.Sql {
  const rows = events.map((e) => Prisma.sql`(${e.id}, ${e.sessionId}, ${e.type}, ${JSON.stringify(e.data)}::jsonb, ${e.createdAt}::timestamptz)`);
  return Prisma.sql`INSERT INTO "session_events" ("id", "session_id", "type", "data", "created_at") VALUES ${Prisma.join(rows)}`;
}

/** After the write: tells every node's waiting readers. Never throws (readers re-read the database anyway). */
export async function publishEvents(pubsub: PubSub, events: NewEvent[], log: Logger): Promise<void> {
  for (const e of events) {
    await pubsub.publish(channelOf(e.sessionId), eventMessage(eventView(e))).catch((err: unknown) => {
      log.warn({ err, sessionId: e.sessionId, type: e.type }, "could not publish a session event");
    });
  }
}

/** Where a workspace's live session lists hear that one of its sessions started or ended. */
export const workspaceSessionsChannel = (workspaceId: string) => `workspace-sessions:${workspaceId}`;

/**
 * After a session's status changed (it started or ended): tells every node's live session lists of
 * its workspace (the dashboard's `workspaceSessions` subscription), with the session's id. Never throws.
 */
export async function publishSessionChange(deps: Pick<AppDeps, "db" | "pubsub" | "log">, sessionId: string, workspaceId?: string): Promise<void> {
  try {
    const workspace = workspaceId ?? (await deps.db.prisma.session.findUnique({ where: { id: sessionId }, select: { workspaceId: true } }))?.workspaceId;
    if (workspace) await deps.pubsub.publish(workspaceSessionsChannel(workspace), sessionId);
  } catch (err) {
    deps.log.warn({ err, sessionId }, "could not publish a session's change to its workspace");
  }
}
