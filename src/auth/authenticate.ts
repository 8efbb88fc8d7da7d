import { AppError } from "../errors.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { Principal } from "./principal.ts";
import { parseApiKey } from "./api-key-format.ts";
import { secretTag, VerifiedKeyCache, verifySecret } from "./api-key-hash.ts";
import type { FailedAuthThrottle } from "./failed-auth.ts";
import type { RateDecision } from "./rate-limit.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";
import type { RevocationList } from "./revocations.ts";
import { findKeyForVerification, storeSecretTag, type ApiKeyForVerification } from "./api-key-lookup.ts";

export type KeyPrincipal = Extract<Principal, { kind: "apiKey" }>;

type KeyRecord = ApiKeyForVerification;

/** How long a key record (workspace, hash, rate setting) is reused before reading it again. */
const recordTtlMs = 60_000;
const maxRecords = 10_000;
/** `last_used_at` is written at most this often per key, so a busy key costs no write per request. */
const lastUsedIntervalMs = 60_000;

const challenge = { "WWW-Authenticate": 'Bearer realm="vessel"' };
/** One answer for malformed, unknown, wrong and revoked keys: the caller learns nothing about which (RFC 6750 §3.1). */
const invalidKey = () =>
  new AppError("unauthenticated", "The API key is not valid.", {}, { "WWW-Authenticate": 'Bearer realm="vessel", error="invalid_token"' });
const throttled = (gate: RateDecision) => new AppError("rate-limited", "Too many failed authentication attempts; retry later.", {}, rateLimitHeaders(gate));

/**
 * Turns `Authorization: Bearer vs_<id>.<secret>` into a principal. A malformed key costs no database
 * read and no hash; argon2 runs once per key per process (then a digest cache answers); revocation
 * is checked on every call. Failed attempts are throttled per client address and key id
 * (failed-auth.ts) without ever refusing a key that verifies: a throttled attempt is refused
 * without hashing only when it cannot be right (an unknown id, or a secret whose tag differs).
 */
export class ApiKeyAuthenticator {
  private readonly verified = new VerifiedKeyCache();
  private readonly records = new Map<string, { record: KeyRecord | null; loadedAt: number }>();
  private readonly lastUsed = new Map<string, number>();
  /** Told of each key this node revokes, at once (other nodes learn it from the revocation list). */
  private readonly revokedListeners = new Set<(keyId: string) => void>();

  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      failedAuth: FailedAuthThrottle;
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
      // Counted, though it cost nothing: the sender is probing.
      await this.deps.failedAuth.reserve({ scope: "api-key", ip });
      throw invalidKey();
    }
    // A key already verified here costs no hash and is never throttled.
    const record = this.verified.has(parsed.id, parsed.secret) ? await this.record(parsed.id) : await this.verify(parsed.id, parsed.secret, ip);
    if (!record || record.revokedAt) throw invalidKey();
    const principal: KeyPrincipal = {
      kind: "apiKey",
      keyId: record.id,
      keyPrefix: record.prefix,
      workspaceId: record.workspaceId,
      rateLimitPerMinute: record.rateLimitPerMinute ?? this.deps.defaultRatePerMinute,
      maxSessions: record.maxSessions,
      maxSessionSeconds: record.maxSessionSeconds,
    };
    const [revoked, extra] = await Promise.allSettled([this.isRevoked(record.id), alongside?.(principal)]);
    if (revoked.status === "rejected") throw revoked.reason;
    if (revoked.value) throw invalidKey();
    if (extra.status === "rejected") throw extra.reason;
    this.touch(record.id);
    return { principal, alongside: extra.value };
  }

  /**
   * The record of a key whose secret verifies, or a refusal. The attempt is counted first, in its
   * address's bucket (alongside the record's read) and, for an id that exists, in the id's; it is
   * given back when the key verifies, and is the failure's count otherwise (failed-auth.ts). Over a
   * limit, an attempt that cannot be right is refused at once, unhashed, with the same answer for an
   * unknown id and a wrong secret (a known id costs one more limiter round trip, well under a
   * millisecond; the id is the key's public prefix); anything else is verified, and a correct key
   * passes whatever the buckets say.
   */
  private async verify(id: string, secret: string, ip: string): Promise<KeyRecord> {
    const { failedAuth } = this.deps;
    const byAddress = { scope: "api-key", ip } as const;
    const [record, addressGate] = await Promise.all([this.record(id), failedAuth.reserve(byAddress)]);
    // Only ids that exist are counted per id: random ones would only fill the store.
    const byId = record ? ({ scope: "api-key-id", keyId: record.id } as const) : undefined;
    const idGate = byId ? await failedAuth.reserve(byId) : undefined;
    const gate = [addressGate, idGate].find((d) => d && !d.allowed);
    if (gate) {
      // A key made before tags existed has none yet: verified, as it may be right.
      const mayBeRight = record !== null && (record.secretTag === null || record.secretTag === secretTag(secret));
      if (!mayBeRight) throw throttled(gate);
    }
    // An unknown id still costs one verification against a dummy hash, so timing does not tell ids apart.
    const ok = await verifySecret(record?.secretHash ?? null, secret);
    if (!ok || !record) throw gate ? throttled(gate) : invalidKey();
    void failedAuth.release(byAddress);
    if (byId) void failedAuth.release(byId);
    this.verified.remember(record.id, secret);
    if (record.secretTag === null) {
      record.secretTag = secretTag(secret);
      storeSecretTag(this.deps, record.id, record.secretTag).catch((err: unknown) => this.deps.log.warn({ err, apiKeyId: id }, "could not store a key's tag"));
    }
    return record;
  }

  /** Called after a revocation is committed: every node refuses the key from the next request on. */
  /** A workspace's limits changed: its keys' records are read again on their next call here (other nodes within {@link recordTtlMs}). */
  workspaceChanged(workspaceId: string): void {
    for (const [id, entry] of this.records) if (entry.record?.workspaceId === workspaceId) this.records.delete(id);
  }

  async revoked(keyId: string): Promise<void> {
    this.records.delete(keyId);
    this.verified.forget(keyId);
    for (const listener of this.revokedListeners) listener(keyId);
    try {
      await this.deps.revocations.add(keyId);
    } catch (err) {
      // The revocation is committed; other nodes still refuse the key once their cached record (≤ 60 s) expires.
      this.deps.log.error({ err, apiKeyId: keyId }, "could not broadcast a key revocation; other nodes will see it within a minute");
    }
  }

  /** Calls `listener` with each key revoked on this node from now on; answers the unsubscribe. */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => void this.revokedListeners.delete(listener);
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

  /** Whether the key is revoked (the shared list, else the database). */
  async isRevoked(id: string): Promise<boolean> {
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
