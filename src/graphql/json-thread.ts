import { offLoopThread, ownBuffer } from "../off-loop-thread.ts";

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

const parse = offLoopThread<JsonReply>(new URL("./json-worker.ts", import.meta.url), "JSON");

/**
 * Parses UTF-8 JSON in the thread: its value, or why not (not JSON; more than `maxValues` values, which
 * would cost the loop too much to take in). The buffer is transferred: do not use it afterwards.
 */
export async function parseJsonOffLoop(data: Buffer, maxValues: number): Promise<{ value: unknown } | { invalid: true } | { values: number }> {
  const own = ownBuffer(data);
  const reply = await parse((seq) => ({ seq, data: own, maxValues }) satisfies JsonRequest, [own.buffer as ArrayBuffer]);
  return reply.ok ? { value: reply.value } : reply.values !== undefined ? { values: reply.values } : { invalid: true };
}
