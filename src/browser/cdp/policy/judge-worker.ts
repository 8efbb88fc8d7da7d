import { parentPort } from "node:worker_threads";
import { commandOutcome } from "./command.ts";
import type { JudgeReply, JudgeRequest } from "./judge-thread.ts";

// The judging thread's body (judge-thread.ts starts it): a large client message is parsed,
// judged and serialised for the pipe here, off the node's event loop; its bytes come and go by
// transfer, never copied between the threads.

parentPort!.on("message", (request: JudgeRequest) => {
  let reply: JudgeReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const outcome = commandOutcome(request.data, request.policy, request.downloads);
    if (outcome.kind === "answer") {
      reply = { seq: request.seq, kind: "answer", answer: outcome.answer, ...(outcome.refused ? { refused: outcome.refused } : {}) };
    } else {
      const { id, method, params, sessionId } = outcome.command;
      // What CdpChannel.send writes (browser/cdp/pipe/pipe.ts): the judged fields only, to the root attachment unless another is named.
      const bytes = Buffer.from(JSON.stringify({ id, method, params: params ?? {}, sessionId: sessionId ?? request.root }) + "\0", "utf8");
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(bytes);
      reply = {
        seq: request.seq,
        kind: "send",
        id,
        method,
        ...(sessionId !== undefined ? { sessionId } : {}),
        redirected: outcome.redirected,
        downloadContext: outcome.downloadContext,
        bytes: own,
      };
      transfer = [own.buffer as ArrayBuffer];
    }
  } catch (err) {
    reply = { seq: request.seq, kind: "failed", message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply, transfer);
});
