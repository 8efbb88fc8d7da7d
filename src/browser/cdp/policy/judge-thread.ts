import { offLoopThread, ownBuffer } from "../../../off-loop-thread.ts";

/**
 * The thread that judges large CDP messages (at least OFF_LOOP_BYTES) for the relay (browser/cdp/relay/relay.ts).
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
  /** The channel's root attachment: where a command without a sessionId goes. */
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

const judge = offLoopThread<JudgeReply>(new URL("./judge-worker.ts", import.meta.url), "CDP judging");

/**
 * Parses and judges one client message on the judging thread. `data` is handed over: its memory
 * is the thread's from here on (transferred when it spans its whole ArrayBuffer, as a large message
 * received whole does; copied once otherwise), so the caller must not read it again.
 */
export async function judgeOffLoop(data: Buffer, policy: boolean, downloads: string, root: string): Promise<JudgeResult> {
  const own = ownBuffer(data);
  const reply = await judge((seq) => ({ seq, data: own, policy, downloads, root }) satisfies JudgeRequest, [own.buffer as ArrayBuffer]);
  if (reply.kind === "failed") throw new Error(reply.message);
  return reply.kind === "send" ? { ...reply, bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength) } : reply;
}
