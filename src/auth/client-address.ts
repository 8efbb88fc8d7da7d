import type { IncomingMessage } from "node:http";
import net from "node:net";
import proxyaddr from "proxy-addr";
import { commaList } from "../comma-list.ts";
import { mappedIPv4, parseCidr, parseIPv6 } from "../ip-address.ts";

/**
 * Who is calling, as an address: the one function every surface asks (REST, GraphQL over HTTP and
 * WebSocket, CDP and live-view upgrades, dashboard sign-in), for failed-authentication throttling,
 * sign-in limits and the audit log.
 *
 * By default the socket's peer. Behind a load balancer that peer is the balancer, shared by every
 * client, so operators name their proxies (`VESSEL_TRUSTED_PROXIES`, CIDRs): only when the peer is
 * one of them are `X-Forwarded-For` / `Forwarded` read, from the right (each trusted proxy appends
 * the address it saw), past every trusted hop; the first untrusted address is the client. Anything
 * left of it was written by the client and is never believed. Without the setting both headers are
 * ignored, whatever they say.
 *
 * When both headers are present their answers must agree: a proxy that writes one of them passes
 * the other through as the client sent it, and which one a proxy writes is not ours to guess. When
 * they disagree, the nearest proxy's own address is used, so a client cannot choose its address by
 * adding the header its proxy does not write (it lands in that proxy's shared bucket instead).
 *
 * A connection another node relayed (cluster/forward.ts) carries that node's signature and one
 * `X-Forwarded-For` address, the client as the relaying node resolved it with this same function;
 * it is believed only when the signature verifies for this node (`relayedByPeer`).
 *
 * Which proxies are trusted is proxy-addr's matcher, addresses are read by ipaddr.js; the walk is
 * ours: proxy-addr's own (`proxyaddr(req, trust)`) reads `X-Forwarded-For` only, never `Forwarded`,
 * and takes an unreadable hop (`unknown`) for the client (decision 0250).
 */

/** At most this many hops are read from the right; a longer chain ends at the last one read. */
const MAX_HOPS = 32;

/**
 * An address as a proxy writes it, reduced to the bare IP: `[2001:db8::1]:443`, `"[::1]"` and
 * `192.0.2.1:8080` lose their quotes, brackets and ports, a zone index goes, and an IPv4-mapped IPv6
 * address becomes IPv4. Null for anything else (`unknown`, an obfuscated `_node` name, garbage).
 */
export function normalizeAddress(raw: string): string | null {
  let a = raw.trim().replace(/^"(.*)"$/, "$1");
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(a)) a = a.slice(0, a.lastIndexOf(":"));
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  const kind = net.isIP(a);
  if (kind === 4) return a;
  if (kind !== 6) return null;
  return mappedIPv4(a) ?? a.toLowerCase();
}

/**
 * The proxies whose forwarding headers are believed: proxy-addr's matcher (Express's `trust proxy`),
 * which also matches an IPv4-mapped IPv6 address against IPv4 ranges and the reverse.
 */
export class TrustedProxies {
  readonly #trust: (address: string, hop: number) => boolean;
  readonly size: number;

  /** Throws on an entry that is not a CIDR or address (the configuration refuses those first). */
  constructor(cidrs: readonly string[]) {
    const checked = cidrs.map((text) => {
      const cidr = parseCidr(text);
      if (!cidr) throw new Error(`not a CIDR or an IP address: ${text}`);
      return `${cidr.address}/${cidr.prefix}`;
    });
    this.#trust = proxyaddr.compile(checked);
    this.size = cidrs.length;
  }

  has(address: string): boolean {
    const a = normalizeAddress(address);
    return a !== null && this.#trust(a, 0);
  }
}

/** The addresses of `X-Forwarded-For`, left (the original client, as claimed) to right (the nearest hop). */
export function xForwardedFor(header: string | undefined): string[] | undefined {
  return header === undefined ? undefined : commaList(header);
}

/**
 * The `for=` values of `Forwarded` (RFC 7239), one per element, left to right. An element without
 * `for` gives "" (not an address), so the walk stops there rather than skipping a hop.
 */
export function forwardedFor(header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  return commaList(header).map((element) => /(?:^|;)\s*for\s*=\s*("[^"]*"|[^;\s]*)/i.exec(element)?.[1] ?? "");
}

/**
 * The client behind `socket` given the hops a header lists: from the right, past every trusted
 * proxy. A hop that is not an address ends the walk at the trusted proxy that handed it over.
 */
export function walkBack(socket: string, hops: readonly string[], trusted: TrustedProxies): string {
  let client = socket;
  const last = Math.max(0, hops.length - MAX_HOPS);
  for (let i = hops.length - 1; i >= last; i--) {
    if (!trusted.has(client)) return client;
    const hop = normalizeAddress(hops[i]!);
    if (hop === null) return client;
    client = hop;
  }
  return client;
}

/** The client address of a request whose socket peer is `socket`, from the headers it carries. */
export function resolveClient(
  socket: string,
  headers: { "x-forwarded-for"?: string | string[]; forwarded?: string | string[] },
  trusted: TrustedProxies,
): string {
  if (trusted.size === 0 || !trusted.has(socket)) return socket;
  const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") : v);
  const xff = xForwardedFor(text(headers["x-forwarded-for"]));
  const fwd = forwardedFor(text(headers.forwarded));
  const fromXff = xff && walkBack(socket, xff, trusted);
  const fromFwd = fwd && walkBack(socket, fwd, trusted);
  if (fromXff !== undefined && fromFwd !== undefined) return fromXff === fromFwd ? fromXff : socket;
  return fromXff ?? fromFwd ?? socket;
}

/**
 * The unit counted per client address: an IPv4 address as is (IPv4-mapped IPv6 unwrapped), an IPv6
 * address by its /64, since one client normally holds a whole /64 and could otherwise rotate
 * through it. Anything else is used verbatim (bounded in length).
 */
export function addressBucket(ip: string): string {
  let a = ip.trim();
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  if (net.isIPv4(a)) return a;
  if (net.isIPv6(a)) {
    const parsed = parseIPv6(a);
    if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
    return `${parsed.parts
      .slice(0, 4)
      .map((g) => g.toString(16))
      .join(":")}::/64`;
  }
  return a.slice(0, 100) || "unknown";
}

export type ClientAddress = (req: IncomingMessage) => string;

/**
 * The resolver every surface shares. The answer is kept per request, so asking again (a context
 * built twice, a relay, an audit entry) costs nothing and never verifies a peer's signature twice.
 */
export function createClientAddress(opts: {
  trustedProxies: readonly string[];
  /** Whether another node relayed this request (its signature verified for this node). */
  relayedByPeer?: (req: IncomingMessage) => boolean;
}): ClientAddress {
  const trusted = new TrustedProxies(opts.trustedProxies);
  const known = new WeakMap<IncomingMessage, string>();
  return (req) => {
    const cached = known.get(req);
    if (cached !== undefined) return cached;
    const socket = normalizeAddress(req.socket?.remoteAddress ?? "") ?? "";
    let address: string;
    if (opts.relayedByPeer?.(req)) {
      const relayed = req.headers["x-forwarded-for"];
      address = (typeof relayed === "string" ? normalizeAddress(relayed) : null) ?? socket;
    } else {
      address = resolveClient(socket, req.headers, trusted);
    }
    known.set(req, address);
    return address;
  };
}
