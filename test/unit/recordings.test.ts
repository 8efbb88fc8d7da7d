import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jpegSize, mkvFrame } from "../../src/browser/recording/mkv-stream.ts";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { newRecordingKey, openChunk, rewrapRecordingKey, RecordingKeyError, sealChunk, unwrapRecordingKey } from "../../src/crypto/recording-crypto.ts";
import { parseByteRange } from "../../src/rest/byte-range.ts";

const key = (b = randomBytes(32)) => ({ key: b, id: masterKeyId(b) });

describe("byte ranges (RFC 9110)", () => {
  it("reads first-last, first- and -suffix, clipped to the end", () => {
    expect(parseByteRange("bytes=0-99", 1000)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange("bytes=900-", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=900-5000", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=-100", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=-5000", 1000)).toEqual({ start: 0, end: 999 });
  });
  it("is unsatisfiable past the end, and ignores what it does not serve (the whole is sent)", () => {
    expect(parseByteRange("bytes=1000-", 1000)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=1000-1200", 1000)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=-0", 1000)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=0-", 0)).toBe("unsatisfiable");
    for (const ignored of [undefined, "", "bytes=", "bytes=-", "bytes=5-1", "items=0-1", "bytes=0-1,5-9", "bytes=abc", `bytes=${"9".repeat(20)}-`]) {
      expect(parseByteRange(ignored, 1000), String(ignored)).toBeNull();
    }
  });
});

describe("the recorder's Matroska stream and JPEG check", () => {
  // A JPEG's first segments: SOI, an APP0 segment, then SOF0 declaring 600×400.
  const jpeg = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x90, 0x02, 0x58, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  ]);
  it("reads a JPEG's declared size, and refuses what is not one", () => {
    expect(jpegSize(jpeg)).toEqual({ width: 600, height: 400 });
    expect(jpegSize(Buffer.from("<html>"))).toBeUndefined();
    expect(jpegSize(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toBeUndefined();
    expect(jpegSize(jpeg.subarray(0, 12))).toBeUndefined(); // cut before its frame header
    // A segment length pointing past the end is not followed.
    expect(jpegSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
  });
  it("puts each frame in a cluster of its own with its timestamp", () => {
    const frame = mkvFrame(jpeg, 1234);
    expect(frame.subarray(0, 4)).toEqual(Buffer.from([0x1f, 0x43, 0xb6, 0x75]));
    expect(frame.subarray(-jpeg.length)).toEqual(jpeg);
    // Timestamp element (E7) with 1234 = 0x04D2.
    expect(frame.includes(Buffer.from([0xe7, 0x82, 0x04, 0xd2]))).toBe(true);
  });
});

describe("recordings at rest", () => {
  it("seals chunks under the recording's own key, bound to the recording and the chunk's place", () => {
    const master = key();
    const row = { sessionId: "ses_a", ...newRecordingKey(master, "ses_a") };
    const dataKey = unwrapRecordingKey(master, row);
    const sealed = sealChunk(dataKey, "ses_a", 3, Buffer.from("video bytes"));
    expect(openChunk(dataKey, "ses_a", 3, sealed).toString()).toBe("video bytes");
    expect(() => openChunk(dataKey, "ses_a", 4, sealed)).toThrow();
    expect(() => openChunk(dataKey, "ses_b", 3, sealed)).toThrow();
    // Another recording's key does not open it, nor does its wrapped key unwrap as this one's.
    expect(() => openChunk(unwrapRecordingKey(master, { sessionId: "ses_b", ...newRecordingKey(master, "ses_b") }), "ses_a", 3, sealed)).toThrow();
    expect(() => unwrapRecordingKey(master, { ...row, sessionId: "ses_b" })).toThrow(RecordingKeyError);
  });
  it("re-wraps a recording's key under a new master key without touching its chunks", () => {
    const [old, next] = [key(), key()];
    const row = { sessionId: "ses_a", ...newRecordingKey(old, "ses_a") };
    const sealed = sealChunk(unwrapRecordingKey(old, row), "ses_a", 0, Buffer.from("same bytes"));
    const rewrapped = { sessionId: "ses_a", wrappedKey: rewrapRecordingKey(old, next, "ses_a", row.wrappedKey), masterKeyId: next.id };
    expect(openChunk(unwrapRecordingKey(next, rewrapped), "ses_a", 0, sealed).toString()).toBe("same bytes");
    expect(() => unwrapRecordingKey(old, rewrapped)).toThrow(RecordingKeyError);
  });
});
