import { randomBytes } from "node:crypto";
import { open, seal } from "./envelope.ts";
import type { MasterKey } from "./master-key.ts";

/**
 * Per-record data keys (envelope encryption): a random AES-256 key seals one record's bytes, and is
 * stored only wrapped by the master key, bound by `aad` to the record it belongs to (so a wrapped key
 * copied to another row does not open). Deleting the wrapped key destroys the record for good;
 * rotating the master key re-wraps keys without touching what they seal.
 */

const DATA_KEY_BYTES = 32;

const bytes = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

export function newDataKey(masterKey: MasterKey, aad: string): { dataKey: Buffer; wrappedKey: Uint8Array<ArrayBuffer>; masterKeyId: string } {
  const dataKey = randomBytes(DATA_KEY_BYTES);
  return { dataKey, wrappedKey: bytes(seal(masterKey.key, dataKey, aad)), masterKeyId: masterKey.id };
}

/** Throws when the key was wrapped by another master key, for another record, or tampered with. */
export function unwrapDataKey(masterKey: MasterKey, aad: string, wrappedKey: Uint8Array): Buffer {
  return open(masterKey.key, wrappedKey, aad);
}

export function rewrapDataKey(current: MasterKey, next: MasterKey, aad: string, wrappedKey: Uint8Array): Uint8Array<ArrayBuffer> {
  const dataKey = unwrapDataKey(current, aad, wrappedKey);
  try {
    return bytes(seal(next.key, dataKey, aad));
  } finally {
    dataKey.fill(0);
  }
}

/** Seals a record's bytes under its data key, bound to `aad`. */
export function sealRecord(dataKey: Buffer, plaintext: Buffer, aad: string): Uint8Array<ArrayBuffer> {
  return bytes(seal(dataKey, plaintext, aad));
}

export function openRecord(dataKey: Buffer, sealed: Uint8Array, aad: string): Buffer {
  return open(dataKey, sealed, aad);
}
