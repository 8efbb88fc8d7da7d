import { createHash } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import { generateApiKey } from "../../src/auth/api-key-format.ts";
import { ARGON2_OPTIONS, argonCalls, hashSecret, resetArgonCalls, verifySecret, VerifiedKeyCache } from "../../src/auth/api-key-hash.ts";

// $argon2id$v=19$m=…,t=…,p=…$<salt, base64 without padding>$<tag>
const phc = /^\$(argon2(?:id|i|d))\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function decodedLength(b64: string): number {
  return Buffer.from(b64, "base64").length;
}

describe("hashSecret / verifySecret", () => {
  const { secret } = generateApiKey();
  let stored: string;

  beforeAll(async () => {
    stored = await hashSecret(secret);
  });

  test("the hash is argon2id v19 with m=19456, t=2, p=1, a 16-byte salt and a 32-byte tag", () => {
    const m = phc.exec(stored);
    expect(m, stored).not.toBeNull();
    const [, algorithm, version, memory, time, parallelism, salt, tag] = m!;
    expect({ algorithm, version, memory, time, parallelism }).toEqual({
      algorithm: "argon2id",
      version: "19",
      memory: "19456",
      time: "2",
      parallelism: "1",
    });
    expect(decodedLength(salt!)).toBe(16);
    expect(decodedLength(tag!)).toBe(32);
    expect(stored).not.toContain(secret);
  });

  test("the parameters are set explicitly, not left to the library's defaults", () => {
    // @node-rs/argon2's defaults happen to match today; node-argon2's are m=64 MiB, t=3, p=4.
    expect(ARGON2_OPTIONS).toEqual({ algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 });
  });

  test("the same secret hashes differently each time (random salt)", async () => {
    const again = await hashSecret(secret);
    expect(again).not.toBe(stored);
    expect(await verifySecret(again, secret)).toBe(true);
  });

  test("verifies the right secret and refuses others", async () => {
    expect(await verifySecret(stored, secret)).toBe(true);
    expect(await verifySecret(stored, generateApiKey().secret)).toBe(false);
    expect(await verifySecret(stored, secret.slice(0, 31))).toBe(false);
    expect(await verifySecret(stored, `${secret}x`)).toBe(false);
    expect(await verifySecret(stored, "")).toBe(false);
  });

  test.each([
    ["empty", ""],
    ["garbage", "garbage"],
    ["truncated", "$argon2id$v=19$m=19456,t=2,p=1$"],
    ["bad base64", "$argon2id$v=19$m=19456,t=2,p=1$!!!!$!!!!"],
    ["bcrypt", "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"],
    ["the secret itself", "SECRET"],
  ])("a malformed stored hash (%s) → false, without throwing", async (_name, bad) => {
    await expect(verifySecret(bad.replace("SECRET", secret), secret)).resolves.toBe(false);
  });

  test("null (no such key) → false after one real verification", async () => {
    resetArgonCalls();
    const started = performance.now();
    expect(await verifySecret(null, secret)).toBe(false);
    const elapsed = performance.now() - started;
    expect(argonCalls()).toEqual({ hash: 0, verify: 1, total: 1 });
    // It did argon2 work (≈ the cost of a real verification), so unknown ids are not a fast path.
    expect(elapsed).toBeGreaterThan(2);
  });

  test("argonCalls counts every hash and verify", async () => {
    resetArgonCalls();
    expect(argonCalls().total).toBe(0);
    const h = await hashSecret("a");
    await verifySecret(h, "a");
    await verifySecret("garbage", "a");
    expect(argonCalls()).toEqual({ hash: 1, verify: 2, total: 3 });
  });
});

/** Every string reachable from `value`: own properties (private ones included), Map and Set entries, arrays. */
function reachableStrings(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === "string") return [value];
  if (typeof value === "number") return [String(value)];
  if (typeof value !== "object" || value === null || seen.has(value)) return [];
  seen.add(value);
  const children: unknown[] = [];
  if (value instanceof Map) for (const [k, v] of value) children.push(k, v);
  else if (value instanceof Set) children.push(...value);
  else children.push(...Object.keys(value), ...Object.values(value));
  return children.flatMap((c) => reachableStrings(c, seen));
}

