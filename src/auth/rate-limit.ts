import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Logger } from "../logger.ts";
import type { Redis } from "../redis.ts";

/**
 * Request rate limiting (spec §8): 600 requests per minute per API key by default, overridable per
 * workspace, and named budgets for everything else that is counted (failed authentications,
 * failed-auth.ts; magic-link mails, sign-in.ts).
 *
 * Algorithm: a fixed 60-second window per key (rate-limiter-flexible's atomic INCR + EXPIRE Lua script
 * in Redis), so every node of a cluster shares one budget. The window starts at a key's first request.
 * A fixed window admits at most 2× the limit across one window boundary; that is the accepted cost of
 * the one-round-trip algorithm.
 *
 * Redis outage: each Redis limiter carries an in-memory `insuranceLimiter` with the same limit, so a
 * Redis failure degrades to per-node limits (N nodes admit up to N × limit), never to no limit and
 * never to an error. The client from `createRedis` rejects commands at once while disconnected, so the
 * fallback costs no waiting; a Redis that hangs costs each call at most its `commandTimeout` (500 ms)
 * until `socketTimeout` declares the connection dead.
 *
 * Storage keys: `<prefix>:key:<limit>:<keyId>` and `<prefix>:<policy>:<limit>[:<window>]:<key>`.
 */

export const RATE_WINDOW_SECONDS = 60;
export const DEFAULT_KEY_LIMIT_PER_MINUTE = 600;

/** The policy name advertised in `RateLimit-Policy` / `RateLimit` for the request budget. */
export const KEY_POLICY = "default";

export interface RateDecision {
  allowed: boolean;
  /** The quota of the window (the `q` of RateLimit-Policy). */
  limit: number;
  /** Requests left in the current window (the `r` of RateLimit); 0 when refused. */
  remaining: number;
  /** Seconds until the current window ends (the `t` of RateLimit), 1…windowSeconds. */
  resetSeconds: number;
  windowSeconds: number;
  /** Set when refused: whole seconds, 1…windowSeconds, equal to resetSeconds. */
  retryAfterSeconds?: number;
  /** The policy name for the headers; `"default"` when absent. */
  policy?: string;
}

export interface RateLimiter {
  /**
   * One request by an API key (`calls` of them: a GraphQL operation of several root fields);
   * limitPerMinute is the key's workspace setting (default 600).
   */
  consumeKey(keyId: string, limitPerMinute: number, calls?: number): Promise<RateDecision>;
  /**
   * One event against a named budget of `limit` per `windowSeconds` (for example magic-link mails per
   * address per hour). Keys are hashed by the caller when they are personal data.
   */
  consume(policy: string, key: string, limit: number, windowSeconds: number): Promise<RateDecision>;
  /** Reads a named budget without spending it: refused once `limit` events are counted in its window. */
  peek(policy: string, key: string, limit: number, windowSeconds: number): Promise<RateDecision>;
  /** Counts one event against a named budget and never refuses it (the refusal is `peek`'s). */
  penalize(policy: string, key: string, limit: number, windowSeconds: number): Promise<void>;
  /** Gives back one event `consume` counted (it turned out not to be one: a reservation released). */
  refund(policy: string, key: string, limit: number, windowSeconds: number): Promise<void>;
  /** Drops the limiters. Does not close the Redis client, which belongs to the caller. */
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  /** Shared store; without it every node limits on its own (in memory). */
  redis?: Redis;
  /** Prefix of every storage key (default `vessel:rl`); tests use a random one. */
  keyPrefix?: string;
  log?: Logger;
}

type LimiterOpts = ConstructorParameters<typeof RateLimiterMemory>[0];

/** The Redis limiter's insurance: an ordinary memory limiter that reports when it has to step in. */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    opts: LimiterOpts,
    private readonly onUse: () => void,
  ) {
    super(opts);
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(key, points, options);
  }

  override penalty(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.onUse();
    return super.penalty(key, points, options);
  }

  override reward(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.onUse();
    return super.reward(key, points, options);
  }

  override get(key: string | number, options?: Record<string, unknown>): Promise<RateLimiterRes | null> {
    this.onUse();
    return super.get(key, options);
  }
}

