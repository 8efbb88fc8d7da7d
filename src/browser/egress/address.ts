import net from "node:net";
import { mappedIPv4 } from "../../ip-address.ts";

/** `::ffff:a.b.c.d` and `::ffff:XXXX:XXXX` name IPv4 addresses: judge them as such (read by ipaddr.js, src/ip-address.ts). */
export function normalizeAddress(address: string): { address: string; family: "ipv4" | "ipv6" } | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const kind = net.isIP(bare);
  if (kind === 4) return { address: bare, family: "ipv4" };
  if (kind !== 6) return null;
  const mapped = mappedIPv4(bare);
  return mapped ? { address: mapped, family: "ipv4" } : { address: bare.toLowerCase(), family: "ipv6" };
}
