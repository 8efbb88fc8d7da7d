// What the egress listener (proxy.ts) works with: its options, routes and refusals, and the
// HTTP proxying details (authorities, hop-by-hop headers, upstream proxy requests).
import dns from "node:dns/promises";
import type http from "node:http";
import { commaList } from "../../comma-list.ts";
import type { Logger } from "../../logger.ts";
import type { EgressPolicy } from "./policy.ts";
import type { RuleLayer, RuleRefusal } from "./rules.ts";

/** A customer's own proxy that a session's traffic leaves through (after our policy has judged it). */
export interface UpstreamProxy {
  /** `http://host:port` */
  server: string;
  username?: string;
  password?: string;
}

export interface EgressRefusal {
  host: string;
  port: number;
  reason: "blocked-address" | "blocked-by-policy" | "unresolvable" | "bad-request" | "upstream-blocked" | "upstream-failed";
  /** With `blocked-by-policy`: which of the route's rules refused it. */
  rule?: RuleRefusal;
}

/** Which session the browser behind a listener serves now, its upstream proxy and network rules if any. */
export interface EgressRoute {
  sessionId?: string;
  upstream?: UpstreamProxy;
  /**
   * Rules narrower than the node's policy (rules.ts), every layer passed in turn. Replaced as a whole
   * (never changed in place) when they change, so a connection being judged sees one set or the other.
   */
  rules?: readonly RuleLayer[];
  /** Told of every refusal on this browser's listener (its session log capture), for as long as the browser lives. */
  watch?: (refusal: EgressRefusal) => void;
}

export interface EgressListener {
  /** The loopback TCP port (0 when listening on `socketPath`). */
  port: number;
  /** The Unix socket path, when opened with one (a jailed browser reaches it through browser/jail/jail.ts's forwarder). */
  socketPath?: string;
  route: EgressRoute;
  close(): Promise<void>;
}

export interface EgressOptions {
  policy: EgressPolicy;
  log: Logger;
  /** Name resolution (tests may answer with rebinding tricks); all addresses of a name. */
  resolve?: (host: string) => Promise<string[]>;
  onRefused?: (route: EgressRoute, refusal: EgressRefusal) => void;
  connectTimeoutMs?: number;
  /**
   * Listen on this Unix socket path instead of a loopback TCP port: a jailed browser has no route to
   * this machine's loopback, only this socket bound into its jail (browser/jail/jail.ts). Created 0600, removed on close.
   */
  socketPath?: string;
}

/**
 * Chromium's flags for an egress listener at 127.0.0.1:`port` (the listener's own port, or
 * JAIL_PROXY_PORT inside a jail, where a forwarder leads to the listener's socket). All traffic goes
 * through it, loopback included (`<-loopback>` removes Chromium's implicit bypass), and WebRTC is kept
 * from sending UDP around it. SOCKS5 rather than HTTP proxying: Chromium then tunnels plain HTTP too
 * and keeps its connections alive end to end, where an HTTP proxy re-parses every request (plain-HTTP
 * page loads were 10–20% slower that way). Chromium sends SOCKS5 proxies host names, so the listener
 * resolves them itself (and a jailed browser needs no DNS).
 */
export function proxyArgs(port: number): string[] {
  return [`--proxy-server=socks5://127.0.0.1:${port}`, "--proxy-bypass-list=<-loopback>", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"];
}

export const defaultResolve = async (host: string) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class Refused extends Error {
  constructor(readonly refusal: EgressRefusal) {
    super(refusal.reason);
  }
}

/** `host:port` of a CONNECT, with IPv6 in brackets. */
export function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(authority);
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
}

/** Hop-by-hop fields (RFC 9110 §7.6.1) belong to one connection and are not forwarded. */
export const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "te", "upgrade"]);

/**
 * The origin's answer without its hop-by-hop fields. The request to the origin is one connection per
 * request (`Connection: close`), and forwarding the origin's `Connection: close` would close the
 * browser's kept-alive connection to this listener after every plain-HTTP response too.
 */
export function endToEnd(headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders {
  const named = commaList((headers.connection ?? "").toLowerCase());
  const out: http.IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!hopByHop.has(name) && !named.includes(name)) out[name] = value;
  return out;
}
