import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { CdpPipe } from "../pipe/pipe.ts";
import { attachmentOf, nulFramed } from "../pipe/wire.ts";

/**
 * One browser's pipe as the relay host (host-process.ts) holds it, shared two ways: the
 * host's own CdpPipe, whose channels are the session's CDP clients, and the node's link (a Unix
 * socket to the node's main process), which speaks the very protocol of the pipe, so the node's
 * CdpPipe reads it as if it were the browser's. Nothing is parsed that the pipe alone would not
 * parse: Chromium's messages of an attachment go by the attachment's owner (the tail, browser/cdp/pipe/wire.ts); of the
 * rest (answers to calls outside any attachment, and the browser's root events) the host takes the
 * answers to its own calls (ids from HOST_CALL_IDS up) and the detaches of its own attachments.
 *
 * Between the two processes run small control messages, `{"vessel":"<what>",…}`, in order with
 * the CDP traffic: the node's (open a channel ahead, close a client) are taken here and never
 * reach Chromium; the host's (a client connected or closed, a refusal) reach the node's
 * `onControl`. A message from Chromium in that shape is dropped, so a browser cannot forge one.
 */

/** The host's calls outside any attachment use ids from here up; the node's stay below. */
export const HOST_CALL_IDS = 1_000_000_000;
const CONTROL = Buffer.from('{"vessel"', "latin1");
const NUL = Buffer.from([0]);

export type Control = { vessel: string } & Record<string, unknown>;

export class PipeMux {
  /** The host's side of the browser: its clients' channels. */
  readonly pipe: CdpPipe;
  #linkOpen = true;

  constructor(
    browserIn: Writable,
    browserOut: Readable,
    private readonly link: Socket,
    onControl: (message: Control) => void,
  ) {
    this.pipe = new CdpPipe(browserIn, undefined, { firstCallId: HOST_CALL_IDS });
    // A client brought a page to the front: the node's screen recorder follows it (browser/cdp/pipe/pipe.ts onFront).
    this.pipe.onFront((targetId) => this.tell({ vessel: "front", targetId }));
    const fromBrowser = nulFramed((message, chunk, nul) => this.#route(message, nul === -1 ? undefined : chunk.subarray(nul - message.length, nul + 1)));
    browserOut.on("data", (chunk: Buffer) => {
      // Each run of messages for the node leaves in one write (writev), not one per message.
      link.cork();
      fromBrowser(chunk);
      link.uncork();
    });
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.pipe.finish();
      this.#linkOpen = false;
      link.end();
    };
    browserOut.resume(); // paused as it arrived (host-process.ts): a 'data' listener alone does not resume it
    browserOut.once("end", end);
    browserOut.once("close", end);
    browserOut.on("error", end);

    // The node's messages: CDP goes to the browser as it came, a whole chunk's worth in one write;
    // the control messages are taken out on the way.
    let partial: Buffer[] = [];
    link.on("data", (chunk: Buffer) => {
      let from = 0;
      let start = 0;
      for (let nul = chunk.indexOf(0); nul !== -1; nul = chunk.indexOf(0, start)) {
        if (partial.length > 0) {
          const whole = Buffer.concat([...partial, chunk.subarray(start, nul)]);
          partial = [];
          if (isControl(whole)) parseControl(whole, onControl);
          else browserIn.write(Buffer.concat([whole, NUL]));
          from = start = nul + 1;
          continue;
        }
        if (isControl(chunk.subarray(start, nul))) {
          if (start > from) browserIn.write(chunk.subarray(from, start));
          parseControl(chunk.subarray(start, nul), onControl);
          from = nul + 1;
        }
        start = nul + 1;
      }
      if (start > from) browserIn.write(chunk.subarray(from, start));
      if (start < chunk.length) partial.push(chunk.subarray(start));
    });
    // The node closed its link (the browser is being closed) or went away: the browser's pipe goes too.
    const unlinked = () => {
      this.#linkOpen = false;
      browserIn.end();
    };
    link.once("close", unlinked);
    link.on("error", unlinked);
    browserIn.on("error", () => {});
  }

  /** Tells the node something (a control message, in order with the browser's messages). */
  tell(message: Control): void {
    if (this.#linkOpen) this.link.write(JSON.stringify(message) + "\0");
  }

  #route(message: Buffer, raw: Buffer | undefined): void {
    const attachment = attachmentOf(message);
    if (attachment !== undefined) {
      if (!this.pipe.receiveFor(attachment, message)) this.#toNode(message, raw);
      return;
    }
    let parsed: { id?: unknown; method?: string; params?: { sessionId?: unknown }; vessel?: unknown };
    try {
      parsed = JSON.parse(message.toString("utf8"));
    } catch {
      return;
    }
    if (parsed === null || typeof parsed !== "object" || "vessel" in parsed) return; // never the browser's to send
    const forHost =
      typeof parsed.id === "number"
        ? parsed.id >= HOST_CALL_IDS
        : parsed.method === "Target.detachedFromTarget" && typeof parsed.params?.sessionId === "string" && this.pipe.holds(parsed.params.sessionId);
    if (forHost) this.pipe.receive(message);
    else this.#toNode(message, raw);
  }

  #toNode(message: Buffer, raw: Buffer | undefined): void {
    if (!this.#linkOpen) return;
    if (raw) this.link.write(raw);
    else this.link.write(Buffer.concat([message, NUL]));
  }
}

function isControl(message: Buffer): boolean {
  return message.length > CONTROL.length && message.subarray(0, CONTROL.length).equals(CONTROL);
}

function parseControl(message: Buffer, onControl: (message: Control) => void): void {
  try {
    const parsed = JSON.parse(message.toString("utf8")) as Control;
    if (typeof parsed?.vessel === "string") onControl(parsed);
  } catch {
    // the node's own messages are well-formed; one that is not is dropped
  }
}
