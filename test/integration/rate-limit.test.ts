import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { addressBucket } from "../../src/auth/client-address.ts";
import { FailedAuthThrottle, type FailedAuthLimits } from "../../src/auth/failed-auth.ts";
import { createRateLimiter } from "../../src/auth/rate-limit.ts";
import { RATE_LIMIT_DRAFT, rateLimitHeaders } from "../../src/auth/rate-limit-headers.ts";
import type { RateDecision, RateLimiter } from "../../src/auth/rate-limit.ts";
import { createLogger } from "../../src/logger.ts";
import { closeRedis, createRedis, redisReady } from "../../src/redis.ts";
import type { Redis } from "../../src/redis.ts";
import { redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";

const redisUp = await redisReachable();
if (!redisUp && servicesRequired) throw new Error(`Redis at ${testRedisUrl} is required (VESSEL_REQUIRE_SERVICES=1) but unreachable`);

/** A fresh storage prefix per test, so tests never share a window (their keys are deleted afterwards). */
const usedPrefixes: string[] = [];
function newPrefix(): string {
  const prefix = `vessel-test:rl:${randomUUID()}`;
  usedPrefixes.push(prefix);
  return prefix;
}

const silent = createLogger("silent");

/** A logger whose JSON lines are kept, to assert what was logged. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = createLogger("debug", { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  return { log, lines };
}

/** Spends `n` requests of one key and returns every decision. */
async function spend(limiter: RateLimiter, keyId: string, limit: number, n: number): Promise<RateDecision[]> {
  const out: RateDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.consumeKey(keyId, limit));
  return out;
}

