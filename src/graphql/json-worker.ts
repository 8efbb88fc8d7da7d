import { parentPort } from "node:worker_threads";
import type { JsonReply, JsonRequest } from "./json-thread.ts";

// The JSON thread's body (json-thread.ts starts it): a large GraphQL request body is decoded and
// parsed here, off the node's event loop; its bytes arrive by transfer.

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

parentPort!.on("message", (request: JsonRequest) => {
  let reply: JsonReply;
  try {
    let values = 0;
    const value: unknown = JSON.parse(decoder.decode(request.data), (_key, v: unknown) => (values++, v));
    // Every value costs the event loop its share of the copy to the node's thread (and of execution after).
    reply = values > request.maxValues ? { seq: request.seq, ok: false, values } : { seq: request.seq, ok: true, value };
  } catch {
    reply = { seq: request.seq, ok: false };
  }
  parentPort!.postMessage(reply);
});
