import { Redis } from "ioredis";
import type { RedisOptions } from "ioredis";
import type { Logger } from "./logger.ts";
import { safeUrl } from "./logger.ts";

export type { Redis };

/**
 * Options that make every command fail fast while Redis is unreachable, so callers (the rate limiter
 * in particular) fall back to their in-memory insurance at once instead of queueing or hanging:
 *
 * - `enableOfflineQueue: false`: while the connection is not ready, a command is rejected immediately
 *   ("Stream isn't writeable…") instead of waiting for a reconnect;
 * - `maxRetriesPerRequest: 1`: commands caught in flight by a disconnect are failed after one
 *   reconnect attempt;
 * - `autoResendUnfulfilledCommands: false`: a command that already failed or timed out is not sent
 *   again after a reconnect (a rate-limit INCR would otherwise be counted twice);
 * - `commandTimeout`: a server that accepts the connection but does not answer (a partition without
 *   RST, a stalled process) costs each command at most this long;
 * - `socketTimeout`: if nothing at all arrives for this long while commands are pending, the socket
 *   is considered dead and torn down, so later commands fail immediately until the reconnect succeeds;
 * - reconnect forever with exponential backoff (100 ms doubling, capped at 5 s, plus jitter).
 */
export const failFastRedisOptions = {
  enableOfflineQueue: false,
  // Commands issued in one tick (the revocation check and the rate-limit spend) share one write.
  enableAutoPipelining: true,
  maxRetriesPerRequest: 1,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 2_000,
  commandTimeout: 500,
  socketTimeout: 2_000,
  retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times - 1, 6), 5_000) + Math.floor(Math.random() * 200),
} satisfies RedisOptions;

/**
 * A Redis client for rate limits (and, later, pub/sub) that fails fast while Redis is down.
 * Connection errors are logged once per outage (warn), with a recovery message (info) when the
 * connection is ready again; the URL is logged without credentials. `overrides` replaces any of
 * {@link failFastRedisOptions} (for example a longer `commandTimeout` for bulk work).
 */
export function createRedis(url: string, log?: Logger, overrides: RedisOptions = {}): Redis {
  const client = new Redis(url, { ...failFastRedisOptions, ...overrides });
  const where = redactRedisUrl(url);
  let down = false;
  // Without an 'error' listener ioredis prints every reconnect failure to the console.
  client.on("error", (err: Error) => {
    if (down) {
      log?.debug({ err: err.message, redis: where }, "redis still unavailable");
      return;
    }
    down = true;
    log?.warn({ err: err.message, redis: where }, "redis unavailable; commands fail fast until it reconnects");
  });
  client.on("ready", () => {
    if (down) log?.info({ redis: where }, "redis connection restored");
    down = false;
  });
  return client;
}

/** Resolves true once the client is ready (immediately if it already is), false after `timeoutMs`. */
export function redisReady(client: Redis, timeoutMs = 2_000): Promise<boolean> {
  if (client.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      resolve(false);
    }, timeoutMs);
    timer.unref();
    client.once("ready", onReady);
  });
}

/** Closes the client: QUIT when connected (bounded to 1 s), otherwise just drop the socket and stop reconnecting. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === "end") return;
  if (client.status !== "ready") {
    client.disconnect(false);
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), 1_000);
  });
  try {
    const outcome = await Promise.race([client.quit(), timeout]);
    if (outcome === "timeout") client.disconnect(false);
  } catch {
    client.disconnect(false);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL with any password replaced, for logs. */
function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "redacted";
    return safeUrl(u.toString());
  } catch {
    return "[unparseable redis url]";
  }
}