function expectRefused(d: RateDecision, limit: number): void {
  expect(d.allowed).toBe(false);
  expect(d.limit).toBe(limit);
  expect(d.remaining).toBe(0);
  expect(Number.isInteger(d.retryAfterSeconds)).toBe(true);
  expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(d.retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(d.resetSeconds).toBe(d.retryAfterSeconds);
}

// Clients and limiters a test opened, closed after it whatever its outcome.
const openClients: Redis[] = [];
const openLimiters: RateLimiter[] = [];
afterEach(async () => {
  await Promise.all(openLimiters.splice(0).map((l) => l.close()));
  await Promise.all(openClients.splice(0).map((c) => closeRedis(c)));
});

async function connectedRedis(): Promise<Redis> {
  const client = createRedis(testRedisUrl, silent);
  openClients.push(client);
  expect(await redisReady(client, 3_000)).toBe(true);
  return client;
}

afterAll(async () => {
  // Windows expire on their own after 60 s; delete them now anyway.
  if (!redisUp || usedPrefixes.length === 0) return;
  const client = createRedis(testRedisUrl, silent);
  if (await redisReady(client, 3_000)) {
    for (const p of usedPrefixes) {
      const keys = await client.keys(`${p}:*`);
      if (keys.length > 0) await client.del(...keys);
    }
  }
  await closeRedis(client);
});

type Kind = "memory" | "redis";
const kinds: Array<{ kind: Kind; skip: boolean }> = [
  { kind: "memory", skip: false },
  { kind: "redis", skip: !redisUp },
];

for (const { kind, skip } of kinds) {
  describe.skipIf(skip)(`rate limiter (${kind}${skip ? `: Redis at ${testRedisUrl} is unreachable` : ""})`, () => {
    async function makeLimiter(): Promise<RateLimiter> {
      const keyPrefix = newPrefix();
      const redis = kind === "redis" ? await connectedRedis() : undefined;
      const limiter = createRateLimiter({ redis, keyPrefix, log: silent });
      openLimiters.push(limiter);
      return limiter;
    }
    const throttle = async (limits: Partial<FailedAuthLimits> = {}) => {
      const limiter = await makeLimiter();
      return { limiter, failed: new FailedAuthThrottle(limiter, limits) };
    };
    const fromIp = (ip: string) => ({ scope: "api-key", ip }) as const;
    const onKey = (keyId: string) => ({ scope: "api-key-id", keyId }) as const;

    test("600 requests a minute pass, the 601st is refused, another key is unaffected", async () => {
      const limiter = await makeLimiter();
      const decisions = await spend(limiter, "K1", 600, 600);
      decisions.forEach((d, i) => {
        expect(d.allowed).toBe(true);
        expect(d.limit).toBe(600);
        expect(d.windowSeconds).toBe(60);
        // remaining counts down: 599 after the first request, 0 after the 600th.
        expect(d.remaining).toBe(599 - i);
        expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
        expect(d.resetSeconds).toBeLessThanOrEqual(60);
        expect(d.retryAfterSeconds).toBeUndefined();
      });

      const refused = await limiter.consumeKey("K1", 600);
      expectRefused(refused, 600);
      // Still refused on the next attempt (refusals do not reopen the window).
      expectRefused(await limiter.consumeKey("K1", 600), 600);

      const other = await limiter.consumeKey("K2", 600);
      expect(other).toMatchObject({ allowed: true, limit: 600, remaining: 599 });
    });

    test("a workspace limit of 5 refuses the 6th request; changing the limit starts a fresh window", async () => {
      const limiter = await makeLimiter();
      const decisions = await spend(limiter, "K5", 5, 5);
      expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
        [true, 4, 5],
        [true, 3, 5],
        [true, 2, 5],
        [true, 1, 5],
        [true, 0, 5],
      ]);
      expectRefused(await limiter.consumeKey("K5", 5), 5);
      // The same key under another limit (the workspace setting changed): a new window.
      expect(await limiter.consumeKey("K5", 7)).toMatchObject({ allowed: true, limit: 7, remaining: 6 });
      // An invalid setting falls back to the default 600 rather than failing the request.
      expect(await limiter.consumeKey("K6", 0)).toMatchObject({ allowed: true, limit: 600, remaining: 599 });
    });

    test("after 30 failed authentications an address is refused; another address is not", async () => {
      const { limiter, failed } = await throttle();
      const fresh = await failed.check(fromIp("203.0.113.7"));
      expect(fresh).toMatchObject({ allowed: true, limit: 30, remaining: 30, policy: "failed-auth" });

      for (let i = 0; i < 29; i++) await failed.record(fromIp("203.0.113.7"));
      expect(await failed.check(fromIp("203.0.113.7"))).toMatchObject({ allowed: true, remaining: 1 });
      // Checking does not consume: still one left.
      expect(await failed.check(fromIp("203.0.113.7"))).toMatchObject({ allowed: true, remaining: 1 });

      // The 30th failure arrives as an IPv4-mapped IPv6 address: the same client.
      await failed.record(fromIp("::ffff:203.0.113.7"));
      const refused = await failed.check(fromIp("203.0.113.7"));
      expectRefused(refused, 30);
      expect(refused.policy).toBe("failed-auth");

      expect(await failed.check(fromIp("203.0.113.8"))).toMatchObject({ allowed: true, remaining: 30 });
      // Failed authentications do not spend any key's request budget.
      expect(await limiter.consumeKey("K1", 600)).toMatchObject({ allowed: true, remaining: 599 });
    });

    test("reservations are counted atomically: of 50 at once, exactly the limit pass; a released one makes room", async () => {
      const { failed } = await throttle({ perKey: 7 });
      const decisions = await Promise.all(Array.from({ length: 50 }, () => failed.reserve(onKey("01BURST"))));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
      const refused = decisions.find((d) => !d.allowed)!;
      expectRefused(refused, 7);
      expect(refused.policy).toBe("failed-auth-key");
      // A bucket not yet over its limit: a released reservation makes room for one more.
      for (let i = 0; i < 7; i++) expect((await failed.reserve(onKey("01FULL"))).allowed).toBe(true);
      await failed.release(onKey("01FULL"));
      expect((await failed.reserve(onKey("01FULL"))).allowed).toBe(true);
      expect((await failed.reserve(onKey("01FULL"))).allowed).toBe(false);
    });

    test("a key id's bucket is apart from the addresses'; sign-in failures have a bucket of their own", async () => {
      const { failed } = await throttle({ perAddress: 100, perKey: 3, signInPerAddress: 2 });
      for (let i = 0; i < 3; i++) await failed.record(onKey("01KEY"));
      expectRefused(await failed.check(onKey("01KEY")), 3);
      expect(await failed.check(onKey("01OTHER"))).toMatchObject({ allowed: true, remaining: 3 });
      expect(await failed.check(fromIp("198.51.100.1"))).toMatchObject({ allowed: true, remaining: 100 });

      // A flood of bad API keys from one address leaves its sign-ins alone, and the other way round.
      for (let i = 0; i < 5; i++) await failed.record(fromIp("198.51.100.1"));
      expect(await failed.check({ scope: "sign-in", ip: "198.51.100.1" })).toMatchObject({ allowed: true, remaining: 2 });
      await failed.record({ scope: "sign-in", ip: "198.51.100.4" });
      await failed.record({ scope: "sign-in", ip: "198.51.100.4" });
      expect((await failed.check({ scope: "sign-in", ip: "198.51.100.4" })).policy).toBe("failed-sign-in");
      expect((await failed.check({ scope: "sign-in", ip: "198.51.100.4" })).allowed).toBe(false);
      expect(await failed.check(fromIp("198.51.100.4"))).toMatchObject({ allowed: true, remaining: 100 });
    });

    test("IPv6 failures are counted per /64", async () => {
      const { failed } = await throttle({ perAddress: 3 });
      await failed.record(fromIp("2001:db8:1:2::1"));
      await failed.record(fromIp("2001:db8:1:2:aaaa::2"));
      await failed.record(fromIp("2001:0db8:0001:0002:ffff:ffff:ffff:ffff"));
      expectRefused(await failed.check(fromIp("2001:db8:1:2::99")), 3);
      expect(await failed.check(fromIp("2001:db8:1:3::1"))).toMatchObject({ allowed: true, remaining: 3 });
    });
  });
}

