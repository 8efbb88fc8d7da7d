import { AppError } from "../errors.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { Principal } from "../services/context.ts";
import { parseApiKey } from "./api-key-format.ts";
import { VerifiedKeyCache, verifySecret } from "./api-key-hash.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { rateLimitHeaders } from "./rate-limit.ts";
import type { RevocationList } from "./revocations.ts";
import { findKeyForVerification, type ApiKeyForVerification } from "../services/api-keys.ts";

export type KeyPrincipal = Extract<Principal, { kind: "apiKey" }>;

type KeyRecord = ApiKeyForVerification;

/** How long a key record (workspace, hash, rate setting) is reused before reading it again. */
const recordTtlMs = 60_000;
const maxRecords = 10_000;
/** `last_used_at` is written at most this often per key, so a busy key costs no write per request. */
const lastUsedIntervalMs = 60_000;

const challenge = { "WWW-Authenticate": 'Bearer realm="vessel"' };
/** One answer for malformed, unknown, wrong and revoked keys: the caller learns nothing about which. */
const invalidKey = () => new AppError("unauthenticated", "The API key is not valid.", {}, challenge);

/**
 * Turns `Authorization: Bearer vs_<id>.<secret>` into a principal. A malformed key costs no database
 * read and no hash; argon2 runs once per key per process (then a digest cache answers); revocation
 * is checked on every call; failed attempts are limited per client address before any hashing.
 */
export class ApiKeyAuthenticator {
  private readonly verified = new VerifiedKeyCache();
  private readonly records = new Map<string, { record: KeyRecord | null; loadedAt: number }>();
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      limiter: RateLimiter;
      revocations: RevocationList;
      log: Logger;
      now: () => Date;
      defaultRatePerMinute: number;
    },
  ) {}

  /**
   * `alongside` runs concurrently with the revocation check (with Redis, both commands share one
   * round trip); a revoked key still answers 401 whatever `alongside` did.
   */
  async authenticate<T>(
    authorization: string | undefined,
    ip: string,
    alongside?: (principal: KeyPrincipal) => Promise<T>,
  ): Promise<{ principal: KeyPrincipal; alongside: T | undefined }> {
    const presented = /^Bearer +(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!presented) {
      throw new AppError("unauthenticated", "This operation needs `Authorization: Bearer <API key>`.", {}, challenge);
    }
    const parsed = parseApiKey(presented);
    if (!parsed) {
      await this.deps.limiter.recordAuthFailure(ip);
      throw invalidKey();
    }
    const record = await this.record(parsed.id);
    const known = record !== null && this.verified.has(record.id, parsed.secret);
    if (!known) {
      // The gate guards the expensive path only: a key already verified here costs no hash.
      const gate = await this.deps.limiter.checkAddress(ip);
      if (!gate.allowed) {
        throw new AppError("rate-limited", "Too many failed authentication attempts from this address.", {}, rateLimitHeaders(gate));
      }
      // An unknown id still costs one verification against a dummy hash, so timing does not tell ids apart.
      const ok = await verifySecret(record?.secretHash ?? null, parsed.secret);
      if (!ok || !record) {
        await this.deps.limiter.recordAuthFailure(ip);
        throw invalidKey();
      }
      this.verified.remember(record.id, parsed.secret);
    }
    if (record.revokedAt) throw invalidKey();
    const principal: KeyPrincipal = {
      kind: "apiKey",
      keyId: record.id,
      keyPrefix: record.prefix,
      workspaceId: record.workspaceId,
      rateLimitPerMinute: record.rateLimitPerMinute ?? this.deps.defaultRatePerMinute,
    };
    const [revoked, extra] = await Promise.allSettled([this.isRevoked(record.id), alongside?.(principal)]);
    if (revoked.status === "rejected") throw revoked.reason;
    if (revoked.value) throw invalidKey();
    if (extra.status === "rejected") throw extra.reason;
    this.touch(record.id);
    return { principal, alongside: extra.value };
  }

  /** Called after a revocation is committed: every node refuses the key from the next request on. */
  async revoked(keyId: string): Promise<void> {
    this.records.delete(keyId);
    this.verified.forget(keyId);
    try {
      await this.deps.revocations.add(keyId);
    } catch (err) {
      // The revocation is committed; other nodes still refuse the key once their cached record (≤ 60 s) expires.
      this.deps.log.error({ err, apiKeyId: keyId }, "could not broadcast a key revocation; other nodes will see it within a minute");
    }
  }

  private async record(id: string): Promise<KeyRecord | null> {
    const now = this.deps.now().getTime();
    const cached = this.records.get(id);
    if (cached && now - cached.loadedAt < recordTtlMs) return cached.record;
    const record = await findKeyForVerification(this.deps, id);
    if (this.records.size >= maxRecords) this.records.delete(this.records.keys().next().value!);
    // Unknown ids are not cached: a key created a moment later must work at once.
    if (record) this.records.set(id, { record, loadedAt: now });
    return record;
  }

  private async isRevoked(id: string): Promise<boolean> {
    try {
      return await this.deps.revocations.isRevoked(id);
    } catch (err) {
      // The shared list is unreachable: ask the database, the source of truth, rather than guess.
      this.deps.log.warn({ err }, "revocation list unavailable; checking the database");
      const row = await findKeyForVerification(this.deps, id);
      return !row || row.revokedAt !== null;
    }
  }

  private touch(id: string): void {
    const now = this.deps.now();
    const last = this.lastUsed.get(id);
    if (last !== undefined && now.getTime() - last < lastUsedIntervalMs) return;
    this.lastUsed.set(id, now.getTime());
    this.deps.prisma.apiKey
      .updateMany({ where: { id }, data: { lastUsedAt: now } })
      .catch((err: unknown) => this.deps.log.warn({ err, apiKeyId: id }, "could not record last use"));
  }
}
