import { randomBytes } from "node:crypto";
import { ulid } from "../ids.ts";

/**
 * API keys look like `vs_<ULID>.<secret>` (spec §2.3):
 * - `vs_` is fixed so scanners can find leaked keys;
 * - the ULID is the key record's id (26 characters of upper-case Crockford base32; it reveals the
 *   key's creation time to the millisecond, which is harmless);
 * - the secret is 32 characters of base62 (≈190 bits) and is only ever stored hashed.
 * Everything left of the dot is the "prefix", shown in lists and written to the audit log.
 */

export const API_KEY_PREFIX = "vs_";
export const API_KEY_SECRET_LENGTH = 32;
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * The whole key, anchored. Group 1 is the ULID, group 2 the secret. A ULID's first character is
 * 0–7 (48-bit timestamp), so anything else cannot be a key we issued. Not global, so it is stateless.
 */
export const API_KEY_REGEX = /^vs_([0-7][0-9A-HJKMNP-TV-Z]{25})\.([0-9A-Za-z]{32})$/;

/** Longest possible key; longer input is rejected before the regex runs. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + 26 + 1 + API_KEY_SECRET_LENGTH;

export interface ParsedApiKey {
  /** The ULID: the api_keys row id. */
  id: string;
  /** `vs_<id>`: everything left of the dot. */
  prefix: string;
  /** The 32 characters right of the dot. */
  secret: string;
}

export interface GeneratedApiKey extends ParsedApiKey {
  /** The full key, `vs_<id>.<secret>`, shown to its owner once. */
  key: string;
}

/**
 * `length` characters drawn uniformly from the base62 alphabet. Bytes ≥ 248 (= 4·62) are thrown
 * away rather than reduced modulo 62, which would favour the first 8 characters. `bytes` is the
 * random source (crypto.randomBytes; replaceable so tests can feed known bytes).
 */
export function randomBase62(length: number, bytes: (size: number) => Uint8Array = randomBytes): string {
  const limit = 256 - (256 % BASE62_ALPHABET.length); // 248
  let out = "";
  while (out.length < length) {
    // ~3% of bytes are rejected; ask for a little more than needed so one round usually suffices.
    for (const byte of bytes(Math.ceil((length - out.length) * 1.1) + 4)) {
      if (byte >= limit) continue;
      out += BASE62_ALPHABET[byte % BASE62_ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new key with a fresh ULID id and a fresh secret. */
export function generateApiKey(): GeneratedApiKey {
  const id = ulid();
  const prefix = `${API_KEY_PREFIX}${id}`;
  const secret = randomBase62(API_KEY_SECRET_LENGTH);
  return { id, prefix, secret, key: `${prefix}.${secret}` };
}

/**
 * Splits a presented key into its parts, or null when it cannot be a key we issued (wrong prefix,
 * length, character set, separator, surrounding whitespace). No I/O and no hashing, so a caller can
 * reject garbage before touching the database or argon2.
 */
export function parseApiKey(raw: string): ParsedApiKey | null {
  if (typeof raw !== "string" || raw.length !== API_KEY_LENGTH) return null;
  const match = API_KEY_REGEX.exec(raw);
  if (!match) return null;
  const id = match[1]!;
  return { id, prefix: `${API_KEY_PREFIX}${id}`, secret: match[2]! };
}

/**
 * `vs_<id>` of the key an `Authorization` header presents, if its id parses (whatever follows it);
 * never the secret. Ids are upper-case Crockford base32 ULIDs, as issued.
 */
export function presentedKeyPrefix(authorization: string | undefined): string | null {
  const credential = /^Bearer +(\S+)/i.exec(authorization ?? "")?.[1] ?? "";
  return /^(vs_[0-7][0-9A-HJKMNP-TV-Z]{25})(?![0-9A-Za-z])/.exec(credential)?.[1] ?? null;
}
