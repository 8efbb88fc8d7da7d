import { describe, expect, it } from "vitest";
import { readCookie, readCookies } from "../../src/auth/cookies.ts";

describe("the Cookie header, as cookie's parser reads it for us", () => {
  it("takes values as they are: quotes go, nothing is percent-decoded, a pair without a name is no cookie", () => {
    expect([...readCookies('a="x y"; b=%41; =orphan; c=; d=1=2')]).toEqual([
      ["a", "x y"],
      ["b", "%41"],
      ["c", ""],
      ["d", "1=2"],
    ]);
    expect(readCookie("c=; c=late", "c")).toBeUndefined();
  });

  it("reads no header past 16 KiB", () => {
    expect(readCookies(`a=1; pad=${"p".repeat(16_384)}`).size).toBe(0);
    expect(readCookies(undefined).size).toBe(0);
  });
});
