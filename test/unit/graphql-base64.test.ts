import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isBase64 } from "../../src/graphql/base64.ts";

/** The GraphQL upload arguments (uploadExtension, uploadSessionFile): canonical base64 of any size. */
describe("isBase64", () => {
  it("takes what Buffer writes, padded or not, up to the extension limit and past it", () => {
    for (const n of [0, 1, 2, 3, 4, 1000]) expect(isBase64(randomBytes(n).toString("base64"))).toBe(true);
    // 16 MiB: the repeated-group pattern it replaces overflowed the regexp stack from about 4 MiB.
    expect(isBase64(randomBytes(16 * 1024 * 1024).toString("base64"))).toBe(true);
  });

  it("refuses anything else", () => {
    for (const bad of ["abc", "ab=c", "a===", "====", "abc!", "ab c", "YWJj\n", "YW=j", "-_-_"]) expect(isBase64(bad), bad).toBe(false);
  });
});
