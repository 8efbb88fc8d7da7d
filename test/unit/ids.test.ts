import { decodeTime, isValid } from "ulid";
import { describe, expect, test } from "vitest";
import { monotonicFactory, ulid } from "../../src/ids.ts";

describe("ids", () => {
  test("ULIDs carry their time and 80 random bits in every position of the alphabet", () => {
    const at = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
    const ids = Array.from({ length: 5_000 }, () => ulid(at));
    for (const id of ids.slice(0, 50)) {
      expect(isValid(id)).toBe(true);
      expect(decodeTime(id)).toBe(at);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Each of the 16 random positions takes all 32 characters over 5 000 ids (a stuck or biased
    // source would not: the chance that a fair one misses a character somewhere is below 1e-60).
    for (let position = 10; position < 26; position++) {
      expect(new Set(ids.map((id) => id[position])).size).toBe(32);
    }
    expect(decodeTime(ulid())).toBeGreaterThanOrEqual(Date.now() - 1_000);
  });

  test("monotonic ULIDs increase within one millisecond", () => {
    const next = monotonicFactory();
    const at = Date.now();
    const ids = Array.from({ length: 1_000 }, () => next(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
