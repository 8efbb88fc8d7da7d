import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * The thread that judges large CDP messages (at least OFF_LOOP_BYTES) for the relay (cdp-relay.ts).
 * Parsing, judging and re-serialising a message costs the thread doing it about 15–25 ms per MiB
 * (bench/front-door.ts); on the node's event loop a 16 MiB message stopped every session, the API
 * and the live views for a quarter of a second. Here the loop only hands the message's bytes over
 * (transferred, not copied) and writes the judged bytes that come back to the pipe. One thread per
 * process, started by the first large message, never holding the process open. Small messages stay
 * on the loop: handing one over would cost more than judging it (0.1–0.4 µs after its parse).
 */
export const OFF_LOOP_BYTES = 256 * 1024;

export interface JudgeRequest {
  seq: number;
  data: Uint8Array;
  policy: boolean;
  downloads: string;
  /** The channel's root session: where a command without a sessionId goes. */
  root: string;
}
export type JudgeReply =
  | { seq: number; kind: "answer"; answer: string; refused?: { method: string; reason: string } }
  | {
    seq: number;
    kind: "send";
    id: number;
    method: string;
    sessionId?: string;
    redirected: boolean;
    downloadContext: string | null | undefined;
    /** The judged command as the pipe takes it, NUL included. */
    bytes: Uint8Array;
  }
  | { seq: number; kind: "failed"; message: string };
export type JudgeResult = Exclude<JudgeReply, { kind: "failed" }>;

// The worker is TypeScript like the rest: under tsx it loads as any module; where no loader for .ts
// is active in the thread (vitest's workers), tsx's is registered there first.
const BOOT = `
const { workerData } = require("node:worker_threads");
import(workerData.url).catch(async (err) => {
  if (err?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
  (await import(workerData.tsx)).register();
  await import(workerData.url + "?tsx"); // the failed import stays cached under its own URL
});`;
const workerUrl = new URL("./cdp-judge-worker.ts", import.meta.url).href;
// tsx's ES module API (the `import` condition of tsx/esm/api, which require.resolve would not pick).
const tsxUrl = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;

let worker: Worker | undefined;
let nextSeq = 1;
const waiting = new Map<number, { resolve(r: JudgeResult): void; reject(err: Error): void }>();

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function thread(): Worker {
  if (worker) return worker;
  const w = (worker = new Worker(BOOT, { eval: true, workerData: { url: workerUrl, tsx: tsxUrl } }));
  w.unref();
  w.on("message", (reply: JudgeReply) => {
    const waiter = waiting.get(reply.seq);
    if (!waiter) return;
    waiting.delete(reply.seq);
    if (reply.kind === "failed") waiter.reject(new Error(reply.message));
    else waiter.resolve(reply.kind === "send" ? { ...reply, bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength) } : reply);
  });
  w.on("error", (err) => failAll(err));
  w.on("exit", () => {
    if (worker === w) worker = undefined;
    failAll(new Error("the CDP judging thread exited"));
  });
  return w;
}

/**
 * Parses and judges one client message on the judging thread. `data` is handed over: its memory
 * is the thread's from here on (transferred when it spans its whole ArrayBuffer, as a large message
 * received whole does; copied once otherwise), so the caller must not read it again.
 */
export function judgeOffLoop(data: Buffer, policy: boolean, downloads: string, root: string): Promise<JudgeResult> {
  const own = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : Buffer.from(data);
  const seq = nextSeq++;
  const w = thread();
  return new Promise((resolve, reject) => {
    waiting.set(seq, { resolve, reject });
    w.ref(); // a judgement on its way keeps the thread's port alive; unref'd again when none is
    const request: JudgeRequest = { seq, data: own, policy, downloads, root };
    w.postMessage(request, [own.buffer as ArrayBuffer]);
  }).finally(() => {
    if (waiting.size === 0) worker?.unref();
  }) as Promise<JudgeResult>;
}