interface Budget {
  /** The limiter to ask: Redis (insured by `memory`) or, without Redis, `memory` itself. */
  primary: RateLimiterRedis | RateLimiterMemory;
  /** The per-node limiter: Redis' insurance, and the last resort if the primary fails anyway. */
  memory: RateLimiterMemory;
  limit: number;
  policy: string;
  windowSeconds: number;
}

type Outcome<T> = { rejected: false; value: T } | { rejected: true; res: RateLimiterRes };

async function attempt<T>(l: RateLimiterRedis | RateLimiterMemory, op: (l: RateLimiterRedis | RateLimiterMemory) => Promise<T>): Promise<Outcome<T>> {
  try {
    return { rejected: false, value: await op(l) };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { rejected: true, res: err };
    throw err;
  }
}

const insuranceLogIntervalMs = 30_000;

export function createRateLimiter(opts: RateLimiterOptions = {}): RateLimiter {
  return new BudgetLimiter(opts);
}

/** Budgets by name, policy, limit and window, each a Redis limiter with its in-memory insurance (or memory alone). */
class BudgetLimiter implements RateLimiter {
  readonly #redis: Redis | undefined;
  readonly #log: Logger | undefined;
  readonly #prefix: string;
  readonly #budgets = new Map<string, Budget>();
  #lastInsuranceLog = 0;

  constructor(opts: RateLimiterOptions) {
    this.#redis = opts.redis;
    this.#log = opts.log;
    this.#prefix = opts.keyPrefix ?? "vessel:rl";
  }

  async consumeKey(keyId: string, limitPerMinute: number, calls = 1): Promise<RateDecision> {
    let limit = positiveInt(limitPerMinute);
    if (limit === undefined) {
      this.#log?.error({ keyId, limitPerMinute }, "invalid per-minute rate limit; using the default");
      limit = DEFAULT_KEY_LIMIT_PER_MINUTE;
    }
    const b = this.#budget("key", KEY_POLICY, limit);
    try {
      const o = await this.#run(b, "consume", (l) => l.consume(keyId, Math.max(1, Math.floor(calls))));
      return o.rejected ? decide(b, o.res, false) : decide(b, o.value, true);
    } catch (err) {
      // Nothing could count this request (a bug, not an outage): admit it rather than fail the API.
      this.#log?.error({ err, keyId }, "rate limit could not be evaluated; request admitted");
      return decide(b, undefined, true);
    }
  }

  async peek(policy: string, key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const b = this.#budget(policy, policy, limit, windowSeconds);
    try {
      const o = await this.#run(b, "get", (l) => l.get(key));
      const res = o.rejected ? o.res : (o.value ?? undefined);
      const consumed = res && res.msBeforeNext > 0 ? res.consumedPoints : 0;
      return decide(b, consumed > 0 ? res : undefined, consumed < b.limit, consumed);
    } catch (err) {
      this.#log?.error({ err, policy }, "rate limit could not be read; event admitted");
      return decide(b, undefined, true, 0);
    }
  }

  async penalize(policy: string, key: string, limit: number, windowSeconds: number): Promise<void> {
    const b = this.#budget(policy, policy, limit, windowSeconds);
    try {
      // penalty() counts without ever rejecting; the refusal happens in peek.
      await this.#run(b, "penalty", (l) => l.penalty(key));
    } catch (err) {
      this.#log?.error({ err, policy }, "an event could not be counted");
    }
  }

  async refund(policy: string, key: string, limit: number, windowSeconds: number): Promise<void> {
    const b = this.#budget(policy, policy, limit, windowSeconds);
    try {
      await this.#run(b, "reward", (l) => l.reward(key));
    } catch (err) {
      this.#log?.error({ err, policy }, "an event could not be given back");
    }
  }

