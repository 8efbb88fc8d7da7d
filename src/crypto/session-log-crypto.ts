import { randomBytes } from "node:crypto";
import { open, seal } from "./envelope.ts";
import type { MasterKey } from "./master-key.ts";

/**
 * Sessions' logs at rest: each session's entries are sealed (AES-256-GCM, envelope.ts) under a data
 * key of its own, drawn when its logs start; the key is stored only wrapped by the master key, next
 * to the master key's id, like profiles' (profile-crypto.ts). An entry's AAD is `<session id>:<seq>`,
 * so an entry copied to another session or another place in the list does not open. Deleting the
 * key row destroys the only way to read the entries.
 */

const DATA_KEY_BYTES = 32;

/** Binds a wrapped data key to its session (and to this table). */
const keyAad = (sessionId: string) => `session_log_keys:${sessionId}:data-key`;

export const entryAad = (sessionId: string, seq: number) => `${sessionId}:${seq}`;

const bytes = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

/** A fresh data key for a session's logs, and its wrapped form for the key row. */
export function newLogKey(masterKey: MasterKey, sessionId: string): { dataKey: Buffer; wrappedKey: Uint8Array<ArrayBuffer>; masterKeyId: string } {
  const dataKey = randomBytes(DATA_KEY_BYTES);
  return { dataKey, wrappedKey: bytes(seal(masterKey.key, dataKey, keyAad(sessionId))), masterKeyId: masterKey.id };
}

/** The data key of a key row; throws when it was wrapped by another master key or was tampered with. */
export function unwrapLogKey(masterKey: MasterKey, sessionId: string, wrappedKey: Uint8Array): Buffer {
  return open(masterKey.key, wrappedKey, keyAad(sessionId));
}

/** The data key re-wrapped under `next` (master-key rotation); the entries are not involved. */
export function rewrapLogKey(current: MasterKey, next: MasterKey, sessionId: string, wrappedKey: Uint8Array): Uint8Array<ArrayBuffer> {
  const dataKey = unwrapLogKey(current, sessionId, wrappedKey);
  try {
    return bytes(seal(next.key, dataKey, keyAad(sessionId)));
  } finally {
    dataKey.fill(0);
  }
}

export function sealEntry(dataKey: Buffer, sessionId: string, seq: number, json: string): Buffer {
  return seal(dataKey, Buffer.from(json, "utf8"), entryAad(sessionId, seq));
}

export function openEntry(dataKey: Buffer, sessionId: string, seq: number, sealed: Uint8Array): string {
  return open(dataKey, sealed, entryAad(sessionId, seq)).toString("utf8");
}
