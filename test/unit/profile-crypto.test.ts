import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { ProfileDecryptError, openProfile, rewrapDataKey, sealProfile } from "../../src/crypto/profile-crypto.ts";

const key = () => {
  const k = randomBytes(32);
  return { key: k, id: masterKeyId(k) };
};
const row = { id: "prof_01ARZ3NDEKTSV4RRFFQ69G5FAV", workspaceId: "ws1" };
const plaintext = Buffer.from(JSON.stringify({ cookies: [{ value: "s3cret-cookie" }] }));

function flip(b: Uint8Array, i = 0): Uint8Array {
  const c = Uint8Array.from(b);
  c[i] = c[i]! ^ 1;
  return c;
}

describe("profile encryption", () => {
  it("seals with a fresh data key and nonce each time, and opens only for its own row", () => {
    const mk = key();
    const one = sealProfile(mk, row, 1, plaintext);
    const two = sealProfile(mk, row, 1, plaintext);
    expect(Buffer.from(one.wrappedKey).equals(Buffer.from(two.wrappedKey))).toBe(false);
    expect(Buffer.from(one.nonce).equals(Buffer.from(two.nonce))).toBe(false);
    expect(Buffer.from(one.ciphertext).toString("latin1")).not.toContain("s3cret");
    expect(one.masterKeyId).toBe(mk.id);
    expect(openProfile(mk, { ...row, ...one }).equals(plaintext)).toBe(true);
    // AAD: another row, another workspace, another format version.
    for (const other of [
      { ...row, id: "prof_01ARZ3NDEKTSV4RRFFQ69G5FAW" },
      { ...row, workspaceId: "ws2" },
    ]) {
      expect(() => openProfile(mk, { ...other, ...one })).toThrow(ProfileDecryptError);
    }
    expect(() => openProfile(mk, { ...row, ...one, formatVersion: 2 })).toThrow(ProfileDecryptError);
  });

  it("refuses any altered byte and any other master key", () => {
    const mk = key();
    const sealed = { ...row, ...sealProfile(mk, row, 1, plaintext) };
    for (const column of ["ciphertext", "nonce", "authTag", "wrappedKey"] as const) {
      expect(() => openProfile(mk, { ...sealed, [column]: flip(sealed[column]) }), column).toThrow(ProfileDecryptError);
    }
    const other = key();
    expect(() => openProfile(other, sealed)).toThrow(expect.objectContaining({ reason: "other-master-key" }));
    expect(() => openProfile(other, { ...sealed, masterKeyId: other.id })).toThrow(expect.objectContaining({ reason: "unreadable" }));
  });

  it("re-wraps the data key under a new master key without touching the payload", () => {
    const oldKey = key();
    const newKey = key();
    const sealed = { ...row, ...sealProfile(oldKey, row, 1, plaintext) };
    const wrappedKey = rewrapDataKey(oldKey, newKey, row.id, sealed.wrappedKey);
    const rotated = { ...sealed, wrappedKey, masterKeyId: newKey.id };
    expect(openProfile(newKey, rotated).equals(plaintext)).toBe(true);
    expect(() => rewrapDataKey(newKey, oldKey, row.id, sealed.wrappedKey)).toThrow();
    // The wrapped key is bound to its profile too.
    expect(() => rewrapDataKey(oldKey, newKey, "prof_other", sealed.wrappedKey)).toThrow();
  });
});
