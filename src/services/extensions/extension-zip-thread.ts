import { offLoopThread } from "../../off-loop-thread.ts";

/**
 * The thread that reads, checks and unpacks extension zips (extension-zip-worker.ts). On the event
 * loop, one 0.45 MB zip inflating to 63 MiB stopped every request of the node for 0.5 s on a quiet
 * machine and 2–5 s on a busy one (bench/extension-zip.ts); here the loop only hands the zip over and
 * learns the outcome. One thread per process, started by the first zip, never holding the process
 * open; zips queue on it one at a time, so uploads cannot take more than one core together.
 */

export interface PrepareRequest {
  seq: number;
  zip: Uint8Array;
  /** The prepared folder to make (it must not be a path any client can choose). */
  folder: string;
  /** The digest the zip must have (a stored zip prepared again); unset at upload. */
  sha256?: string;
}
export type PrepareReply =
  | { seq: number; kind: "prepared"; name: string; version: string; sha256: string; files: number; bytes: number }
  | { seq: number; kind: "invalid"; why: string }
  | { seq: number; kind: "refused"; permission: string; why: string }
  | { seq: number; kind: "failed"; message: string };
export type PrepareResult = Exclude<PrepareReply, { kind: "failed" }>;

const prepare = offLoopThread<PrepareReply>(new URL("./extension-zip-worker.ts", import.meta.url), "extension");

/** Reads, checks and unpacks `zip` into `folder` on the extension thread (the zip is copied there). */
export async function prepareOffLoop(zip: Uint8Array, folder: string, sha256?: string): Promise<PrepareResult> {
  const reply = await prepare((seq) => ({ seq, zip, folder, ...(sha256 !== undefined ? { sha256 } : {}) }) satisfies PrepareRequest);
  if (reply.kind === "failed") throw new Error(`preparing an extension failed: ${reply.message}`);
  return reply;
}
