import type { Readable } from "node:stream";
import { RecordingKeyError, unwrapRecordingKey } from "../../crypto/recording-crypto.ts";
import type { Recording, Session } from "../../generated/prisma/client.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { prismaOf } from "../../kernel/support.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { sessionAccess } from "../session-events/event-feed.ts";
import { readRange, removeStored } from "./recording-store.ts";

/**
 * A session's video (the API's side; recorder.ts makes it). Workspace-scoped like its session:
 * another workspace's is indistinguishable from none. The bytes are served only READY, decrypted
 * chunk by chunk as a range needs them; every read is audited (`session.recording.read`).
 */

export type RecordingStatus = Recording["status"];

/** A recording as the services hand it out. */
export interface RecordingView {
  sessionId: string;
  status: RecordingStatus;
  contentType: string;
  sizeBytes: number | null;
  durationMs: number | null;
  frames: number | null;
  width: number | null;
  height: number | null;
  /** Why it failed (FAILED only), in a few words. */
  failure: string | null;
  startedAt: Date;
  endedAt: Date | null;
  readyAt: Date | null;
  expiresAt: Date;
  /** Where its bytes are served (GET, with ranges), on this deployment's public address. */
  url: string;
}

export const recordingPath = (sessionId: string) => `/v1/sessions/${sessionId}/recording`;

const live = new Set(["PENDING", "RUNNING", "REQUEST_RELEASE"]);
const NONE = "This session has no recording: it was not recorded, or its recording was deleted or has expired.";

function toView(ctx: ServiceContext, r: Recording): RecordingView {
  return {
    sessionId: r.sessionId,
    status: r.status,
    contentType: r.contentType,
    sizeBytes: r.sizeBytes,
    durationMs: r.durationMs,
    frames: r.frames,
    width: r.width,
    height: r.height,
    failure: r.failure,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    readyAt: r.readyAt,
    expiresAt: r.expiresAt,
    url: `${ctx.deps.config.publicBaseUrl}${recordingPath(r.sessionId)}`,
  };
}

/**
 * The session, if the caller may see it: a key of its workspace or a member (`ctx.workspace`, when a
 * dashboard user names it, must be the session's; an API key naming another is refused).
 */
async function accessibleSession(ctx: ServiceContext, sessionId: string): Promise<Session> {
  if (ctx.workspace === undefined) return (await sessionAccess(ctx, sessionId)).session;
  const workspaceId = await actingWorkspace(ctx, "read its sessions' recordings");
  const session = await prismaOf(ctx).session.findFirst({ where: { id: sessionId, workspaceId } });
  if (!session) throw new AppError("not-found", "No session with this id in this workspace.");
  if (ctx.audit) ctx.audit.target = sessionId;
  return session;
}

async function rowOf(ctx: ServiceContext, sessionId: string): Promise<Recording | null> {
  const row = await prismaOf(ctx).recording.findUnique({ where: { sessionId } });
  // Past its retention it is gone, whether or not the job has deleted it yet.
  return row && row.expiresAt > ctx.deps.now() ? row : null;
}

/** The session's recording (any status): `sessionRecording`, audited as a read. 404 when there is none. */
export async function getRecording(ctx: ServiceContext, sessionId: string): Promise<RecordingView> {
  const session = await accessibleSession(ctx, sessionId);
  const row = await rowOf(ctx, sessionId);
  // A recorded session that has just started may not have its row yet (it is written after the create's answer).
  if (!row && session.recording && live.has(session.status)) throw stillRecording();
  if (!row) throw new AppError("not-found", NONE);
  return toView(ctx, row);
}

/** The recording of a session the caller has already been allowed to read (GraphQL's Session.recordingInfo), or null. */
export async function recordingOf(ctx: ServiceContext, sessionId: string): Promise<RecordingView | null> {
  const row = await rowOf(ctx, sessionId);
  return row && toView(ctx, row);
}

const stillRecording = () =>
  new AppError("recording-not-ready", "The session is still running; its recording is ready shortly after it ends.", {}, { "Retry-After": "10" });

/** Throws unless the recording's bytes can be served now: 409 with Retry-After while it is made, 404 when it failed. */
export function requireReady(view: RecordingView): { sizeBytes: number } {
  if (view.status === "RECORDING") throw stillRecording();
  if (view.status === "PROCESSING") {
    throw new AppError("recording-not-ready", "The session has ended and its recording is being encoded and stored.", {}, { "Retry-After": "2" });
  }
  if (view.status === "FAILED")
    throw new AppError("not-found", `This session's recording failed (${view.failure ?? "no reason recorded"}); there is no video.`);
  return { sizeBytes: view.sizeBytes ?? 0 };
}

/** Bytes `start`…`end` (inclusive) of a READY recording, decrypted as they are read. */
export async function openRecording(ctx: ServiceContext, view: RecordingView, range: { start: number; end: number }): Promise<Readable> {
  requireReady(view);
  const row = await rowOf(ctx, view.sessionId);
  if (!row || row.status !== "READY" || row.sizeBytes === null) throw new AppError("not-found", NONE);
  let dataKey: Buffer;
  try {
    dataKey = unwrapRecordingKey(ctx.deps.masterKey, row);
  } catch (err) {
    if (!(err instanceof RecordingKeyError)) throw err;
    ctx.log.error({ err, sessionId: row.sessionId }, "a recording's key could not be unwrapped");
    throw new AppError("internal-error", "The recording could not be decrypted.");
  }
  return readRange({ prisma: prismaOf(ctx), config: ctx.deps.config }, { ...row, sizeBytes: row.sizeBytes }, dataKey, range.start, range.end);
}

/**
 * Deletes the session's recording at any status: the row with its wrapped data key (so no copy of
 * the chunks can be read again), the chunks or file with it. A recording still being made is
 * dropped when its session ends. 404 when there is none.
 */
export async function deleteRecording(ctx: ServiceContext, sessionId: string): Promise<void> {
  await accessibleSession(ctx, sessionId);
  const row = await auditedTransaction(ctx, async (tx, audit) => {
    const found = await tx.recording.findUnique({ where: { sessionId }, select: { sessionId: true, storage: true } });
    if (!found) return null;
    await tx.recording.delete({ where: { sessionId } });
    await audit(sessionId);
    return found;
  });
  if (!row) throw new AppError("not-found", NONE);
  await removeStored({ prisma: prismaOf(ctx), config: ctx.deps.config }, row);
  ctx.log.info({ sessionId }, "recording deleted");
}
