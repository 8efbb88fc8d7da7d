import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type Transferable } from "node:worker_threads";

/**
 * One worker thread per process for work that must not hold the event loop (judging CDP commands,
 * unpacking extension zips, parsing large GraphQL bodies): started on first use, never holding the
 * process open while idle, requests matched to replies by a sequence number. Each use has its own
 * worker module and message shapes; this is only the plumbing they shared word for word.
 */

// The workers are TypeScript like the rest: under tsx they load as any module; where no loader for
// .ts is active in the thread (vitest's workers), tsx's is registered there first.
const BOOT = `
const { workerData } = require("node:worker_threads");
import(workerData.url).catch(async (err) => {
  if (err?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
  (await import(workerData.tsx)).register();
  await import(workerData.url + "?tsx"); // the failed import stays cached under its own URL
});`;
// tsx's ES module API (the `import` condition of tsx/esm/api, which require.resolve would not pick).
const tsxUrl = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;

/** Sends one request (built around its sequence number) and answers the thread's reply to it. */
export type OffLoopCall<Reply> = (request: (seq: number) => object, transfer?: readonly Transferable[]) => Promise<Reply>;

/** A thread running `workerUrl`; `name` is said in the error when the thread exits with work waiting. */
export function offLoopThread<Reply extends { seq: number }>(workerUrl: URL, name: string): OffLoopCall<Reply> {
  let worker: Worker | undefined;
  let nextSeq = 1;
  const waiting = new Map<number, { resolve(r: Reply): void; reject(err: Error): void }>();
  const failAll = (err: Error) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  const thread = (): Worker => {
    if (worker) return worker;
    const w = (worker = new Worker(BOOT, { eval: true, workerData: { url: workerUrl.href, tsx: tsxUrl } }));
    w.unref();
    w.on("message", (reply: Reply) => {
      const waiter = waiting.get(reply.seq);
      waiting.delete(reply.seq);
      waiter?.resolve(reply);
    });
    w.on("error", failAll);
    w.on("exit", () => {
      if (worker === w) worker = undefined;
      failAll(new Error(`the ${name} thread exited`));
    });
    return w;
  };
  return (request, transfer = []) => {
    const seq = nextSeq++;
    const w = thread();
    return new Promise<Reply>((resolve, reject) => {
      waiting.set(seq, { resolve, reject });
      w.ref(); // work on its way keeps the thread's port alive; unref'd again when none is
      w.postMessage(request(seq), transfer);
    }).finally(() => {
      if (waiting.size === 0) worker?.unref();
    });
  };
}

/** `data` as a buffer spanning its whole ArrayBuffer, so it can be transferred (copied once when it does not). */
export function ownBuffer(data: Buffer): Buffer {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : Buffer.from(data);
}
