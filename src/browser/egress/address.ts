import net from "node:net";

/** `::ffff:a.b.c.d` and `::ffff:XXXX:XXXX` name IPv4 addresses: judge them as such. */
export function normalizeAddress(address: string): { address: string; family: "ipv4" | "ipv6" } | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const kind = net.isIP(bare);
  if (kind === 4) return { address: bare, family: "ipv4" };
  if (kind !== 6) return null;
  const lower = bare.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return { address: dotted[1]!, family: "ipv4" };
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = Number.parseInt(hex[1]!, 16);
    const lo = Number.parseInt(hex[2]!, 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: "ipv4" };
  }
  return { address: lower, family: "ipv6" };
}
