import type { Redis } from "ioredis";

/**
 * Revoked key ids, checked on every request so a revocation takes effect on the very next call on
 * every node. With Redis the set is shared (a key written before the revoking call answers); without
 * it, the single process is the only node and its memory is the truth.
 */
export interface RevocationList {
  isRevoked(keyId: string): Promise<boolean>;
  add(keyId: string): Promise<void>;
}

/** Revoked keys are hard-deleted after 90 days, so the shared marker need not outlive them. */
const retentionSeconds = 90 * 24 * 3600;

export function memoryRevocations(): RevocationList {
  const revoked = new Set<string>();
  return {
    isRevoked: async (id) => revoked.has(id),
    add: async (id) => void revoked.add(id),
  };
}

export function redisRevocations(redis: Redis, prefix = "vessel:"): RevocationList {
  const key = (id: string) => `${prefix}revoked:${id}`;
  return {
    isRevoked: async (id) => (await redis.exists(key(id))) === 1,
    add: async (id) => void (await redis.set(key(id), "1", "EX", retentionSeconds)),
  };
}
