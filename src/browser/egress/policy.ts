import net from "node:net";
import { normalizeAddress } from "./address.ts";
import { listensOn } from "./own-listeners.ts";

export { normalizeAddress };

/**
 * Which addresses a session's browser may reach. Only public unicast addresses, unless the
 * deployment allows more: a customer's page must not reach this node's own services, the cluster
 * network, or the cloud metadata endpoint (security.md §1.13, I49–I55). The check is made on the
 * address the proxy actually connects to, so a name that resolves differently the second time
 * (DNS rebinding) gains nothing.
 */
const blockedV4: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];
const blockedV6: Array<[string, number]> = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated, RFC 4291): `::127.0.0.1` must not reach IPv4 space through an automatic tunnel
  ["::ffff:0:0:0", 96], // IPv4-translated (SIIT, RFC 2765): the same, through a translator
  ["64:ff9b::", 96], // NAT64: would reach IPv4 space, private included
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo and friends)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: embeds an IPv4 address
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const blocked = new net.BlockList();
for (const [address, prefix] of blockedV4) blocked.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of blockedV6) blocked.addSubnet(address, prefix, "ipv6");

export interface EgressAllowlist {
  /** CIDRs (`127.0.0.1/32`, `10.1.0.0/16`, `fd00::/8`) or single addresses. */
  cidrs: string[];
  /** Host names allowed whatever they resolve to (exact, case-insensitive; `*.example.com` for subdomains). */
  hosts: string[];
}

/** Splits configured entries into addresses/CIDRs and host names. */
export function parseAllowlist(entries: readonly string[]): EgressAllowlist {
  const cidrs: string[] = [];
  const hosts: string[] = [];
  for (const entry of entries) {
    const address = entry.split("/")[0]!.replace(/^\[|\]$/g, "");
    (net.isIP(address) ? cidrs : hosts).push(entry);
  }
  return { cidrs, hosts };
}

export class EgressPolicy {
  private readonly allowed = new net.BlockList();
  private readonly hosts: string[];

  constructor(allow: EgressAllowlist = { cidrs: [], hosts: [] }) {
    for (const cidr of allow.cidrs) {
      const [address = "", prefix] = cidr.split("/");
      const n = normalizeAddress(address);
      if (!n) throw new Error(`egress allowlist: "${cidr}" is not an address or CIDR`);
      const bits = prefix === undefined ? (n.family === "ipv4" ? 32 : 128) : Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (n.family === "ipv4" ? 32 : 128)) throw new Error(`egress allowlist: bad prefix in "${cidr}"`);
      this.allowed.addSubnet(n.address, bits, n.family);
    }
    this.hosts = allow.hosts.map((h) => h.toLowerCase());
  }

  /** A host name the deployment allows outright (checked before resolving). */
  hostAllowed(host: string): boolean {
    const h = host.toLowerCase().replace(/\.$/, "");
    return this.hosts.some((rule) => (rule.startsWith("*.") ? h.endsWith(rule.slice(1)) : h === rule));
  }

  /**
   * May a browser or a webhook connect to address:port? Never to what this process listens on
   * (own-listeners.ts), whatever the allow-list says; else as {@link addressAllowed}.
   */
  destinationAllowed(address: string, port: number): boolean {
    return !listensOn(address, port) && this.addressAllowed(address);
  }

  /** Does address:port reach this node itself? Refused even for a host name the allow-list names. */
  reachesNode(address: string, port: number): boolean {
    return listensOn(address, port);
  }

  /** May the browser connect to this address, by the allow-list and the blocked ranges alone? Unparseable addresses are refused. */
  addressAllowed(address: string): boolean {
    const n = normalizeAddress(address);
    if (!n) return false;
    if (this.allowed.check(n.address, n.family)) return true;
    return !blocked.check(n.address, n.family);
  }
}
