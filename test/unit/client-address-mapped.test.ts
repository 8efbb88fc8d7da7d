import { describe, expect, it } from "vitest";
import { addressBucket, normalizeAddress, resolveClient, TrustedProxies } from "../../src/auth/client-address.ts";

const trusted = new TrustedProxies(["10.0.0.0/24", "fd00::/8"]);

describe("IPv4-mapped IPv6 addresses, however spelled", () => {
  it("are their IPv4 address, as a proxy hop, a trusted peer and a throttling bucket", () => {
    for (const spelled of ["::ffff:10.0.0.5", "::FFFF:10.0.0.5", "::ffff:a00:5", "0:0:0:0:0:ffff:a00:5"]) {
      expect(normalizeAddress(spelled), spelled).toBe("10.0.0.5");
      expect(addressBucket(spelled), spelled).toBe("10.0.0.5");
      expect(trusted.has(spelled), spelled).toBe(true);
    }
    expect(resolveClient("::ffff:a00:5", { "x-forwarded-for": "::ffff:c633:6401" }, trusted)).toBe("198.51.100.1");
  });

  it("an IPv6 client is counted by its /64, an IPv4-compatible or other IPv6 address is not unwrapped", () => {
    expect(addressBucket("2001:DB8:cafe:1:2:3:4:5")).toBe("2001:db8:cafe:1::/64");
    expect(addressBucket("2001:db8::1.2.3.4")).toBe("2001:db8:0:0::/64");
    expect(normalizeAddress("::10.0.0.5")).toBe("::10.0.0.5");
    expect(trusted.has("::10.0.0.5")).toBe(false);
  });
});
