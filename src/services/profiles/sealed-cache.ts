/**
 * The ciphertexts of recently read or written profiles, so that starting a session from a profile
 * reads only the row's small columns when this process holds its payload already (the payload's
 * read, ~150 KiB through the embedded database for a realistic profile, was the largest part of
 * what a profile adds to a create).
 *
 * Only ciphertext is kept, never a data key or a plaintext: a copy is exactly as safe as the row.
 * Whether it is the row's current payload is settled in the read's statement: the row's
 * authentication tag and the SHA-256 of its payload (kept by the database on every write of the
 * payload: the ciphertext_sha256 column and its trigger) are compared with the copy's, and the stored
 * payload is sent when either differs (a payload damaged in the database is refused as before, not
 * masked by an intact copy). AES-GCM settles the rest: a copy that is not the payload the row's tag
 * authenticates does not decrypt (the reader then reads the row in full).
 * Deleting the row still destroys the only way to read the copy (its wrapped data key). A payload
 * is kept only once its document passed the checks (sealDocument's before sealing, readDocument's
 * after reading), so a read of a kept payload does not check it again.
 */

import { createHash } from "node:crypto";

/** At most this many bytes of ciphertext per database (a realistic profile is ~150 KiB: ~200 of them). */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;

export interface CachedPayload {
  workspaceId: string;
  authTag: Buffer;
  ciphertext: Uint8Array;
  /**
   * Hex SHA-256 of the ciphertext, as Postgres's encode(sha256(bytea), 'hex') writes it: a
   * fingerprint, not a seal. Not MD5: a PostgreSQL server in FIPS mode refuses md5().
   */
  sha256: string;
}

class SealedCache {
  /** By profile id, least recently used first. */
  readonly #entries = new Map<string, CachedPayload>();
  #bytes = 0;

  get(id: string, workspaceId: string): CachedPayload | undefined {
    const entry = this.#entries.get(id);
    if (!entry || entry.workspaceId !== workspaceId) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry;
  }

  put(id: string, payload: Omit<CachedPayload, "sha256">): void {
    this.drop(id);
    const entry = { ...payload, sha256: createHash("sha256").update(payload.ciphertext).digest("hex") };
    if (entry.ciphertext.byteLength > MAX_CACHED_BYTES / 4) return;
    this.#entries.set(id, entry);
    this.#bytes += entry.ciphertext.byteLength;
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= MAX_CACHED_BYTES) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.ciphertext.byteLength;
    }
  }

  drop(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    this.#bytes -= entry.ciphertext.byteLength;
  }
}

/** One cache per database (a process may serve several, as the tests do). */
const caches = new WeakMap<object, SealedCache>();

export function sealedCache(db: object): SealedCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new SealedCache()));
  return cache;
}
