import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createClientAddress, forwardedFor, normalizeAddress, resolveClient, TrustedProxies } from "../../src/auth/client-address.ts";
import { parseCidr } from "../../src/ip-address.ts";

/** A load balancer at 10.0.0.5 and an internal proxy at 10.0.0.9, both in 10.0.0.0/24; IPv6 proxies in fd00::/8. */
const trusted = new TrustedProxies(["10.0.0.0/24", "fd00::/8"]);
const none = new TrustedProxies([]);

describe("trusted proxy list", () => {
  it("accepts CIDRs and single addresses, refuses the rest", () => {
    expect(parseCidr("10.0.0.0/8")).toEqual({ address: "10.0.0.0", prefix: 8, family: "ipv4" });
    expect(parseCidr("2001:db8::/32")).toEqual({ address: "2001:db8::", prefix: 32, family: "ipv6" });
    expect(parseCidr("192.0.2.1")).toEqual({ address: "192.0.2.1", prefix: 32, family: "ipv4" });
    for (const bad of ["10.0.0.0/33", "fd00::/129", "10.0.0.0/8/1", "example.com", "10.0.0/8", "", "10.0.0.0/-1", "10.0.0.0/ 8"]) {
      expect(parseCidr(bad), bad).toBeNull();
    }
    expect(() => new TrustedProxies(["10.0.0.0/8", "nope"])).toThrow(/nope/);
  });

  it("matches IPv4-mapped addresses as IPv4", () => {
    expect(trusted.has("::ffff:10.0.0.5")).toBe(true);
    expect(trusted.has("10.0.1.5")).toBe(false);
    expect(trusted.has("fd12::1")).toBe(true);
    expect(trusted.has("garbage")).toBe(false);
  });
});

describe("addresses as proxies write them", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["203.0.113.7:4711", "203.0.113.7"],
    ['"[2001:DB8:cafe::17]:4711"', "2001:db8:cafe::17"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["fe80::1%eth0", "fe80::1"],
    ["unknown", null],
    ["_hidden", null],
    ["", null],
    ["203.0.113.7, 10.0.0.5", null],
  ])("%s → %s", (raw, address) => {
    expect(normalizeAddress(raw)).toBe(address);
  });

  it("reads the for= of each Forwarded element", () => {
    expect(forwardedFor('for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711"')).toEqual(["192.0.2.60", '"[2001:db8:cafe::17]:4711"']);
    expect(forwardedFor("proto=https, For=198.51.100.17")).toEqual(["", "198.51.100.17"]);
  });
});

describe("the client behind the proxies", () => {
  it("without a trusted list the socket's peer is the client, whatever the headers say", () => {
    expect(resolveClient("10.0.0.5", { "x-forwarded-for": "198.51.100.1" }, none)).toBe("10.0.0.5");
    expect(resolveClient("10.0.0.5", { forwarded: "for=198.51.100.1" }, none)).toBe("10.0.0.5");
  });

  it("a peer that is not a trusted proxy is the client, whatever the headers say", () => {
    expect(resolveClient("198.51.100.9", { "x-forwarded-for": "198.51.100.1" }, trusted)).toBe("198.51.100.9");
  });

  it("walks back from the right past trusted hops; what the client wrote on the left is never believed", () => {
    // The client claims 1.2.3.4; the balancer appended the client's real address, then the internal proxy the balancer's.
    expect(resolveClient("10.0.0.9", { "x-forwarded-for": "1.2.3.4, 198.51.100.1, 10.0.0.5" }, trusted)).toBe("198.51.100.1");
    expect(resolveClient("10.0.0.5", { "x-forwarded-for": "198.51.100.1" }, trusted)).toBe("198.51.100.1");
    expect(resolveClient("fd00::1", { forwarded: 'for="[2001:db8::7]:443", for=10.0.0.5' }, trusted)).toBe("2001:db8::7");
    // Multiple header lines arrive joined (Node joins X-Forwarded-For with ", ").
    expect(resolveClient("10.0.0.5", { "x-forwarded-for": ["1.2.3.4", "198.51.100.2"] }, trusted)).toBe("198.51.100.2");
  });

  it("every hop trusted: the leftmost; an unreadable hop: the trusted proxy that handed it over", () => {
    expect(resolveClient("10.0.0.5", { "x-forwarded-for": "10.0.0.7, 10.0.0.8" }, trusted)).toBe("10.0.0.7");
    expect(resolveClient("10.0.0.9", { "x-forwarded-for": "198.51.100.1, unknown, 10.0.0.5" }, trusted)).toBe("10.0.0.5");
    expect(resolveClient("10.0.0.5", { forwarded: "for=_hidden" }, trusted)).toBe("10.0.0.5");
    expect(resolveClient("10.0.0.5", {}, trusted)).toBe("10.0.0.5");
  });

  it("both headers: used when they agree; when they disagree, the nearest proxy (a client cannot pick its address)", () => {
    expect(resolveClient("10.0.0.5", { "x-forwarded-for": "198.51.100.1", forwarded: "for=198.51.100.1" }, trusted)).toBe("198.51.100.1");
    // nginx writes X-Forwarded-For and passes the client's own Forwarded through.
    expect(resolveClient("10.0.0.5", { "x-forwarded-for": "198.51.100.1", forwarded: "for=203.0.113.99" }, trusted)).toBe("10.0.0.5");
  });

  it("a request relayed by a node names its client in one signed-for address; the verdict is asked once per request", () => {
    let asked = 0;
    const resolve = createClientAddress({ trustedProxies: [], relayedByPeer: () => (asked++, true) });
    const req = { socket: { remoteAddress: "10.1.0.2" }, headers: { "x-forwarded-for": "198.51.100.1" } } as unknown as IncomingMessage;
    expect(resolve(req)).toBe("198.51.100.1");
    expect(resolve(req)).toBe("198.51.100.1");
    expect(asked).toBe(1);
    const unsigned = createClientAddress({ trustedProxies: [], relayedByPeer: () => false });
    expect(unsigned({ socket: { remoteAddress: "::ffff:10.1.0.2" }, headers: { "x-forwarded-for": "198.51.100.1" } } as unknown as IncomingMessage)).toBe(
      "10.1.0.2",
    );
  });
});