describe.skipIf(!redisUp)(`rate limiter across nodes (Redis at ${testRedisUrl})`, () => {
  test("two nodes share one budget: 300 on each, then the 601st on either is refused", async () => {
    const keyPrefix = newPrefix();
    const [ra, rb] = [await connectedRedis(), await connectedRedis()];
    const a = createRateLimiter({ redis: ra, keyPrefix, log: silent });
    const b = createRateLimiter({ redis: rb, keyPrefix, log: silent });
    openLimiters.push(a, b);

    const onA = await spend(a, "K1", 600, 300);
    expect(onA.every((d) => d.allowed)).toBe(true);
    const onB = await spend(b, "K1", 600, 300);
    expect(onB.every((d) => d.allowed)).toBe(true);
    // B continues A's count: the budget lives in Redis, not in either node.
    expect(onB[0]!.remaining).toBe(299);
    expect(onB[299]!.remaining).toBe(0);

    expectRefused(await a.consumeKey("K1", 600), 600);
    expectRefused(await b.consumeKey("K1", 600), 600);

    // The window is one Redis key per (limit, key id) with the 60-second TTL.
    const ttl = await ra.pttl(`${keyPrefix}:key:600:K1`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(Number(await ra.get(`${keyPrefix}:key:600:K1`))).toBeGreaterThanOrEqual(601);
  });

  test("failed authentications are shared across nodes too", async () => {
    const keyPrefix = newPrefix();
    const la = createRateLimiter({ redis: await connectedRedis(), keyPrefix, log: silent });
    const lb = createRateLimiter({ redis: await connectedRedis(), keyPrefix, log: silent });
    openLimiters.push(la, lb);
    const [a, b] = [new FailedAuthThrottle(la, { perAddress: 4 }), new FailedAuthThrottle(lb, { perAddress: 4 })];
    const attempt = { scope: "api-key", ip: "198.51.100.1" } as const;
    await a.record(attempt);
    await a.record(attempt);
    await b.record(attempt);
    expect(await b.check(attempt)).toMatchObject({ allowed: true, remaining: 1 });
    await b.record(attempt);
    expectRefused(await a.check(attempt), 4);
  });
});

describe("insurance: Redis unavailable", () => {
  test("a client pointed at a closed port answers at once and still limits (per-node memory)", async () => {
    const { log, lines } = capturingLogger();
    const dead = createRedis("redis://127.0.0.1:1", log);
    openClients.push(dead);
    const limiter = createRateLimiter({ redis: dead, keyPrefix: newPrefix(), log });
    openLimiters.push(limiter);

    const started = performance.now();
    const decisions = await spend(limiter, "K5", 5, 6);
    const failed = new FailedAuthThrottle(limiter);
    await failed.record({ scope: "api-key", ip: "192.0.2.1" });
    const gate = await failed.check({ scope: "api-key", ip: "192.0.2.1" });
    const elapsed = performance.now() - started;

    expect(elapsed).toBeLessThan(2_000);
    expect(decisions.slice(0, 5).map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    expectRefused(decisions[5]!, 5);
    expect(gate).toMatchObject({ allowed: true, remaining: 29 });
    expect(dead.status).not.toBe("ready");
    // The fallback is reported (once, not per request) and nothing is logged as a limiter failure.
    expect(lines.filter((l) => l.msg.startsWith("rate-limit store unavailable"))).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  test.skipIf(!redisUp)("losing Redis mid-window degrades to per-node limits, not to no limit or errors", async () => {
    const client = await connectedRedis();
    const limiter = createRateLimiter({ redis: client, keyPrefix: newPrefix(), log: silent });
    openLimiters.push(limiter);
    expect((await spend(limiter, "K5", 5, 3)).every((d) => d.allowed)).toBe(true);

    client.disconnect(false);
    // The insurance starts its own count: 5 more pass on this node, the next is refused.
    const after = await spend(limiter, "K5", 5, 6);
    expect(after.slice(0, 5).every((d) => d.allowed)).toBe(true);
    expectRefused(after[5]!, 5);
  });

  test.skipIf(!redisUp)("a Redis that stops answering costs at most the command timeout, then fails fast", async () => {
    // A TCP proxy to the real Redis that can be frozen: connections stay open but nothing is forwarded.
    let frozen = false;
    const sockets = new Set<net.Socket>();
    const { hostname, port } = new URL(testRedisUrl);
    const proxy = net.createServer((inbound) => {
      const outbound = net.connect({ host: hostname, port: Number(port || 6379) });
      sockets.add(inbound).add(outbound);
      inbound.on("data", (d) => void (frozen || outbound.write(d)));
      outbound.on("data", (d) => void (frozen || inbound.write(d)));
      const end = () => {
        inbound.destroy();
        outbound.destroy();
      };
      inbound.on("close", end).on("error", end);
      outbound.on("close", end).on("error", end);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxyPort = (proxy.address() as net.AddressInfo).port;
    try {
      const { log, lines } = capturingLogger();
      const client = createRedis(`redis://127.0.0.1:${proxyPort}`, log);
      openClients.push(client);
      expect(await redisReady(client, 3_000)).toBe(true);
      const limiter = createRateLimiter({ redis: client, keyPrefix: newPrefix(), log });
      openLimiters.push(limiter);
      expect(await limiter.consumeKey("K", 3)).toMatchObject({ allowed: true, remaining: 2 });

      frozen = true;
      const t0 = performance.now();
      const first = await limiter.consumeKey("K", 3);
      const firstMs = performance.now() - t0;
      // commandTimeout (500 ms) then the insurance answers, with its own count.
      expect(first).toMatchObject({ allowed: true, remaining: 2 });
      expect(firstMs).toBeGreaterThanOrEqual(400);
      expect(firstMs).toBeLessThan(1_500);

      // socketTimeout (2 s) declares the socket dead; from then on calls do not wait at all.
      await new Promise((r) => setTimeout(r, 2_200));
      expect(client.status).not.toBe("ready");
      const t1 = performance.now();
      const rest = await spend(limiter, "K", 3, 3);
      expect(performance.now() - t1).toBeLessThan(250);
      expect(rest.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(lines.some((l) => l.msg.startsWith("rate-limit store unavailable"))).toBe(true);
    } finally {
      frozen = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

describe("RateLimit header fields", () => {
  test(`pinned to ${RATE_LIMIT_DRAFT}`, () => {
    expect(RATE_LIMIT_DRAFT).toBe("draft-ietf-httpapi-ratelimit-headers-11");
  });

  test("an admitted request: RateLimit-Policy and RateLimit, no Retry-After", () => {
    const headers = rateLimitHeaders({ allowed: true, limit: 600, remaining: 599, resetSeconds: 42, windowSeconds: 60 });
    expect(headers).toEqual({
      "RateLimit-Policy": '"default";q=600;w=60',
      RateLimit: '"default";r=599;t=42',
    });
  });

  test("a refused request adds an integer Retry-After equal to t", () => {
    const headers = rateLimitHeaders({
      allowed: false,
      limit: 5,
      remaining: 0,
      resetSeconds: 17,
      windowSeconds: 60,
      retryAfterSeconds: 17,
    });
    expect(headers).toEqual({
      "RateLimit-Policy": '"default";q=5;w=60',
      RateLimit: '"default";r=0;t=17',
      "Retry-After": "17",
    });
  });

  test("the failed-authentication policy is named as such", () => {
    const headers = rateLimitHeaders({
      allowed: false,
      limit: 30,
      remaining: 0,
      resetSeconds: 60,
      windowSeconds: 60,
      retryAfterSeconds: 60,
      policy: "failed-auth",
    });
    expect(headers).toEqual({
      "RateLimit-Policy": '"failed-auth";q=30;w=60',
      RateLimit: '"failed-auth";r=0;t=60',
      "Retry-After": "60",
    });
  });

  test("values are always well-formed integers: Retry-After is at least 1, t matches it", () => {
    const headers = rateLimitHeaders({ allowed: false, limit: 5, remaining: -3, resetSeconds: 0.2, windowSeconds: 60, retryAfterSeconds: 0.2 });
    expect(headers["Retry-After"]).toBe("1");
    expect(headers.RateLimit).toBe('"default";r=0;t=1');
  });

  test("a real refusal produces matching Retry-After and t", async () => {
    const limiter = createRateLimiter({ keyPrefix: newPrefix(), log: silent });
    openLimiters.push(limiter);
    await spend(limiter, "K", 2, 2);
    const refused = rateLimitHeaders(await limiter.consumeKey("K", 2));
    const t = /^"default";r=0;t=(\d+)$/.exec(refused.RateLimit ?? "")?.[1];
    expect(t).toBeDefined();
    expect(refused["Retry-After"]).toBe(t);
    expect(Number(t)).toBeGreaterThanOrEqual(1);
    expect(Number(t)).toBeLessThanOrEqual(60);
    expect(refused["RateLimit-Policy"]).toBe('"default";q=2;w=60');
  });
});

describe("addressBucket", () => {
  test.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::FFFF:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:0003:0004:0005:0006", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    ["", "unknown"],
  ])("%s → %s", (ip, bucket) => {
    expect(addressBucket(ip)).toBe(bucket);
  });
});
