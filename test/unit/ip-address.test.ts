import { describe, expect, it } from "vitest";
import { EgressPolicy, normalizeAddress } from "../../src/browser/egress/policy.ts";
import { mappedIPv4, parseIPv6 } from "../../src/ip-address.ts";

describe("IPv6 addresses by ipaddr.js", () => {
  it("names the IPv4 address of a mapped one, however spelled, and of nothing else", () => {
    for (const spelled of ["::ffff:192.0.2.1", "::FFFF:c000:201", "0:0:0:0:0:ffff:c000:201", "::0:ffff:192.0.2.1"])
      expect(mappedIPv4(spelled), spelled).toBe("192.0.2.1");
    for (const other of ["::192.0.2.1", "::ffff:0:192.0.2.1", "64:ff9b::192.0.2.1", "::1", "2001:db8::1", "::ffff:192.0.2.1%eth0"])
      expect(mappedIPv4(other), other).toBeUndefined();
  });

  it("reads ::a.b.c.d as IPv4-compatible, not mapped (ipaddr.js alone would say mapped)", () => {
    expect(parseIPv6("::10.0.0.5").toNormalizedString()).toBe("0:0:0:0:0:0:a00:5");
  });

  it("keeps the egress policy's verdicts: an IPv4-compatible address is IPv6 and refused, a mapped one is judged as IPv4", () => {
    const policy = new EgressPolicy();
    expect(normalizeAddress("::8.8.8.8")).toEqual({ address: "::8.8.8.8", family: "ipv6" });
    expect(policy.addressAllowed("::8.8.8.8")).toBe(false);
    expect(policy.addressAllowed("::ffff:8.8.8.8")).toBe(true);
    expect(policy.addressAllowed("::ffff:7f00:1")).toBe(false);
    expect(policy.addressAllowed("[0:0:0:0:0:FFFF:a9fe:a9fe]")).toBe(false);
  });
});
