import { EventEmitter } from "node:events";
import type { Logger } from "./logger.ts";
import type { Redis } from "./redis.ts";

/**
 * Fan-out of small messages between nodes (session events to long polls and subscriptions).
 * Delivery is best effort: readers always re-read the database, so a lost message only delays them.
 */
export interface PubSub {
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` for each message on `channel` until the returned function is called. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
  close(): Promise<void>;
}

/** One process: the embedded default, and tests. */
export function memoryPubSub(): PubSub {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    subscribe(channel, listener) {
      emitter.on(channel, listener);
      return () => emitter.off(channel, listener);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/**
 * Redis PUBLISH/SUBSCRIBE for several nodes. Publishing uses the shared fail-fast client; listening
 * needs a connection of its own (a subscribed connection can do nothing else), which re-subscribes
 * by itself after a reconnect. A channel is subscribed while at least one local listener wants it.
 * When Redis refuses a publish, listeners on this node still hear it.
 */
export function redisPubSub(redis: Redis, prefix: string, log: Logger): PubSub {
  const local = new EventEmitter();
  local.setMaxListeners(0);
  const subscriber = redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
  subscriber.on("error", (err: Error) => log.debug({ err: err.message }, "pub/sub connection error"));
  subscriber.on("message", (channel: string, message: string) => {
    if (channel.startsWith(prefix)) local.emit(channel.slice(prefix.length), message);
  });
  return {
    async publish(channel, message) {
      try {
        await redis.publish(prefix + channel, message);
      } catch (err) {
        log.warn({ err: (err as Error).message, channel }, "pub/sub publish failed; only this node hears it");
        local.emit(channel, message);
      }
    },
    subscribe(channel, listener) {
      if (local.listenerCount(channel) === 0) {
        subscriber.subscribe(prefix + channel).catch((err: Error) => log.warn({ err: err.message, channel }, "pub/sub subscribe failed"));
      }
      local.on(channel, listener);
      return () => {
        local.off(channel, listener);
        if (local.listenerCount(channel) === 0 && subscriber.status === "ready") {
          subscriber.unsubscribe(prefix + channel).catch(() => {});
        }
      };
    },
    async close() {
      local.removeAllListeners();
      subscriber.disconnect(false);
    },
  };
}
