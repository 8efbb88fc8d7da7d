import { createHash, timingSafeEqual } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import type { Algorithm, Options } from "@node-rs/argon2";

/**
 * Storage and verification of API-key secrets: argon2id at the OWASP Password Storage minimum
 * (m = 19 MiB, t = 2, p = 1; 16-byte salt, 32-byte tag), set explicitly rather than relying on the
 * library's defaults. A verification costs tens of milliseconds of CPU and 19 MiB of memory, so a
 * caller should reject malformed keys with parseApiKey() first and remember successes in a
 * VerifiedKeyCache.
 */

// `Algorithm` is an ambient const enum, which verbatimModuleSyntax does not let us reference by name.
const ARGON2ID = 2 as Algorithm; // Algorithm.Argon2id

export const ARGON2_OPTIONS = Object.freeze({
  algorithm: ARGON2ID,
  memoryCost: 19_456, // KiB
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} satisfies Options);

/**
 * A valid argon2id hash (same parameters) of a random string nobody knows. verifySecret(null, …)
 * checks against it so an unknown key id costs the same argon2 work as a wrong secret.
 */
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$SavNqUMfGIBCY3CiBvWAmg$U5of3yunV3qutru9yB1yC7Wg6Gl9OX4Eu2tckGPz/5E";

const calls = { hash: 0, verify: 0 };

/** How many argon2 hash and verify calls this process has made (for tests that assert "no hashing"). */
export function argonCalls(): { hash: number; verify: number; total: number } {
  return { hash: calls.hash, verify: calls.verify, total: calls.hash + calls.verify };
}

export function resetArgonCalls(): void {
  calls.hash = 0;
  calls.verify = 0;
}

/** The argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<tag>`) of a secret. */
export async function hashSecret(secret: string): Promise<string> {
  calls.hash++;
  return hash(secret, ARGON2_OPTIONS);
}

/**
 * Whether `secret` matches the stored PHC string. Never throws: a malformed or unsupported hash is
 * simply false. With `storedHash` null (no such key) it still runs one verification, against a
 * dummy hash, and returns false, so callers can keep unknown ids and wrong secrets indistinguishable.
 */
export async function verifySecret(storedHash: string | null, secret: string): Promise<boolean> {
  calls.verify++;
  try {
    const ok = await verify(storedHash ?? DUMMY_HASH, secret);
    return storedHash !== null && ok;
  } catch {
    return false;
  }
}

/**
 * A 32-bit tag of a secret (the first four bytes of a SHA-256 under a label of its own), stored
 * beside the argon2 hash. While a client is throttled for failed authentications, a secret whose tag
 * differs is refused without argon2, and one whose tag matches (every correct secret, and one wrong
 * secret in 2^32) is verified as usual: throttling never refuses a key that verifies, and costs no
 * hashing for the ones that do not. The tag tells a database reader 32 bits about a 190-bit secret,
 * which leaves it as unguessable as before (security.md §1.3: a fast hash suffices for such secrets).
 */
export function secretTag(secret: string): number {
  return createHash("sha256").update("vessel/api-key-tag/v1\0").update(secret, "utf8").digest().readInt32BE(0);
}

export interface VerifiedKeyCacheOptions {
  /** Most keys remembered at once; the least recently used is dropped first. Default 10 000. */
  maxEntries?: number;
  /** How long a successful verification is remembered, in ms. Default 10 minutes. */
  ttlMs?: number;
  /** Clock in ms, for tests. Default Date.now. */
  now?: () => number;
}

interface CacheEntry {
  /** SHA-256 (hex) of the secret that verified; never the secret itself. */
  digest: string;
  expiresAt: number;
}

/**
 * Remembers successful verifications so a busy key is not argon2-verified on every request.
 *
 * Keyed by (key id, SHA-256 of the presented secret). Only one secret can verify for a key id, so
 * the map is by id and holds that secret's digest: a different secret for the same id misses, and
 * forget(id) is O(1). A hit only means "this secret matched this key's hash recently"; it says
 * nothing about revocation, so callers must still load the key record (revokedAt, workspace) on
 * every request, which keeps revocation immediate across replicas. forget() on revocation is a
 * tidy-up for this process, not what makes revocation take effect.
 */
export class VerifiedKeyCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: VerifiedKeyCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    if (!(this.maxEntries >= 1)) throw new RangeError("maxEntries must be at least 1");
    if (!(this.ttlMs > 0)) throw new RangeError("ttlMs must be positive");
  }

  get size(): number {
    return this.entries.size;
  }

  /** True when this exact secret verified for this key id within the TTL. */
  has(id: string, secret: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    if (this.now() >= entry.expiresAt) {
      this.entries.delete(id);
      return false;
    }
    if (!sameDigest(entry.digest, digestOf(secret))) return false;
    // Refresh recency (Map iteration order is insertion order); the expiry stays as it was.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return true;
  }

  /** Records that `secret` verified for key `id`. */
  remember(id: string, secret: string): void {
    this.entries.delete(id);
    this.entries.set(id, { digest: digestOf(secret), expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Drops whatever is remembered for key `id` (call it when the key is revoked). */
  forget(id: string): void {
    this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }
}

function digestOf(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}
