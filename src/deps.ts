import { ApiKeyAuthenticator } from "./auth/authenticate.ts";
import { createRateLimiter, DEFAULT_KEY_LIMIT_PER_MINUTE } from "./auth/rate-limit.ts";
import { memoryRevocations, redisRevocations } from "./auth/revocations.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/client.ts";
import type { Logger } from "./logger.ts";
import { closeRedis, createRedis, redisReady } from "./redis.ts";
import { AuditWriter } from "./services/audit.ts";
import type { AppDeps, ServiceContext } from "./services/context.ts";

export interface DepsOptions {
  /** The clock (tests move it, for example past a sunset date). */
  now?: () => Date;
  /** Prefix of every Redis key, so deployments (and tests) sharing a Redis stay apart. */
  redisPrefix?: string;
}

/**
 * The long-lived parts every service call needs, built the same way for the server, the command-line
 * scripts and the tests: Redis when configured, the rate limiter, the revocation list, the key
 * authenticator and the audit writer. `close()` flushes the audit log before anything shuts.
 */
export async function createDeps(
  config: Config,
  db: Database,
  log: Logger,
  options: DepsOptions = {},
): Promise<{ deps: AppDeps; close(): Promise<void> }> {
  const now = options.now ?? (() => new Date());
  const prefix = options.redisPrefix ?? "vessel:";
  const redis = config.redis.url ? createRedis(config.redis.url, log.child({ component: "redis" })) : undefined;
  if (redis && !(await redisReady(redis))) {
    log.warn("Redis is not reachable yet; rate limits fall back to this node's memory until it is");
  }
  const limiter = createRateLimiter({ redis, keyPrefix: `${prefix}rl:`, log });
  const revocations = redis ? redisRevocations(redis, prefix) : memoryRevocations();
  const auth = new ApiKeyAuthenticator({ prisma: db.prisma, limiter, revocations, log, now, defaultRatePerMinute: DEFAULT_KEY_LIMIT_PER_MINUTE });
  const audit = new AuditWriter(db.prisma, { log: log.child({ component: "audit" }) });
  return {
    deps: { config, db, log, auth, limiter, audit, now },
    async close() {
      await audit.close();
      await limiter.close();
      if (redis) await closeRedis(redis);
    },
  };
}

/** A context for work that no request carries (scripts, jobs): no principal, so nothing is audited. */
export function internalContext(deps: AppDeps, requestId: string): ServiceContext {
  return { deps, requestId, log: deps.log.child({ requestId }), principal: null, ip: null };
}