  async consume(policy: string, key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const b = this.#budget(policy, policy, limit, windowSeconds);
    try {
      const o = await this.#run(b, "consume", (l) => l.consume(key));
      return o.rejected ? decide(b, o.res, false) : decide(b, o.value, true);
    } catch (err) {
      this.#log?.error({ err, policy }, "rate limit could not be evaluated; event admitted");
      return decide(b, undefined, true);
    }
  }

  async close(): Promise<void> {
    this.#budgets.clear();
  }

  /** One budget, made once: the limit is part of the storage key, so changing a workspace's limit starts a fresh window. */
  #budget(name: string, policy: string, limit: number, windowSeconds = RATE_WINDOW_SECONDS): Budget {
    const keyPrefix = `${this.#prefix}:${name}:${limit}${windowSeconds === RATE_WINDOW_SECONDS ? "" : `:${windowSeconds}`}`;
    let b = this.#budgets.get(keyPrefix);
    if (b) return b;
    const base = { keyPrefix, points: limit, duration: windowSeconds };
    const redis = this.#redis;
    if (!redis) {
      const memory = new RateLimiterMemory(base);
      b = { primary: memory, memory, limit, policy, windowSeconds };
    } else {
      const memory = new InsuranceLimiter(base, () => this.#insuranceUsed());
      const primary = new RateLimiterRedis({
        ...base,
        storeClient: redis,
        insuranceLimiter: memory,
        // Not connected: go straight to the insurance instead of sending a command that must fail.
        rejectIfRedisNotReady: true,
        // Once a key is over its limit it stays refused until its window ends, so later requests in
        // the window are refused from this node's memory without a Redis round trip (flood damping).
        inMemoryBlockOnConsumed: limit + 1,
      });
      b = { primary, memory, limit, policy, windowSeconds };
    }
    this.#budgets.set(keyPrefix, b);
    return b;
  }

  #insuranceUsed(): void {
    const now = Date.now();
    if (now - this.#lastInsuranceLog < insuranceLogIntervalMs) return;
    this.#lastInsuranceLog = now;
    this.#log?.warn({ redisStatus: this.#redis?.status }, "rate-limit store unavailable; enforcing per-node in-memory limits until Redis answers again");
  }

  /**
   * Runs `op` on the primary limiter. A rate-limit rejection is an answer, not an error. Anything else
   * (the insurance covers Redis failures, so this means a bug or a broken store) is logged and the
   * operation is repeated on the per-node memory limiter, as the insurance would have done.
   */
  async #run<T>(b: Budget, what: string, op: (l: RateLimiterRedis | RateLimiterMemory) => Promise<T>): Promise<Outcome<T>> {
    try {
      return await attempt(b.primary, op);
    } catch (err) {
      this.#log?.error({ err, op: what, policy: b.policy }, "rate limiter failed; using the per-node in-memory limit");
      if (b.primary === b.memory) throw err;
      return attempt(b.memory, op);
    }
  }
}

/**
 * Builds a decision from a limiter answer. `consumedOverride` is used for reads (peek), where
 * the answer's remainingPoints is not computed by the library.
 */
function decide(b: Budget, res: RateLimiterRes | undefined, allowed: boolean, consumedOverride?: number): RateDecision {
  const window = b.windowSeconds;
  const ms = res?.msBeforeNext;
  const resetSeconds = typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? clamp(Math.ceil(ms / 1000), 1, window) : window;
  const consumed = consumedOverride ?? res?.consumedPoints ?? 0;
  const remaining = allowed ? clamp(b.limit - consumed, 0, b.limit) : 0;
  const decision: RateDecision = { allowed, limit: b.limit, remaining, resetSeconds, windowSeconds: window, policy: b.policy };
  if (!allowed) decision.retryAfterSeconds = resetSeconds;
  return decision;
}

function positiveInt(n: number | undefined): number | undefined {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 ? n : undefined;
}

export function nonNegativeInt(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
