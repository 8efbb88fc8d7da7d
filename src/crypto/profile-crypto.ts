import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { NONCE_BYTES, TAG_BYTES, open, seal } from "./envelope.ts";
import type { MasterKey } from "./master-key.ts";

/**
 * Envelope encryption of profile documents (docs/profile-format.md, "At rest"):
 *
 * - Each write of a profile draws a fresh 256-bit data key and a fresh 96-bit nonce and encrypts the
 *   document with AES-256-GCM. The AAD names the workspace, the profile id and the format version,
 *   so a ciphertext moved to another row, or a row whose format_version was edited, does not open.
 * - The data key is stored only wrapped by the master key (AES-256-GCM envelope, AAD naming the
 *   profile), next to the master key's id. Rotating the master key re-wraps data keys and never
 *   touches a payload; deleting the row destroys the data key and with it the only way to read it.
 */

const DATA_KEY_BYTES = 32;

export interface ProfileRowIdentity {
  id: string;
  workspaceId: string;
}

export interface SealedProfile {
  formatVersion: number;
  ciphertext: Uint8Array<ArrayBuffer>;
  nonce: Uint8Array<ArrayBuffer>;
  authTag: Uint8Array<ArrayBuffer>;
  wrappedKey: Uint8Array<ArrayBuffer>;
  masterKeyId: string;
}

/** Binds a payload to its row and format version. */
export function payloadAad(row: ProfileRowIdentity, formatVersion: number): Buffer {
  return Buffer.from(`vessel:profile:${row.workspaceId}:${row.id}:v${formatVersion}`, "utf8");
}

/** Binds a wrapped data key to its profile (and to this table). */
export function dataKeyAad(profileId: string): string {
  return `profiles:${profileId}:data-key`;
}

const bytes = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

export function sealProfile(masterKey: MasterKey, row: ProfileRowIdentity, formatVersion: number, plaintext: Buffer): SealedProfile {
  const dataKey = randomBytes(DATA_KEY_BYTES);
  try {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", dataKey, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(payloadAad(row, formatVersion));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      formatVersion,
      ciphertext: bytes(ciphertext),
      nonce: bytes(nonce),
      authTag: bytes(cipher.getAuthTag()),
      wrappedKey: bytes(seal(masterKey.key, dataKey, dataKeyAad(row.id))),
      masterKeyId: masterKey.id,
    };
  } finally {
    dataKey.fill(0);
  }
}

export class ProfileDecryptError extends Error {
  constructor(readonly reason: "other-master-key" | "unreadable") {
    super(reason === "other-master-key" ? "the profile is encrypted under another master key" : "the profile could not be decrypted");
    this.name = "ProfileDecryptError";
  }
}

/** The plaintext document; ProfileDecryptError when any stored byte, the AAD or the key is wrong. */
export function openProfile(masterKey: MasterKey, row: ProfileRowIdentity & SealedProfileColumns): Buffer {
  if (row.masterKeyId !== masterKey.id) throw new ProfileDecryptError("other-master-key");
  let dataKey: Buffer;
  try {
    dataKey = open(masterKey.key, row.wrappedKey, dataKeyAad(row.id));
  } catch {
    throw new ProfileDecryptError("unreadable");
  }
  try {
    if (dataKey.length !== DATA_KEY_BYTES || row.nonce.length !== NONCE_BYTES || row.authTag.length !== TAG_BYTES) {
      throw new ProfileDecryptError("unreadable");
    }
    const decipher = createDecipheriv("aes-256-gcm", dataKey, row.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(payloadAad(row, row.formatVersion));
    decipher.setAuthTag(row.authTag);
    return Buffer.concat([decipher.update(row.ciphertext), decipher.final()]);
  } catch {
    throw new ProfileDecryptError("unreadable");
  } finally {
    dataKey.fill(0);
  }
}

/** The stored columns openProfile reads. */
export interface SealedProfileColumns {
  formatVersion: number;
  ciphertext: Uint8Array;
  nonce: Uint8Array;
  authTag: Uint8Array;
  wrappedKey: Uint8Array;
  masterKeyId: string;
}

/** The data key re-wrapped under `next`; throws when `current` cannot unwrap it. The payload is not involved. */
export function rewrapDataKey(current: MasterKey, next: MasterKey, profileId: string, wrappedKey: Uint8Array): Uint8Array<ArrayBuffer> {
  const dataKey = open(current.key, wrappedKey, dataKeyAad(profileId));
  try {
    return bytes(seal(next.key, dataKey, dataKeyAad(profileId)));
  } finally {
    dataKey.fill(0);
  }
}
