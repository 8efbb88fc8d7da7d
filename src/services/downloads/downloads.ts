import fs from "node:fs";
import path from "node:path";
import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { sessionAccess } from "../session-events/event-feed.ts";
import { prismaOf } from "../../kernel/support.ts";

/**
 * A session's downloads (issue: browser-side security). Chromium saves them in the session's own
 * folder, under a size cap (browser/downloads/download-guard.ts); each one is recorded as events, so any node
 * can list them and the list outlives the session. The files themselves live only on the node
 * that runs the session, and only while it runs: they go with its folder when it ends.
 */

/** A file a session's page downloaded, as its events tell it. */
export interface Download {
  /** Chromium's id for the download (a UUID). */
  id: string;
  /** The file name the site suggested. */
  name: string;
  state: "in_progress" | "completed" | "canceled" | "refused";
  /** Size when completed; bytes received so far otherwise. */
  bytes: number;
  /** Why it was refused (the size cap, for example). */
  reason: string | null;
  startedAt: Date;
  endedAt: Date | null;
  /** Whether the file can be fetched now: completed, and the session still running. */
  available: boolean;
}

const live = ["PENDING", "RUNNING", "REQUEST_RELEASE"];
const DOWNLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The guard refuses downloads beyond its count cap, so a session never has more events than this. */
const MAX_EVENTS = 1_000;

const endStates = { "download.completed": "completed", "download.canceled": "canceled", "download.refused": "refused" } as const;

/** A session's downloads, oldest first, from its events (bytes of a running one from the browser's node). */
export async function listDownloads(ctx: ServiceContext, sessionId: string): Promise<Download[]> {
  const { session } = await sessionAccess(ctx, sessionId);
  const rows = await prismaOf(ctx).sessionEvent.findMany({
    where: { sessionId, type: { in: ["download.started", ...Object.keys(endStates)] } },
    orderBy: { id: "asc" },
    take: MAX_EVENTS,
  });
  const running = live.includes(session.status);
  const guard = ctx.deps.runtime.endpoint(sessionId)?.downloads;
  const byId = new Map<string, Download>();
  for (const row of rows) {
    const data = (row.data ?? {}) as { download_id?: string; name?: string; bytes?: number; reason?: string };
    if (typeof data.download_id !== "string") continue;
    const at = row.createdAt;
    let item = byId.get(data.download_id);
    if (!item) {
      item = { id: data.download_id, name: data.name ?? "", state: "in_progress", bytes: 0, reason: null, startedAt: at, endedAt: null, available: false };
      byId.set(item.id, item);
    }
    if (row.type === "download.started") continue;
    item.state = endStates[row.type as keyof typeof endStates];
    item.bytes = typeof data.bytes === "number" ? data.bytes : item.bytes;
    item.reason = typeof data.reason === "string" ? data.reason : null;
    item.endedAt = at;
  }
  for (const item of byId.values()) {
    if (item.state === "in_progress") item.bytes = guard?.get(item.id)?.bytes ?? item.bytes;
    item.available = running && item.state === "completed";
  }
  return [...byId.values()];
}

/** One download's description (what GraphQL answers; REST serves the file itself). */
export async function getDownload(ctx: ServiceContext, sessionId: string, downloadId: string): Promise<Download> {
  const found = DOWNLOAD_ID.test(downloadId) ? (await listDownloads(ctx, sessionId)).find((d) => d.id === downloadId) : undefined;
  if (!found) throw new AppError("not-found", "No download with this id in this session.");
  return found;
}

export interface DownloadFile {
  name: string;
  size: number;
  open(): fs.ReadStream;
}

/**
 * A finished download's file, on the node that runs the session (the cluster relays the request
 * there). Only files inside the session's own folder are ever opened.
 */
export async function openDownload(ctx: ServiceContext, sessionId: string, download: Download): Promise<DownloadFile> {
  if (!download.available && download.state === "completed") {
    throw new AppError("gone", "The session has ended; its downloads were deleted with its browser.");
  }
  if (download.state !== "completed")
    throw new AppError("conflict", `The download is ${download.state.replace("_", " ")}; only completed downloads can be fetched.`);
  const guard = ctx.deps.runtime.endpoint(sessionId)?.downloads;
  const file = guard?.get(download.id)?.file;
  if (!guard || !file) throw new AppError("gone", "The session's browser is no longer running here; its downloads went with it.");
  let real: string;
  let folder: string;
  try {
    real = fs.realpathSync(file);
    folder = fs.realpathSync(guard.folder);
  } catch {
    throw new AppError("gone", "The downloaded file is no longer there.");
  }
  if (!real.startsWith(folder + path.sep)) throw new AppError("not-found", "No download with this id in this session.");
  const { size } = fs.statSync(real);
  return { name: download.name, size, open: () => fs.createReadStream(real) };
}
