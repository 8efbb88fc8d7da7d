import { randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import { NONCE_BYTES, open, seal, TAG_BYTES } from "../../src/crypto/envelope.ts";

const key = randomBytes(32);
const plaintext = Buffer.from('{"kty":"OKP","crv":"Ed25519","d":"secret-material"}', "utf8");

function flipBit(buf: Buffer, index: number): Buffer {
  const copy = Buffer.from(buf);
  copy[index] = copy[index]! ^ 0x01;
  return copy;
}

describe("envelope (AES-256-GCM)", () => {
  test("round trip, with and without AAD; layout is nonce ‖ ciphertext ‖ tag", () => {
    const sealed = seal(key, plaintext, "signing_keys:01J");
    expect(sealed.length).toBe(NONCE_BYTES + plaintext.length + TAG_BYTES);
    expect(sealed.includes(plaintext)).toBe(false);
    expect(open(key, sealed, "signing_keys:01J").equals(plaintext)).toBe(true);
    expect(open(key, seal(key, plaintext)).equals(plaintext)).toBe(true);
    expect(open(key, seal(key, Buffer.alloc(0), "x"), "x").length).toBe(0);
  });

  test("opens from a Uint8Array view (as Prisma returns Bytes)", () => {
    const sealed = seal(key, plaintext, "a");
    const padded = Buffer.concat([Buffer.from("xxxx"), sealed]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 4, sealed.length);
    expect(open(key, view, "a").equals(plaintext)).toBe(true);
  });

  test("a fresh nonce every time", () => {
    const a = seal(key, plaintext);
    const b = seal(key, plaintext);
    expect(a.subarray(0, NONCE_BYTES).equals(b.subarray(0, NONCE_BYTES))).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  const sealed = seal(key, plaintext, "kid-1");
  const regions = {
    nonce: [0, NONCE_BYTES - 1],
    ciphertext: [NONCE_BYTES, NONCE_BYTES + plaintext.length - 1],
    tag: [sealed.length - TAG_BYTES, sealed.length - 1],
  } as const;
  for (const [name, [first, last]] of Object.entries(regions)) {
    test(`a flipped bit in the ${name} is refused`, () => {
      expect(() => open(key, flipBit(sealed, first), "kid-1")).toThrow(/could not be opened/);
      expect(() => open(key, flipBit(sealed, last), "kid-1")).toThrow(/could not be opened/);
      // Control: the untouched ciphertext opens, so the refusal above is the flip's doing.
      expect(open(key, sealed, "kid-1").equals(plaintext)).toBe(true);
    });
  }

  test("a wrong or missing AAD is refused (rows cannot be swapped)", () => {
    expect(() => open(key, sealed, "kid-2")).toThrow(/could not be opened/);
    expect(() => open(key, sealed)).toThrow(/could not be opened/);
    expect(() => open(key, seal(key, plaintext), "kid-1")).toThrow(/could not be opened/);
  });

  test("a wrong key is refused", () => {
    expect(() => open(randomBytes(32), sealed, "kid-1")).toThrow(/could not be opened/);
  });

  test("truncated data and keys of the wrong size are refused", () => {
    expect(() => open(key, sealed.subarray(0, NONCE_BYTES + TAG_BYTES - 1), "kid-1")).toThrow(/too short/);
    expect(() => open(key, sealed.subarray(0, sealed.length - 1), "kid-1")).toThrow();
    expect(() => seal(randomBytes(16), plaintext)).toThrow(/32 bytes/);
    expect(() => open(randomBytes(31), sealed)).toThrow(/32 bytes/);
  });
});
