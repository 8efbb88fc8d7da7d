import { randomBytes } from "node:crypto";
import { NONCE_BYTES, TAG_BYTES, open, seal } from "./envelope.ts";
import type { MasterKey } from "./master-key.ts";

/**
 * Recordings at rest (services/recordings): each recording has a data key of its own (256 bits,
 * random), stored only wrapped by the master key (AAD naming the recording, as profiles' keys are:
 * profile-crypto.ts). The video is sealed in fixed-size chunks, each with AES-256-GCM under that key,
 * a fresh nonce and the AAD `<session id>:<index>`, so a chunk moved to another place or recording
 * does not open, and a reader decrypts only the chunks a byte range needs. Deleting the row destroys
 * the wrapped key, and with it every copy of the chunks; rotating the master key re-wraps the key only.
 */

/** Plaintext bytes per chunk (the last may be shorter). */
export const RECORDING_CHUNK_BYTES = 1024 * 1024;
/** What sealing adds to each chunk: nonce and tag. */
export const SEALED_CHUNK_OVERHEAD = NONCE_BYTES + TAG_BYTES;
const DATA_KEY_BYTES = 32;

const keyAad = (sessionId: string) => `recordings:${sessionId}:data-key`;
const chunkAad = (sessionId: string, index: number) => `${sessionId}:${index}`;
const bytes = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

/** A fresh data key for a recording, wrapped by the master key (the plaintext key is not kept). */
export function newRecordingKey(masterKey: MasterKey, sessionId: string): { wrappedKey: Uint8Array<ArrayBuffer>; masterKeyId: string } {
  const dataKey = randomBytes(DATA_KEY_BYTES);
  try {
    return { wrappedKey: bytes(seal(masterKey.key, dataKey, keyAad(sessionId))), masterKeyId: masterKey.id };
  } finally {
    dataKey.fill(0);
  }
}

export class RecordingKeyError extends Error {
  constructor(readonly reason: "other-master-key" | "unreadable") {
    super(reason === "other-master-key" ? "the recording is encrypted under another master key" : "the recording's key could not be unwrapped");
    this.name = "RecordingKeyError";
  }
}

/** The recording's data key (fill it with zeros when done); RecordingKeyError when it cannot be unwrapped. */
export function unwrapRecordingKey(masterKey: MasterKey, row: { sessionId: string; wrappedKey: Uint8Array; masterKeyId: string }): Buffer {
  if (row.masterKeyId !== masterKey.id) throw new RecordingKeyError("other-master-key");
  try {
    const key = open(masterKey.key, row.wrappedKey, keyAad(row.sessionId));
    if (key.length !== DATA_KEY_BYTES) throw new Error("wrong length");
    return key;
  } catch {
    throw new RecordingKeyError("unreadable");
  }
}

export function sealChunk(dataKey: Buffer, sessionId: string, index: number, plaintext: Buffer): Buffer {
  return seal(dataKey, plaintext, chunkAad(sessionId, index));
}

/** The chunk's plaintext; throws when any byte, the key, the recording or the index is wrong. */
export function openChunk(dataKey: Buffer, sessionId: string, index: number, sealed: Uint8Array): Buffer {
  return open(dataKey, sealed, chunkAad(sessionId, index));
}

/** The data key re-wrapped under `next` (master-key rotation); the chunks are not involved. */
export function rewrapRecordingKey(current: MasterKey, next: MasterKey, sessionId: string, wrappedKey: Uint8Array): Uint8Array<ArrayBuffer> {
  const dataKey = open(current.key, wrappedKey, keyAad(sessionId));
  try {
    return bytes(seal(next.key, dataKey, keyAad(sessionId)));
  } finally {
    dataKey.fill(0);
  }
}
