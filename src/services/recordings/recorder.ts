import fs from "node:fs";
import path from "node:path";
import type { BrowserLease } from "../../browser/pool/types.ts";
import { ScreenRecorder } from "../../browser/recording/screen-recorder.ts";
import { VideoEncoder, type EncodedVideo } from "../../browser/recording/video-encoder.ts";
import { newRecordingKey, RECORDING_CHUNK_BYTES, unwrapRecordingKey } from "../../crypto/recording-crypto.ts";
import type { Recording, Session } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import type { Logger } from "../../logger.ts";
import { removeStored, storageFor, storeSealed } from "./recording-store.ts";

/** Debian's ffmpeg (scripts/setup.sh installs it); VESSEL_FFMPEG_PATH overrides it (keep it under /usr: the jail sees only /usr). */
export const DEFAULT_FFMPEG = "/usr/bin/ffmpeg";
const DAY_MS = 24 * 3600 * 1000;

/** What a failed recording says about itself (its row, the API): short, no paths or tool output (those go to the log). */
class RecordingFailure extends Error {}

/**
 * Starts recording a session's screen as it starts (called before its create is answered), and
 * finishes the video after it ends:
 *
 * 1. now: the row (RECORDING, its own data key wrapped by the master key), the capture on a channel
 *    of the node's own (browser/recording/screen-recorder.ts) into ffmpeg (browser/recording/video-encoder.ts), and a
 *    finisher that stops the capture as the session ends, before its browser closes;
 * 2. after the end (PROCESSING): ffmpeg completes the MP4, which is sealed in chunks into the
 *    recording's storage (recording-store.ts), then READY and a `recording.ready` event; or FAILED.
 *
 * The node keeps the whole of it in `deps.recordings`, which a drain or a stop waits for.
 */
export function startRecording(deps: AppDeps, session: Session, lease: BrowserLease): void {
  const log = deps.log.child({ component: "recording", sessionId: session.id });
  const startedAt = session.startedAt ?? deps.now();
  const ffmpegPath = deps.config.recording.ffmpegPath ?? DEFAULT_FFMPEG;
  const jail = deps.browsers.isolation.level === "jail";
  if (!jail) deps.recordings.warnUnjailed(log);
  const dir = fs.mkdtempSync(path.join(deps.recordings.workRoot, `${session.id}-`));
  const encoder = new VideoEncoder({ ffmpegPath, dir, jail, originMs: startedAt.getTime(), log });
  const capture = ScreenRecorder.start(lease.cdp, encoder, log);
  capture.catch((err: unknown) => log.warn({ err }, "recording: the capture could not start"));
  const stopCapture = async () => (await capture.catch(() => undefined))?.stop();
  const ended = new Promise<number>((resolve) => {
    const registered = deps.runtime.addFinisher(session.id, async () => {
      const at = Date.now();
      // The video is finished once no frame can come any more (stop may add the only one).
      await stopCapture().finally(() => resolve(at));
    });
    if (!registered) resolve(Date.now());
  });
  const work = (async () => {
    try {
      // After the create's answer is on its way: on the embedded database this statement would queue ahead of the create's own.
      await new Promise((resolve) => setImmediate(resolve));
      await insertRow(deps, session, startedAt);
    } catch (err) {
      log.error({ err }, "recording: its row could not be written; the session is not recorded");
      encoder.abort();
      await stopCapture();
      return;
    }
    await finish(deps, session.id, encoder, ended, log);
  })().finally(() => {
    encoder.abort();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  deps.recordings.track(work);
}

async function insertRow(deps: AppDeps, session: Session, startedAt: Date): Promise<void> {
  const { wrappedKey, masterKeyId } = newRecordingKey(deps.masterKey, session.id);
  await deps.db.prisma.recording.create({
    data: {
      sessionId: session.id,
      workspaceId: session.workspaceId,
      status: "RECORDING",
      storage: storageFor(deps.db.kind, deps.config),
      nodeId: deps.nodeId,
      chunkBytes: RECORDING_CHUNK_BYTES,
      wrappedKey,
      masterKeyId,
      startedAt,
      expiresAt: new Date(startedAt.getTime() + deps.config.recording.retentionDays * DAY_MS),
    },
  });
}

/** After the session's end: the MP4 completed, sealed, stored; READY, or FAILED with a reason. */
async function finish(deps: AppDeps, sessionId: string, encoder: VideoEncoder, ended: Promise<number>, log: Logger): Promise<void> {
  const { prisma } = deps.db;
  const endAt = await ended;
  // After the answer of the call that ended the session is on its way (as for the row at the start).
  await new Promise((resolve) => setImmediate(resolve));
  const storage = { prisma, config: deps.config };
  let rec: Recording | null = null;
  try {
    const session = await prisma.session.findUnique({ where: { id: sessionId }, select: { endedAt: true } });
    const endedAt = session?.endedAt ?? new Date(endAt);
    await prisma.recording.updateMany({ where: { sessionId, status: "RECORDING" }, data: { status: "PROCESSING", endedAt } });
    const video = await encoder.finish(endedAt.getTime()).catch((err: unknown) => {
      log.warn({ err, dropped: encoder.dropped }, "recording: the video could not be encoded");
      throw new RecordingFailure((err as Error).message === "no frame was captured" ? "no frame was captured" : "the video could not be encoded");
    });
    rec = await prisma.recording.findUnique({ where: { sessionId } });
    if (!rec) return; // deleted meanwhile: nothing to store
    const size = await store(deps, rec, video, log);
    const { count } = await prisma.recording.updateMany({
      where: { sessionId, status: "PROCESSING" },
      data: {
        status: "READY",
        sizeBytes: size,
        durationMs: video.durationMs,
        frames: video.frames,
        width: video.width,
        height: video.height,
        readyAt: deps.now(),
      },
    });
    if (count === 0) return void (await removeStored(storage, rec)); // deleted while it was being stored
    log.info({ bytes: size, durationMs: video.durationMs, frames: video.frames, dropped: encoder.dropped }, "recording ready");
    await deps.events.record(sessionId, "recording.ready", { size_bytes: size, duration_ms: video.durationMs });
  } catch (err) {
    const reason = err instanceof RecordingFailure ? err.message : "the video could not be stored";
    if (!(err instanceof RecordingFailure)) log.error({ err }, "recording: could not be stored");
    const { count } = await prisma.recording
      .updateMany({ where: { sessionId, status: { in: ["RECORDING", "PROCESSING"] } }, data: { status: "FAILED", failure: reason } })
      .catch(() => ({ count: 0 }));
    if (rec) await removeStored(storage, rec).catch((e: unknown) => log.warn({ err: e }, "recording: what was stored could not be removed"));
    if (count > 0) await deps.events.record(sessionId, "recording.failed", { reason }).catch(() => null);
  }
}

/** Seals the MP4 into the recording's storage under its data key; answers its size. */
async function store(deps: AppDeps, rec: Recording, video: EncodedVideo, log: Logger): Promise<number> {
  const dataKey = unwrapRecordingKey(deps.masterKey, rec);
  try {
    return await storeSealed({ prisma: deps.db.prisma, config: deps.config }, rec, dataKey, video.file);
  } catch (err) {
    log.error({ err }, "recording: sealing or storing failed");
    throw err;
  } finally {
    dataKey.fill(0);
  }
}
