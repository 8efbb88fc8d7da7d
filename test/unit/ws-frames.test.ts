import { describe, expect, it } from "vitest";
import { closeFrame, FrameCursor } from "../../src/cluster/ws-frames.ts";

/** A frame as RFC 6455 §5.2 lays it out: 7-bit, 16-bit and 64-bit lengths, masked or not. */
function frame(payloadLength: number, masked = false): Buffer {
  const len =
    payloadLength < 126
      ? [payloadLength]
      : payloadLength < 65536
        ? [126, payloadLength >> 8, payloadLength & 0xff]
        : [127, 0, 0, 0, 0, 0, (payloadLength >> 16) & 0xff, (payloadLength >> 8) & 0xff, payloadLength & 0xff];
  const head = Buffer.from([0x81, (masked ? 0x80 : 0) | len[0]!, ...len.slice(1), ...(masked ? [1, 2, 3, 4] : [])]);
  return Buffer.concat([head, Buffer.alloc(payloadLength, 0x61)]);
}

/** Where the cursor says frame boundaries are, fed `stream` in chunks of `size` bytes. */
function boundaries(cursor: FrameCursor, stream: Buffer, size: number): number[] {
  const found: number[] = [];
  for (let at = 0; at < stream.length; at += size) {
    const chunk = stream.subarray(at, at + size);
    let i = 0;
    while (i < chunk.length) {
      i += cursor.advance(chunk.subarray(i), true);
      if (cursor.atBoundary) {
        if (found.at(-1) !== at + i) found.push(at + i);
        if (i < chunk.length) i += cursor.advance(chunk.subarray(i, i + 1)); // step into the next frame
      }
    }
  }
  return found;
}

describe("a relay follows WebSocket frames without decoding them", () => {
  const frames = [frame(5), frame(300, true), frame(70_000), frame(0, true), frame(125)];
  const ends = frames.reduce<number[]>((acc, f) => [...acc, (acc.at(-1) ?? 0) + f.length], []);

  it("finds every frame boundary, however the stream is cut into chunks", () => {
    const stream = Buffer.concat(frames);
    for (const size of [1, 2, 3, 7, 13, 1000, stream.length]) {
      expect(boundaries(new FrameCursor("frames"), stream, size), `chunks of ${size}`).toEqual([0, ...ends]);
    }
  });

  it("skips the handshake's answer first; a refused handshake is no WebSocket", () => {
    const head = Buffer.from("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n");
    const cursor = new FrameCursor("head");
    expect(cursor.upgraded).toBe(false);
    expect(boundaries(cursor, Buffer.concat([head, frames[0]!, frames[1]!]), 4)).toEqual([
      head.length,
      head.length + frames[0]!.length,
      head.length + ends[1]!,
    ]);
    const refused = new FrameCursor("head");
    refused.advance(Buffer.from("HTTP/1.1 403 Forbidden\r\ncontent-length: 2\r\n\r\n{}"));
    expect([refused.upgraded, refused.atBoundary]).toEqual([false, false]);
  });

  it("writes close frames a client (masked) and a server (unmasked) accept", () => {
    const plain = closeFrame(1001, "the server is shutting down");
    expect([plain[0], plain[1], plain.readUInt16BE(2), plain.subarray(4).toString()]).toEqual([0x88, 29, 1001, "the server is shutting down"]);
    const masked = closeFrame(1001, "going", true);
    expect([masked[0], masked[1]]).toEqual([0x88, 0x80 | 7]);
    const mask = masked.subarray(2, 6);
    const payload = Buffer.from(masked.subarray(6).map((b, i) => b ^ mask[i % 4]!));
    expect([payload.readUInt16BE(0), payload.subarray(2).toString()]).toEqual([1001, "going"]);
    // Each is one whole frame to a cursor.
    expect(boundaries(new FrameCursor("frames"), masked, 3)).toEqual([0, masked.length]);
  });
});
