import { randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import { API_KEY_REGEX, BASE62_ALPHABET, generateApiKey, parseApiKey, randomBase62 } from "../../src/auth/api-key-format.ts";

// The published shape (security research §2 A.1), independent of the module's own regex.
const published = /^vs_[0-9A-HJKMNP-TV-Z]{26}\.[0-9A-Za-z]{32}$/;

/** Pearson's chi-square statistic of character counts against a uniform distribution over the alphabet. */
function chiSquare(text: string): number {
  const counts = new Map<string, number>([...BASE62_ALPHABET].map((c) => [c, 0]));
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  const expected = text.length / BASE62_ALPHABET.length;
  let sum = 0;
  for (const n of counts.values()) sum += (n - expected) ** 2 / expected;
  return sum;
}

/** What a naive generator does: one random byte per character, reduced modulo 62. */
function moduloBiasedSecret(length: number): string {
  return [...randomBytes(length)].map((b) => BASE62_ALPHABET[b % 62]).join("");
}

// 61 degrees of freedom: mean 61, standard deviation 11. P(χ² > 120) ≈ 1e-5 for a uniform source,
// while the modulo bias (8 characters at 5/256, 54 at 4/256) adds ≈ 210 over 32 000 characters.
const chiSquareBound = 120;

describe("generateApiKey", () => {
  const keys = Array.from({ length: 1000 }, () => generateApiKey());

  test("every key has the published shape and its parts agree", () => {
    for (const k of keys) {
      expect(k.key).toMatch(published);
      expect(k.key).toMatch(API_KEY_REGEX);
      expect(k.prefix).toBe(`vs_${k.id}`);
      expect(k.key).toBe(`${k.prefix}.${k.secret}`);
      expect(k.secret).toHaveLength(32);
      expect(k.id).toHaveLength(26);
    }
  });

  test("1000 secrets and ids are unique", () => {
    expect(new Set(keys.map((k) => k.secret)).size).toBe(1000);
    expect(new Set(keys.map((k) => k.id)).size).toBe(1000);
  });

  test("secrets use the whole alphabet evenly; a modulo-biased generator would not pass", () => {
    const text = keys.map((k) => k.secret).join("");
    expect(new Set(text).size).toBe(62);
    const ours = chiSquare(text);
    const biased = chiSquare(Array.from({ length: 1000 }, () => moduloBiasedSecret(32)).join(""));
    expect(biased).toBeGreaterThan(chiSquareBound); // the check has teeth
    expect(ours).toBeLessThan(chiSquareBound);
  });
});

describe("randomBase62", () => {
  test("rejects bytes 248–255 instead of wrapping them", () => {
    const feed = [255, 0, 248, 61, 62, 247, 252, 123];
    let offset = 0;
    const source = (size: number) => {
      const out = Uint8Array.from({ length: size }, (_, i) => feed[(offset + i) % feed.length]!);
      offset += size;
      return out;
    };
    // 255, 248 and 252 are skipped; 0→'0', 61→'z', 62→'0', 247→'z', 123→'z'.
    expect(randomBase62(5, source)).toBe("0z0zz");
  });

  test("keeps drawing when a whole batch is rejected", () => {
    let calls = 0;
    const source = (size: number) => {
      calls++;
      return new Uint8Array(size).fill(calls < 3 ? 250 : 10);
    };
    expect(randomBase62(4, source)).toBe("AAAA");
    expect(calls).toBe(3);
  });
});

describe("parseApiKey", () => {
  test("round-trips a generated key", () => {
    const k = generateApiKey();
    expect(parseApiKey(k.key)).toEqual({ id: k.id, prefix: k.prefix, secret: k.secret });
  });

  const id = "01HZY3K4M5N6P7Q8R9S0T1V2W3";
  const secret = "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI";
  const valid = `vs_${id}.${secret}`;

  test("the fixture itself is valid", () => {
    expect(parseApiKey(valid)).toEqual({ id, prefix: `vs_${id}`, secret });
  });

  test.each([
    ["empty", ""],
    ["too short", "vs_bad"],
    ["prefix only", `vs_${id}`],
    ["prefix and dot", `vs_${id}.`],
    ["wrong prefix", `vk_${id}.${secret}`],
    ["upper-case prefix", `VS_${id}.${secret}`],
    ["no prefix", `${id}.${secret}`],
    ["dash instead of underscore", `vs-${id}.${secret}`],
    ["lower-case ULID", `vs_${id.toLowerCase()}.${secret}`],
    ["ULID with I", `vs_${id.slice(0, 25)}I.${secret}`],
    ["ULID with L", `vs_${id.slice(0, 25)}L.${secret}`],
    ["ULID with O", `vs_${id.slice(0, 25)}O.${secret}`],
    ["ULID with U", `vs_${id.slice(0, 25)}U.${secret}`],
    ["ULID beyond 48-bit time", `vs_8${id.slice(1)}.${secret}`],
    ["ULID 25 characters", `vs_${id.slice(1)}.${secret}`],
    ["ULID 27 characters", `vs_${id}0.${secret}`],
    ["secret 31 characters", `vs_${id}.${secret.slice(1)}`],
    ["secret 33 characters", `vs_${id}.${secret}a`],
    ["secret with a dash", `vs_${id}.${secret.slice(1)}-`],
    ["secret with an underscore", `vs_${id}.${secret.slice(1)}_`],
    ["secret with a non-ASCII letter", `vs_${id}.${secret.slice(1)}é`],
    ["missing separator", `vs_${id}${secret}`],
    ["underscore separator", `vs_${id}_${secret}`],
    ["two dots", `vs_${id}..${secret.slice(1)}`],
    ["extra dot at the end", `${valid}.`],
    ["extra segment", `${valid}.abc`],
    ["leading space", ` ${valid}`],
    ["trailing space", `${valid} `],
    ["trailing newline", `${valid}\n`],
    ["inner tab", `vs_${id}.\t${secret.slice(1)}`],
    ["NUL at the end", `${valid}\0`],
    ["with the Bearer scheme", `Bearer ${valid}`],
    ["twice", `${valid}${valid}`],
  ])("%s → null", (_name, raw) => {
    expect(parseApiKey(raw)).toBeNull();
  });

  test("non-strings → null (callers may pass whatever a header held)", () => {
    for (const raw of [undefined, null, 42, ["vs_"], { toString: () => valid }]) {
      expect(parseApiKey(raw as unknown as string)).toBeNull();
    }
  });
});
