import { describe, expect, it } from "vitest";
import { compileLayer, judgeByRules, parseRule } from "../../src/browser/egress/rules.ts";

const text = (input: string) => {
  const rule = parseRule(input);
  return typeof rule === "string" ? `! ${rule}` : rule.text;
};

describe("network rules (browser/egress/rules.ts)", () => {
  it("reads host names, patterns, addresses and CIDRs with optional ports, normalised", () => {
    expect(text("Example.COM")).toBe("example.com");
    expect(text("*.example.com:8443")).toBe("*.example.com:8443");
    expect(text("bücher.example")).toBe("xn--bcher-kva.example");
    expect(text("ｅｘａｍｐｌｅ.com")).toBe("example.com"); // full-width letters: UTS #46 maps them
    expect(text("10.0.0.0/8")).toBe("10.0.0.0/8");
    expect(text("192.0.2.7:80")).toBe("192.0.2.7/32:80");
    expect(text("fd00::/8")).toBe("fd00::/8");
    expect(text("[2001:db8::1]:443")).toBe("[2001:db8::1]/128:443");
    expect(text("[fd00::]/8:443")).toBe("[fd00::]/8:443");
    expect(text("cafe.be:443")).toBe("cafe.be:443");
  });

  it("refuses what is none of those", () => {
    for (const bad of [
      "",
      "a\u0000b.com",
      "evil\u202e.com",
      "zero\u200bwidth.com",
      "has space.com",
      "*",
      "*.",
      "a.*.com",
      "http://example.com/",
      "example.com:0",
      "example.com:65536",
      "example.com:http",
      "10.0.0.0/33",
      "300.1.1.1",
      "1.2.3",
      "fd00::/129",
      "2001:db8::1:443:x",
      "-bad-.com",
      "user@example.com",
      "a".repeat(256),
      `${"a".repeat(64)}.com`,
    ]) {
      expect(typeof parseRule(bad), JSON.stringify(bad)).toBe("string");
    }
    expect(() => compileLayer("workspace", { allow: ["ok.com"], deny: ["ok.com", "bad host"] })).toThrow(/deny\[1\]/);
  });

  it("deny beats allow, each layer only narrows, and a denied CIDR refuses a name with any answer in it", () => {
    const workspace = compileLayer("workspace", { allow: ["*.example.com", "203.0.113.0/24:443"], deny: ["admin.example.com", "10.0.0.0/8"] });
    const session = compileLayer("session", { allow: ["shop.example.com:443"], deny: [] });
    expect(judgeByRules([workspace], "shop.example.com", 80, ["198.51.100.1"])).toEqual(["198.51.100.1"]);
    expect(judgeByRules([workspace], "admin.example.com", 443, ["198.51.100.1"])).toEqual({ scope: "workspace", list: "deny", rule: "admin.example.com" });
    expect(judgeByRules([workspace], "shop.example.com", 443, ["198.51.100.1", "10.1.2.3"])).toEqual({ scope: "workspace", list: "deny", rule: "10.0.0.0/8" });
    expect(judgeByRules([workspace], "example.com", 443, ["198.51.100.1"])).toMatchObject({ list: "allow" });
    expect(judgeByRules([workspace], "203.0.113.9", 443, ["203.0.113.9"])).toEqual(["203.0.113.9"]);
    expect(judgeByRules([workspace], "203.0.113.9", 80, ["203.0.113.9"])).toMatchObject({ list: "allow" });
    // A name the allow list does not name reaches only its answers in an allowed CIDR.
    expect(judgeByRules([workspace], "other.test", 443, ["198.51.100.1", "203.0.113.5"])).toEqual(["203.0.113.5"]);
    expect(judgeByRules([workspace, session], "shop.example.com", 443, ["198.51.100.1"])).toEqual(["198.51.100.1"]);
    expect(judgeByRules([workspace, session], "www.example.com", 443, ["198.51.100.1"])).toEqual({
      scope: "session",
      list: "allow",
      rule: "shop.example.com:443",
    });
    // No allow list: whatever the node allows, less what is denied.
    const denyOnly = compileLayer("workspace", { allow: [], deny: ["127.0.0.0/8"] });
    expect(judgeByRules([denyOnly], "anything.test", 80, ["198.51.100.1"])).toEqual(["198.51.100.1"]);
    // An IPv4-mapped IPv6 answer is judged as the IPv4 address it names.
    expect(judgeByRules([denyOnly], "mapped.test", 80, ["::ffff:127.0.0.1"])).toMatchObject({ list: "deny", rule: "127.0.0.0/8" });
  });
});
