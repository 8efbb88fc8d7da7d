// A session's evidence bundle (`GET /v1/sessions/{id}/bundle`, GraphQL's `sessionBundle`): one zip of
// what Vessel keeps of a session, written as it is read (record 0360).
import { Readable } from "node:stream";
import { Zip, ZipDeflate, ZipPassThrough, type ZipInputFile } from "fflate";
import type { Session } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { openRecording, recordingOf, requireReady, type RecordingView } from "../recordings/recordings.ts";
import { readEvents } from "../session-events/event-feed.ts";
import { eventMessage } from "../session-events/session-events.ts";
import { logReadableSession } from "../session-logs/log-reads.ts";
import { toSessionDto } from "../sessions/session-wire.ts";
import { harOf, logPages } from "./session-har.ts";

export const bundleParts = ["session.json", "events.json", "logs.ndjson", "session.har", "recording.mp4"] as const;
export type BundlePart = (typeof bundleParts)[number];

export interface SessionBundleView {
  sessionId: string;
  /** Where the zip is served (GET), on this deployment's public address. */
  url: string;
  /** The files it holds: `recording.mp4` only when the session has a video. */
  parts: BundlePart[];
  session: Session;
  recording: RecordingView | null;
}

export const bundlePath = (sessionId: string) => `/v1/sessions/${sessionId}/bundle`;
const live = new Set(["PENDING", "RUNNING", "REQUEST_RELEASE"]);
const EVENTS_PAGE = 500;

/**
 * What the session's bundle holds, once it can be made: 409 `recording-not-ready` (with
 * Retry-After) while its video is still being written, so the bundle never lacks a video it will
 * have; a failed, deleted or expired recording is left out. 404 for a session the caller may not read.
 * An audited read (`session.bundle.read`).
 */
export async function getSessionBundle(ctx: ServiceContext, sessionId: string): Promise<SessionBundleView> {
  const session = await logReadableSession(ctx, sessionId);
  const recording = await recordingOf(ctx, sessionId);
  if (!recording && session.recording && live.has(session.status)) {
    throw new AppError(
      "recording-not-ready",
      "The session is still running; its recording, and so its bundle, is ready shortly after it ends.",
      {},
      { "Retry-After": "10" },
    );
  }
  if (recording && recording.status !== "FAILED") requireReady(recording);
  const video = recording?.status === "READY";
  return {
    sessionId,
    url: `${ctx.deps.config.publicBaseUrl}${bundlePath(sessionId)}`,
    parts: bundleParts.filter((p) => p !== "recording.mp4" || video),
    session,
    recording: video ? recording : null,
  };
}

/** The bundle's zip as a stream: each part is read, compressed and handed on as the reader asks for more (the video is stored, not compressed again). */
export function openBundle(ctx: ServiceContext, view: SessionBundleView): Readable {
  return Readable.from(zipBundle(ctx, view), { objectMode: false });
}

const text = (s: string) => new TextEncoder().encode(s);

async function* zipBundle(ctx: ServiceContext, view: SessionBundleView): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failure = err;
    else out.push(chunk);
  });
  const mtime = view.session.endedAt ?? ctx.deps.now();
  const add = <F extends ZipInputFile>(file: F): F => {
    file.mtime = mtime;
    zip.add(file);
    return file;
  };
  /** What the zip has written so far, to hand on. */
  const written = function* (): Generator<Uint8Array> {
    if (failure) throw failure;
    yield* out.splice(0);
  };

  const session = add(new ZipDeflate("session.json", { level: 6 }));
  session.push(text(`${JSON.stringify(toSessionDto(view.session), null, 2)}\n`), true);
  yield* written();

  const events = add(new ZipDeflate("events.json", { level: 6 }));
  events.push(text("["));
  let after: string | undefined;
  let first = true;
  for (;;) {
    const page = await readEvents(ctx, view.sessionId, { after, limit: EVENTS_PAGE, wait: 0 });
    if (page.items.length > 0) {
      events.push(text(`${first ? "\n" : ",\n"}${page.items.map(eventMessage).join(",\n")}`));
      first = false;
    }
    yield* written();
    if (!page.hasMore || page.items.length === 0) break;
    after = page.items.at(-1)!.id;
  }
  events.push(text("\n]\n"), true);
  yield* written();

  const logs = add(new ZipDeflate("logs.ndjson", { level: 6 }));
  for await (const items of logPages(ctx, view.session)) {
    logs.push(text(items.map((e) => `${JSON.stringify({ ...e.data, seq: e.seq, type: e.type, at: e.at.toISOString() })}\n`).join("")));
    yield* written();
  }
  logs.push(new Uint8Array(0), true);
  yield* written();

  const har = add(new ZipDeflate("session.har", { level: 6 }));
  har.push(text(JSON.stringify(await harOf(ctx, view.session), null, 2)), true);
  yield* written();

  if (view.recording) {
    const size = view.recording.sizeBytes ?? 0;
    const video = add(new ZipPassThrough("recording.mp4"));
    if (size > 0) {
      const stream = await openRecording(ctx, view.recording, { start: 0, end: size - 1 });
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        video.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        yield* written();
      }
    }
    video.push(new Uint8Array(0), true);
    yield* written();
  }
  zip.end();
  yield* written();
}
