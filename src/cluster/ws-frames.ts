// Where WebSocket frames begin and end in a relayed byte stream. A relay (forward.ts) passes bytes
// untouched and never decodes a message; but to close a relayed connection properly (a close frame,
// 1001 at a drain's deadline) it must write that frame *between* two frames of the stream, never into
// the middle of one: a frame is a header (2–14 bytes, RFC 6455 §5.2) and a payload of the length it
// states, so following the headers is enough. (Why not `ws` on both ends: decoding and re-encoding
// every message would cost the relay's throughput what bench/relay.ts measures it for; this only
// counts bytes. See docs/decisions/0151-relay-closes-between-frames.md.)
import { randomBytes } from "node:crypto";

/** A close frame (RFC 6455 §5.5.1): masked when it goes to a server (a relay acting as the client). */
export function closeFrame(code: number, reason: string, masked = false): Buffer {
  const text = Buffer.from(reason, "utf8").subarray(0, 123);
  const payload = Buffer.alloc(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  if (!masked) return Buffer.concat([Buffer.from([0x88, payload.length]), payload]);
  const mask = randomBytes(4);
  for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
  return Buffer.concat([Buffer.from([0x88, 0x80 | payload.length]), mask, payload]);
}

/** An HTTP head longer than this is not a WebSocket handshake's answer (the relay stops looking). */
const MAX_HEAD = 16 * 1024;

/**
 * Follows one direction of a relayed connection: the owner's answer (an HTTP head, then frames when
 * it was `101 Switching Protocols`) or the client's bytes (frames from the first byte).
 */
export class FrameCursor {
  /** "head": reading the handshake's answer; "frames": between or inside frames; "other": not a WebSocket (refused handshake, oversized head). */
  #state: "head" | "frames" | "other";
  #head = "";
  readonly #header = Buffer.alloc(14);
  #headerLen = 0;
  #headerNeed = 2;
  #payloadLeft = 0;

  constructor(start: "head" | "frames") {
    this.#state = start;
  }

  /** The stream carries WebSocket frames (the handshake succeeded). */
  get upgraded(): boolean {
    return this.#state === "frames";
  }

  /** Between two frames: a frame of our own may be written here. */
  get atBoundary(): boolean {
    return this.#state === "frames" && this.#headerLen === 0 && this.#payloadLeft === 0;
  }

  /**
   * Takes the next bytes of the stream. With `toBoundary`, stops at the first frame boundary
   * (immediately, when the stream is at one) and answers how many bytes of `chunk` came before it;
   * otherwise takes all of `chunk`.
   */
  advance(chunk: Buffer, toBoundary = false): number {
    let i = 0;
    while (i < chunk.length) {
      if (toBoundary && this.atBoundary) return i;
      if (this.#state === "other") return chunk.length;
      if (this.#state === "head") {
        i = this.#readHead(chunk, i);
      } else if (this.#payloadLeft > 0) {
        const take = Math.min(this.#payloadLeft, chunk.length - i);
        this.#payloadLeft -= take;
        i += take;
      } else {
        this.#header[this.#headerLen++] = chunk[i++]!;
        if (this.#headerLen === 2) {
          const len7 = this.#header[1]! & 0x7f;
          this.#headerNeed = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (this.#header[1]! & 0x80 ? 4 : 0);
        }
        if (this.#headerLen === this.#headerNeed) this.#endHeader();
      }
    }
    return i;
  }

  #readHead(chunk: Buffer, from: number): number {
    const before = this.#head.length;
    this.#head += chunk.subarray(from, Math.min(chunk.length, from + MAX_HEAD)).toString("latin1");
    const end = this.#head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (this.#head.length > MAX_HEAD) this.#state = "other";
      return chunk.length;
    }
    this.#state = /^HTTP\/1\.[01] 101 /.test(this.#head) ? "frames" : "other";
    this.#head = "";
    return from + (end + 4 - before);
  }

  #endHeader(): void {
    const len7 = this.#header[1]! & 0x7f;
    this.#payloadLeft = len7 === 126 ? this.#header.readUInt16BE(2) : len7 === 127 ? Number(this.#header.readBigUInt64BE(2)) : len7;
    this.#headerLen = 0;
    this.#headerNeed = 2;
  }
}
