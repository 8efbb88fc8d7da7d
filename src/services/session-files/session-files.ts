import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";
import { sessionAccess } from "../session-events/event-feed.ts";
import { reserveVolume, UploadReservation } from "./upload-quota.ts";

/**
 * Files put into a running session for its pages' file inputs (POST /v1/sessions/{id}/files). Each
 * lands in the session's `uploads` folder, which the CDP policy accepts for DOM.setFileInputFiles
 * (and so Puppeteer's uploadFile(path); Playwright reads paths on its own machine and is given a buffer instead), in a folder of its own so
 * the page sees the file's own name. The folder is written by this process alone (a jailed browser
 * sees it read-only, browser/jail/jail.ts); the files go with the session's browser folder when it ends. Each
 * upload is a `file.uploaded` event, so any node lists them and the list outlives the files.
 */

export interface SessionFile {
  /** `file_<32 hex>` */
  id: string;
  /** The name the page sees: the uploaded name with path separators, control characters and leading dots removed. */
  name: string;
  size: number;
  sha256: string;
  /** Where the file is, for DOM.setFileInputFiles: inside the session's own folder. */
  path: string;
  uploadedAt: Date;
  /** Whether the file is still there: the session runs. */
  available: boolean;
}

/** What the transport hands over: the name the client gave and the bytes, read once. */
export interface IncomingFile {
  name: string;
  stream: Readable;
  /** What the request says the bytes will be at most (a multipart body's Content-Length), when it says. */
  declaredBytes?: number;
}

const live = ["PENDING", "RUNNING", "REQUEST_RELEASE"];
const NAME_MAX = 200;

/** A file name safe on any file system and harmless to show: never a path, never hidden, never empty. */
export function safeFileName(given: string): string {
  const base = given.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  let name = base
    .normalize("NFC")
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, "_")
    .replace(/^[.\s]+/, "")
    .trim();
  if (Buffer.byteLength(name) > NAME_MAX) {
    const ext = path.extname(name).slice(0, 16);
    while (Buffer.byteLength(name) > NAME_MAX - ext.length) name = name.slice(0, -1);
    name = `${name.slice(0, name.length - ext.length)}${ext}`;
  }
  return name || "file";
}

/** The session's uploads so far, oldest first (from its events: any node can tell). */
export async function listSessionFiles(ctx: ServiceContext, sessionId: string): Promise<SessionFile[]> {
  const { session } = await sessionAccess(ctx, sessionId);
  const running = live.includes(session.status);
  const rows = await prismaOf(ctx).sessionEvent.findMany({
    where: { sessionId, type: "file.uploaded" },
    orderBy: { id: "asc" },
    take: ctx.deps.config.browser.uploadMaxFiles,
  });
  return rows.flatMap((row) => {
    const d = (row.data ?? {}) as Partial<Record<"file_id" | "name" | "sha256" | "path", string>> & { size?: number };
    if (typeof d.file_id !== "string" || typeof d.path !== "string") return [];
    return [{ id: d.file_id, name: d.name ?? "", size: d.size ?? 0, sha256: d.sha256 ?? "", path: d.path, uploadedAt: row.createdAt, available: running }];
  });
}

/**
 * Stores one file in a running session's folder, within VESSEL_UPLOAD_MAX_BYTES and
 * VESSEL_UPLOAD_MAX_FILES for all of the session's files together. Both are reserved before a byte
 * is written (upload-quota.ts): the file slot at once, the bytes up front when the request declares
 * its length (the body is never smaller than its file), else chunk by chunk as they arrive, so
 * uploads in parallel never store more than the limits together. Anything short of a stored file
 * (over a limit, a full volume, a broken stream, a session that ended meanwhile) leaves nothing on
 * disk and gives back what it reserved.
 */
export async function uploadSessionFile(ctx: ServiceContext, sessionId: string, file: IncomingFile): Promise<SessionFile> {
  const { session } = await sessionAccess(ctx, sessionId);
  if (!live.includes(session.status)) throw new AppError("gone", `The session has ended (${session.status}): files go with it.`);
  const lease = ctx.deps.runtime.endpoint(sessionId);
  // REST uploads are relayed to the session's node before they get here (src/app.ts); GraphQL's are not.
  if (!lease && session.nodeId !== ctx.deps.nodeId)
    throw new AppError("conflict", "The session runs on another node: upload with POST /v1/sessions/{id}/files, which is relayed there.");
  if (!lease) throw new AppError("gone", "The session's browser is no longer running.");
  const { uploadMaxBytes: limit, uploadMaxFiles: maxFiles, uploadMinFreeBytes: minFree } = ctx.deps.config.browser;
  if (limit === 0) throw new AppError("forbidden", "Uploads are turned off on this deployment (VESSEL_UPLOAD_MAX_BYTES=0).");
  const root = lease.uploadsDir;
  const id = `file_${randomBytes(16).toString("hex")}`;
  const folder = path.join(root, id);
  const name = safeFileName(file.name);
  const target = path.join(folder, name);
  let quota: UploadReservation;
  try {
    quota = UploadReservation.open(lease, { maxBytes: limit, maxFiles });
  } catch (err) {
    file.stream.resume();
    throw err;
  }
  let releaseVolume = () => {};
  try {
    if (file.declaredBytes !== undefined && file.declaredBytes <= quota.room) quota.take(file.declaredBytes);
    releaseVolume = await reserveVolume(root, quota.reserved || quota.room, minFree);
    // Written by this process only; refuse anything but the real folder (never follow a link).
    if (!fs.lstatSync(root).isDirectory()) throw new AppError("conflict", "The session's folder is not usable.");
    fs.mkdirSync(folder, { mode: 0o755 });
    const hash = createHash("sha256");
    let size = 0;
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    const out = (await fs.promises.open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644)).createWriteStream();
    await pipeline(
      file.stream,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          size += chunk.length;
          if (size > quota.reserved && !quota.take(size - quota.reserved)) {
            throw new AppError(
              "payload-too-large",
              `The session's uploads may take ${limit} bytes together (VESSEL_UPLOAD_MAX_BYTES), uploads in progress included.`,
            );
          }
          hash.update(chunk);
          yield chunk;
        }
      },
      out,
    );
    // The session may have ended while the bytes came: its folder is then gone, or going.
    if (!ctx.deps.runtime.endpoint(sessionId)) throw new AppError("gone", "The session ended during the upload.");
    const stored = { file_id: id, name, size, sha256: hash.digest("hex"), path: target };
    const event = await ctx.deps.events.record(sessionId, "file.uploaded", stored);
    quota.settle(size);
    return { id, name, size, sha256: stored.sha256, path: target, uploadedAt: event?.createdAt ?? ctx.deps.now(), available: true };
  } catch (err) {
    fs.rmSync(folder, { recursive: true, force: true });
    quota.release();
    file.stream.resume(); // what is left of the request is read and dropped, so the answer can go out
    // The session's folder went with its browser (the session ended meanwhile): not a fault of ours.
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new AppError("gone", "The session ended during the upload.");
    throw err;
  } finally {
    releaseVolume(); // stored (statfs now shows it) or removed
  }
}
