import net from "node:net";
import ipaddr from "ipaddr.js";

/**
 * IPv6 addresses read by ipaddr.js, for the two places that judge addresses: who a client is
 * (auth/client-address.ts) and where a browser may connect (the egress policy). A leaf under src/ so
 * both layers may import it.
 */

/**
 * A valid IPv6 address (one `net.isIPv6` accepts, without a zone index). ipaddr.js reads `::a.b.c.d`
 * (IPv4-compatible, deprecated) as if it were IPv4-mapped (`::ffff:a.b.c.d`). It is not: the egress
 * policy refuses `::/96` as IPv6, and a proxy list never trusted it as IPv4. So it is handed over
 * spelled `::0:a.b.c.d`, which ipaddr.js reads as written.
 */
export function parseIPv6(text: string): ipaddr.IPv6 {
  return ipaddr.IPv6.parse(/^::\d+\.\d+\.\d+\.\d+$/.test(text) ? `::0:${text.slice(2)}` : text);
}

/**
 * The IPv4 address an IPv4-mapped IPv6 address names, however spelled (`::ffff:192.0.2.1`,
 * `::FFFF:c000:201`, `0:0:0:0:0:ffff:…`); undefined for any other address. An address with a zone
 * index is link-local in scope and never mapped.
 */
export function mappedIPv4(ipv6: string): string | undefined {
  if (ipv6.includes("%")) return undefined;
  const parsed = parseIPv6(ipv6);
  return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address().toString() : undefined;
}

/** `10.0.0.0/8`, `fd00::/8` or a single address (a /32 or /128); null when it is none of these. */
export function parseCidr(text: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [addressPart = "", prefixPart, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const kind = net.isIP(addressPart);
  if (kind === 0) return null;
  const family = kind === 4 ? "ipv4" : "ipv6";
  const max = kind === 4 ? 32 : 128;
  if (prefixPart === undefined) return { address: addressPart, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixPart) || Number(prefixPart) > max) return null;
  return { address: addressPart, prefix: Number(prefixPart), family };
}
