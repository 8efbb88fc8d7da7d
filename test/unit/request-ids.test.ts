import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/auth/api-key-format.ts";
import { presentedKeyPrefix } from "../../src/auth/api-key-format.ts";
import { clientRequestIdOf } from "../../src/request-id.ts";

describe("a client's X-Request-Id", () => {
  it("is kept when it is an ordinary id", () => {
    for (const id of ["3f2a9c1e-8d4b-4e6f-9a7c-2b1d0e5f4a3c", "01KAXQ3Z9Q6H5V2N8R4T7W1Y0B", "trace:abc/DEF+1=", "a", "x".repeat(128)]) {
      expect(clientRequestIdOf(id)).toBe(id);
    }
  });

  it("is dropped when it could break a log line, a header or a CSV cell, or is too long", () => {
    for (const bad of ["", "x".repeat(129), "=HYPERLINK(1)", "-1", "+1", "@a", "a b", "a\nb", "a\tb", "é", "a,b", 'a"b', "<script>", undefined, 7, null]) {
      expect(clientRequestIdOf(bad), String(bad)).toBeNull();
    }
  });
});

describe("the key prefix a refused call is audited with", () => {
  it("is the key's id part, whatever follows it, and never the secret", () => {
    const key = generateApiKey();
    for (const header of [
      `Bearer ${key.key}`,
      `bearer ${key.key}`,
      `Bearer ${key.prefix}`,
      `Bearer ${key.prefix}.short`,
      `Bearer ${key.prefix}_${key.secret}`,
      `Bearer   ${key.key}`,
    ]) {
      expect(presentedKeyPrefix(header), header).toBe(key.prefix);
    }
  });

  it("is null when no id parses", () => {
    const key = generateApiKey();
    for (const header of [
      undefined,
      "",
      key.key,
      `Basic ${key.key}`,
      `Bearer ${key.prefix}X`,
      `Bearer ${key.prefix.toLowerCase()}.${key.secret}`,
      "Bearer vs_8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
      "Bearer test-user:abc",
    ]) {
      expect(presentedKeyPrefix(header), String(header)).toBeNull();
    }
  });
});
