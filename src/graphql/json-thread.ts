import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * JSON.parse off the event loop, for large GraphQL request bodies (large-body.ts): one thread, started
 * on first use, parsing one body after another. The loop then spends only the structured clone of the
 * result, which costs about what parsing did per value (not per byte): so the values are counted
 * here, and a body with too many is refused before it reaches the loop (decision 0145).
 */

export interface JsonRequest {
  seq: number;
  data: Uint8Array;
  maxValues: number;
}
/** Not ok: not JSON, or (with `values`) more values than allowed. */
export type JsonReply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; values?: number };

// As the CDP judging thread (browser/cdp-judge-thread.ts): TypeScript under tsx, or tsx registered in the thread first.
const BOOT = `
const { workerData } = require("node:worker_threads");
import(workerData.url).catch(async (err) => {
  if (err?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
  (await import(workerData.tsx)).register();
  await import(workerData.url + "?tsx");
});`;
const workerUrl = new URL("./json-worker.ts", import.meta.url).href;
const tsxUrl = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;

let worker: Worker | undefined;
let nextSeq = 1;
const waiting = new Map<number, { resolve(r: JsonReply): void; reject(err: Error): void }>();

function thread(): Worker {
  if (worker) return worker;
  const w = (worker = new Worker(BOOT, { eval: true, workerData: { url: workerUrl, tsx: tsxUrl } }));
  w.unref();
  w.on("message", (reply: JsonReply) => {
    const waiter = waiting.get(reply.seq);
    waiting.delete(reply.seq);
    waiter?.resolve(reply);
  });
  const fail = (err: Error) => {
    for (const waiter of waiting.values()) waiter.reject(err);
    waiting.clear();
  };
  w.on("error", fail);
  w.on("exit", () => {
    if (worker === w) worker = undefined;
    fail(new Error("the JSON thread exited"));
  });
  return w;
}

/**
 * Parses UTF-8 JSON in the thread: its value, or why not (not JSON; more than `maxValues` values, which
 * would cost the loop too much to take in). The buffer is transferred: do not use it afterwards.
 */
export function parseJsonOffLoop(data: Buffer, maxValues: number): Promise<{ value: unknown } | { invalid: true } | { values: number }> {
  const own = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : Buffer.from(data);
  const seq = nextSeq++;
  const w = thread();
  return new Promise<JsonReply>((resolve, reject) => {
    waiting.set(seq, { resolve, reject });
    w.ref();
    w.postMessage({ seq, data: own, maxValues } satisfies JsonRequest, [own.buffer as ArrayBuffer]);
  })
    .then((reply) => (reply.ok ? { value: reply.value } : reply.values !== undefined ? { values: reply.values } : { invalid: true as const }))
    .finally(() => {
      if (waiting.size === 0) worker?.unref();
    });
}
