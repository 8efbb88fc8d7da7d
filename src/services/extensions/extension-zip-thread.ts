import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

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

// As cdp-judge-thread.ts: the worker is TypeScript; where no loader for .ts is active in the thread
// (vitest's workers), tsx's is registered there first.
const BOOT = `
const { workerData } = require("node:worker_threads");
import(workerData.url).catch(async (err) => {
  if (err?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
  (await import(workerData.tsx)).register();
  await import(workerData.url + "?tsx");
});`;
const workerUrl = new URL("./extension-zip-worker.ts", import.meta.url).href;
const tsxUrl = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;

let worker: Worker | undefined;
let nextSeq = 1;
const waiting = new Map<number, { resolve(r: PrepareResult): void; reject(err: Error): void }>();

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function thread(): Worker {
  if (worker) return worker;
  const w = (worker = new Worker(BOOT, { eval: true, workerData: { url: workerUrl, tsx: tsxUrl } }));
  w.unref();
  w.on("message", (reply: PrepareReply) => {
    const waiter = waiting.get(reply.seq);
    if (!waiter) return;
    waiting.delete(reply.seq);
    if (reply.kind === "failed") waiter.reject(new Error(`preparing an extension failed: ${reply.message}`));
    else waiter.resolve(reply);
  });
  w.on("error", (err) => failAll(err));
  w.on("exit", () => {
    if (worker === w) worker = undefined;
    failAll(new Error("the extension thread exited"));
  });
  return w;
}

/** Reads, checks and unpacks `zip` into `folder` on the extension thread (the zip is copied there). */
export function prepareOffLoop(zip: Uint8Array, folder: string, sha256?: string): Promise<PrepareResult> {
  const seq = nextSeq++;
  const w = thread();
  return new Promise<PrepareResult>((resolve, reject) => {
    waiting.set(seq, { resolve, reject });
    w.ref(); // a zip on its way keeps the thread alive; unref'd again when none is
    const request: PrepareRequest = { seq, zip, folder, ...(sha256 !== undefined ? { sha256 } : {}) };
    w.postMessage(request);
  }).finally(() => {
    if (waiting.size === 0) worker?.unref();
  });
}