describe("VerifiedKeyCache", () => {
  const a = generateApiKey();
  const b = generateApiKey();

  test("remembers a verified (id, secret) pair and nothing else", () => {
    const cache = new VerifiedKeyCache();
    expect(cache.has(a.id, a.secret)).toBe(false);
    cache.remember(a.id, a.secret);
    expect(cache.has(a.id, a.secret)).toBe(true);
    expect(cache.has(a.id, b.secret)).toBe(false);
    expect(cache.has(b.id, a.secret)).toBe(false);
    expect(cache.has(a.id, a.secret.toLowerCase())).toBe(false);
  });

  test("stores a digest of the secret, never the secret or the full key", () => {
    const cache = new VerifiedKeyCache();
    cache.remember(a.id, a.secret);
    cache.remember(b.id, b.secret);
    const strings = reachableStrings(cache);
    // The walk reaches the entries: the ids and the digests are there…
    const digest = createHash("sha256").update(a.secret).digest("hex");
    expect(strings).toContain(a.id);
    expect(strings).toContain(digest);
    // …and no stored string holds a secret, or a part of one long enough to matter.
    for (const s of strings) {
      for (const k of [a, b]) {
        expect(s).not.toContain(k.secret);
        expect(s).not.toContain(k.secret.slice(0, 16));
        expect(s).not.toContain(k.secret.slice(16));
      }
    }
  });

  test("entries expire after the TTL (injected clock)", () => {
    let now = 1_000_000;
    const cache = new VerifiedKeyCache({ ttlMs: 60_000, now: () => now });
    cache.remember(a.id, a.secret);
    now += 59_999;
    expect(cache.has(a.id, a.secret)).toBe(true); // a hit does not extend the TTL
    now += 1;
    expect(cache.has(a.id, a.secret)).toBe(false);
    expect(cache.size).toBe(0);
    cache.remember(a.id, a.secret);
    expect(cache.has(a.id, a.secret)).toBe(true);
  });

  test("the default TTL is 10 minutes", () => {
    let now = 0;
    const cache = new VerifiedKeyCache({ now: () => now });
    cache.remember(a.id, a.secret);
    now = 10 * 60_000 - 1;
    expect(cache.has(a.id, a.secret)).toBe(true);
    now = 10 * 60_000;
    expect(cache.has(a.id, a.secret)).toBe(false);
  });

  test("forget(id) drops that key only", () => {
    const cache = new VerifiedKeyCache();
    cache.remember(a.id, a.secret);
    cache.remember(b.id, b.secret);
    cache.forget(a.id);
    expect(cache.has(a.id, a.secret)).toBe(false);
    expect(cache.has(b.id, b.secret)).toBe(true);
    cache.forget("no-such-id");
    expect(cache.size).toBe(1);
  });

  test("holds at most maxEntries, dropping the least recently used", () => {
    const keys = Array.from({ length: 4 }, () => generateApiKey());
    const cache = new VerifiedKeyCache({ maxEntries: 3 });
    for (const k of keys.slice(0, 3)) cache.remember(k.id, k.secret);
    expect(cache.has(keys[0]!.id, keys[0]!.secret)).toBe(true); // now most recently used
    cache.remember(keys[3]!.id, keys[3]!.secret);
    expect(cache.size).toBe(3);
    expect(cache.has(keys[1]!.id, keys[1]!.secret)).toBe(false); // the oldest untouched one went
    expect(cache.has(keys[0]!.id, keys[0]!.secret)).toBe(true);
    expect(cache.has(keys[2]!.id, keys[2]!.secret)).toBe(true);
    expect(cache.has(keys[3]!.id, keys[3]!.secret)).toBe(true);
  });

  test("the default bound is 10 000 entries", () => {
    const cache = new VerifiedKeyCache();
    for (let i = 0; i < 10_050; i++) cache.remember(`id${i}`, "s");
    expect(cache.size).toBe(10_000);
    expect(cache.has("id0", "s")).toBe(false);
    expect(cache.has("id10049", "s")).toBe(true);
  });
});
