import { randomUUID } from "node:crypto";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argonCalls } from "../../src/auth/api-key-hash.ts";
import { addKey, bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.ts";
import { redisReachable, servicesRequired, testDatabaseUrl, testRedisUrl } from "../support/services.ts";

/**
 * Failed-authentication throttling behind a load balancer (issue 18): keyed on the client address
 * behind the trusted proxies (auth/client-address.ts) and on the key id (auth/failed-auth.ts), and
 * never refusing a key that verifies. The test client plays the load balancer: it connects from
 * 127.0.0.1 and says who the client is in X-Forwarded-For.
 */

const modes = [
  { name: "embedded (PGlite, in-memory limits)", backend: "pglite" as const, redis: false },
  { name: "PostgreSQL + Redis", backend: "postgres" as const, redis: true },
];
const available = { pglite: true, postgres: (await postgresAvailable()) && (await redisReachable()) };
if (!available.postgres && servicesRequired) throw new Error(`PostgreSQL (${testDatabaseUrl}) and Redis (${testRedisUrl}) are required`);

/** The default budgets of failed-auth.ts. */
const PER_ADDRESS = 30;
const PER_KEY = 30;

/** A well-formed key nobody was given: a fresh id, a random secret. */
const unknownKey = () => `vs_${ulid()}.${randomUUID().replaceAll("-", "")}`;
/** The key's id with a wrong secret (it differs from the real one in every character's case or digit). */
const wrongSecret = (key: string) => `${key.split(".")[0]}.${[...key.split(".")[1]!].map((c) => (c === "A" ? "B" : "A")).join("")}`;

for (const mode of modes) {
  describe.skipIf(!available[mode.backend])(`failed-authentication throttling — ${mode.name}`, () => {
    let tdb: TestDatabase;
    let behindProxy: TestApp;
    let direct: TestApp;
    let ws: Seeded;
    const env: Record<string, string> = mode.redis ? { REDIS_URL: testRedisUrl } : {};

    beforeAll(async () => {
      tdb = await createTestDatabase(mode.backend);
      // Two deployments on one database: one trusts the loopback "load balancer", one trusts nobody.
      behindProxy = await startTestApp({ db: tdb.db, env: { ...env, VESSEL_TRUSTED_PROXIES: "127.0.0.1/32" }, redisPrefix: `vessel-test-${randomUUID()}:` });
      direct = await startTestApp({ db: tdb.db, env, redisPrefix: `vessel-test-${randomUUID()}:` });
      ws = await seedWorkspace(behindProxy);
    });
    afterAll(async () => {
      await behindProxy?.stop();
      await direct?.stop();
      await tdb?.dispose();
    });

    const call = (t: TestApp, key: string, from?: string) =>
      fetch(`${t.url}/v1/health`, { headers: { ...bearer(key), ...(from ? { "x-forwarded-for": from } : {}) } });
    /** `n` attempts, in batches, with their statuses counted. */
    async function flood(t: TestApp, keys: () => string, from: string, n: number): Promise<Record<number, number>> {
      const counts: Record<number, number> = {};
      for (let sent = 0; sent < n; sent += 20) {
        const batch = await Promise.all(Array.from({ length: Math.min(20, n - sent) }, () => call(t, keys(), from)));
        for (const res of batch) counts[res.status] = (counts[res.status] ?? 0) + 1;
      }
      return counts;
    }
    const ipOfLastEntry = async (keyPrefix: string) => {
      await behindProxy.app.deps.audit.flush();
      await direct.app.deps.audit.flush();
      const [entry] = await tdb.db.prisma.auditEntry.findMany({ where: { keyPrefix, action: "health.get" }, orderBy: { id: "desc" }, take: 1 });
      return entry?.ip;
    };

    it("behind a trusted proxy list, 200 bad keys from one forwarded address do not refuse a good key from another", async () => {
      const good = await addKey(behindProxy, ws.workspace.id);
      const hashes = argonCalls().verify;
      const counts = await flood(behindProxy, unknownKey, "198.51.100.1", 200);
      // Each unknown id costs one (dummy) hash until the address is throttled; then none.
      expect(counts).toEqual({ 401: PER_ADDRESS, 429: 200 - PER_ADDRESS });
      expect(argonCalls().verify - hashes).toBe(PER_ADDRESS);

      // Another client behind the same balancer: its good key (never verified on this node) works,
      // and its own mistakes are still plain 401s: it has a budget of its own.
      const res = await call(behindProxy, good.key, "203.0.113.5");
      expect(res.status).toBe(200);
      expect(await ipOfLastEntry(good.prefix)).toBe("203.0.113.5");
      expect((await call(behindProxy, unknownKey(), "203.0.113.5")).status).toBe(401);
      // A good key is never refused, even from the throttled address.
      const again = await addKey(behindProxy, ws.workspace.id);
      expect((await call(behindProxy, again.key, "198.51.100.1")).status).toBe(200);
      const refused = await call(behindProxy, unknownKey(), "198.51.100.1");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("ratelimit-policy")).toBe(`"failed-auth";q=${PER_ADDRESS};w=60`);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    });

    it("a known key id attacked from one address still works from its owner's address, at no hash per refused attempt", async () => {
      const target = await addKey(behindProxy, ws.workspace.id);
      const hashes = argonCalls().verify;
      const counts = await flood(behindProxy, () => wrongSecret(target.key), "198.51.100.2", 200);
      expect(counts).toEqual({ 401: PER_KEY, 429: 200 - PER_KEY });
      expect(argonCalls().verify - hashes).toBe(PER_KEY);

      // The id is throttled everywhere now: a wrong secret from a fresh address is refused, unhashed.
      const before = argonCalls().verify;
      const probe = await call(behindProxy, wrongSecret(target.key), "192.0.2.77");
      expect(probe.status).toBe(429);
      expect(probe.headers.get("ratelimit-policy")).toBe(`"failed-auth-key";q=${PER_KEY};w=60`);
      expect(argonCalls().verify - before).toBe(0);

      // Its owner's key was never verified on this node, so it is hashed, and it passes: from the
      // owner's address, and from the attacker's too.
      expect((await call(behindProxy, target.key, "203.0.113.6")).status).toBe(200);
      expect(argonCalls().verify - before).toBe(1);
      expect((await call(behindProxy, target.key, "198.51.100.2")).status).toBe(200);
    });

    it("without the list, the forwarded header is ignored: every client is its socket's address", async () => {
      const good = await addKey(direct, ws.workspace.id);
      const counts = await flood(direct, unknownKey, "198.51.100.3", PER_ADDRESS);
      expect(counts).toEqual({ 401: PER_ADDRESS });
      // Claiming another address changes nothing: the bucket is 127.0.0.1's.
      expect((await call(direct, unknownKey(), "203.0.113.7")).status).toBe(429);
      expect((await call(direct, unknownKey())).status).toBe(429);
      // And still, a key that verifies is not refused; its entry names the socket's address.
      expect((await call(direct, good.key, "203.0.113.7")).status).toBe(200);
      expect(await ipOfLastEntry(good.prefix)).toBe("127.0.0.1");
    });
  });
}
