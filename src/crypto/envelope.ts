import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM sealing of secrets at rest: `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`.
 * The optional AAD binds a ciphertext to the record it belongs to (for example a signing key's
 * kid), so a ciphertext copied into another row fails to open. A random 96-bit nonce per seal is
 * safe for far more messages than one master key will ever wrap (NIST SP 800-38D: 2^32).
 */

const algorithm = "aes-256-gcm";
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
const KEY_BYTES = 32;

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new TypeError(`envelope key must be ${KEY_BYTES} bytes, got ${key.length}`);
}

export function seal(key: Buffer, plaintext: Buffer, aad?: string): Buffer {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(algorithm, key, nonce, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
}

/** The plaintext; throws when the key or AAD is wrong or any byte of `sealed` was changed. */
export function open(key: Buffer, sealed: Uint8Array, aad?: string): Buffer {
  checkKey(key);
  const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (data.length < NONCE_BYTES + TAG_BYTES) throw new Error("sealed data is too short");
  const nonce = data.subarray(0, NONCE_BYTES);
  const tag = data.subarray(data.length - TAG_BYTES);
  const ciphertext = data.subarray(NONCE_BYTES, data.length - TAG_BYTES);
  const decipher = createDecipheriv(algorithm, key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, "utf8"));
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new Error("sealed data could not be opened (wrong key, wrong record, or tampered)");
  }
}
