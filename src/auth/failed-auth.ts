import { addressBucket } from "./client-address.ts";
import type { RateDecision, RateLimiter } from "./rate-limit.ts";

/**
 * Failed-authentication throttling (OWASP API2/API4, security.md C20). It protects the hasher and
 * slows guessing; it must never become a way to lock someone else out, so:
 *
 * - Failures are counted per client address (auth/client-address.ts, so behind trusted proxies each
 *   client has its own count) and, for API keys whose id exists, per key id as well: one address
 *   spraying many ids, and many addresses attacking one id, are both caught.
 * - Being throttled never refuses a key that verifies. The authenticator (authenticate.ts) refuses a
 *   throttled attempt without argon2 only when it cannot be right: an unknown key id, or a secret
 *   whose stored tag (api-key-hash.ts `secretTag`) does not match. A correct key always gets its
 *   verification, whichever of its buckets is full, so an attacker filling the buckets of a known key
 *   id gains nothing against its owner.
 * - Dashboard sign-in link exchanges and refreshes count in a bucket of their own (per address), so a
 *   flood of bad API keys does not stop people signing in, nor the other way round.
 *
 * All windows are a minute, shared by the nodes through Redis (rate-limit.ts).
 */

export const FAILED_AUTH_WINDOW_SECONDS = 60;

export interface FailedAuthLimits {
  /** Failed API-key authentications per client address per minute. */
  perAddress: number;
  /** Failed authentications per existing API key id per minute, from any address. */
  perKey: number;
  /** Failed sign-in exchanges and refreshes per client address per minute. */
  signInPerAddress: number;
}

export const DEFAULT_FAILED_AUTH_LIMITS: Readonly<FailedAuthLimits> = Object.freeze({ perAddress: 30, perKey: 30, signInPerAddress: 30 });

/** Policy names, as `RateLimit-Policy` advertises them on a refusal. */
export const failedAuthPolicies = {
  address: "failed-auth",
  key: "failed-auth-key",
  signIn: "failed-sign-in",
} as const;

/**
 * One bucket an attempt counts in: API-key attempts by client address and (for ids that exist) by
 * key id, sign-in exchanges and refreshes by client address.
 */
export type Attempt = { scope: "api-key"; ip: string } | { scope: "api-key-id"; keyId: string } | { scope: "sign-in"; ip: string };

/**
 * Two ways to count, for two costs of verification:
 *
 * - API keys `reserve` before verifying (the attempt is counted, and refused once the bucket is
 *   over its limit) and `release` after a success. Counting first is atomic per bucket, so a burst of
 *   concurrent attempts cannot pass the limit together: argon2 runs at most `limit` times per bucket
 *   and window for attempts that fail.
 * - Sign-in `check`s, then `record`s a failure. Its verification is one indexed read of a SHA-256,
 *   so a burst overshooting the limit by its own size costs nothing worth the extra writes.
 */
export class FailedAuthThrottle {
  readonly limits: Readonly<FailedAuthLimits>;

  constructor(
    private readonly limiter: RateLimiter,
    limits: Partial<FailedAuthLimits> = {},
  ) {
    this.limits = { ...DEFAULT_FAILED_AUTH_LIMITS, ...limits };
  }

  /** Counts the attempt now; refused when that puts its bucket over the limit (the count stays). */
  reserve(attempt: Attempt): Promise<RateDecision> {
    const [policy, key, limit] = this.bucket(attempt);
    return this.limiter.consume(policy, key, limit, FAILED_AUTH_WINDOW_SECONDS);
  }

  /** Gives a reservation back: the attempt succeeded. */
  release(attempt: Attempt): Promise<void> {
    const [policy, key, limit] = this.bucket(attempt);
    return this.limiter.refund(policy, key, limit, FAILED_AUTH_WINDOW_SECONDS);
  }

  /** Whether the attempt's bucket is full (reads only). */
  check(attempt: Attempt): Promise<RateDecision> {
    const [policy, key, limit] = this.bucket(attempt);
    return this.limiter.peek(policy, key, limit, FAILED_AUTH_WINDOW_SECONDS);
  }

  /** Counts one failed attempt. */
  record(attempt: Attempt): Promise<void> {
    const [policy, key, limit] = this.bucket(attempt);
    return this.limiter.penalize(policy, key, limit, FAILED_AUTH_WINDOW_SECONDS);
  }

  private bucket(attempt: Attempt): [policy: string, key: string, limit: number] {
    switch (attempt.scope) {
      case "api-key":
        return [failedAuthPolicies.address, addressBucket(attempt.ip), this.limits.perAddress];
      case "api-key-id":
        return [failedAuthPolicies.key, attempt.keyId, this.limits.perKey];
      case "sign-in":
        return [failedAuthPolicies.signIn, addressBucket(attempt.ip), this.limits.signInPerAddress];
    }
  }
}
