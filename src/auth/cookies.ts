/**
 * The dashboard's two cookies (security.md §1.8, §3):
 *
 * - access:  `__Host-vs_at`, Path=/, the one-hour access token. `__Host-` pins it to this host
 *            (Secure, Path=/, no Domain), so a sibling subdomain cannot plant or shadow it.
 * - refresh: `__Secure-vs_rt`, Path=/graphql, the opaque refresh token. It only travels to the
 *            GraphQL endpoint, where refreshSignIn and signOut read it (Path≠/ rules out `__Host-`).
 *
 * Both are HttpOnly and SameSite=Lax (Strict would drop them when the dashboard is opened from a
 * link in a mail client). Secure, and with it the prefixes (which require Secure), is relaxed only
 * when the public base URL is plain http on loopback (`http://localhost`, `http://127.0.0.1`),
 * which is the embedded development default.
 */
import { parse as parseCookie } from "cookie";

export interface CookiePolicy {
  secure: boolean;
  access: string;
  refresh: string;
  refreshPath: string;
}

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether this base URL is development on loopback over plain http (the only case without Secure). */
export function isLoopbackHttp(publicBaseUrl: string): boolean {
  const url = new URL(publicBaseUrl);
  return url.protocol === "http:" && loopbackHosts.has(url.hostname);
}

export function cookiePolicy(publicBaseUrl: string): CookiePolicy {
  const secure = !isLoopbackHttp(publicBaseUrl);
  return {
    secure,
    access: secure ? "__Host-vs_at" : "vs_at",
    refresh: secure ? "__Secure-vs_rt" : "vs_rt",
    refreshPath: "/graphql",
  };
}

/**
 * A value as the Cookie header carries it: a quoted one (RFC 6265 §4.1.1 allows DQUOTEs around it)
 * loses its quotes, nothing is percent-decoded (our tokens are base64url; a `%` is taken as it is).
 */
const unquoted = (value: string) => (value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value);

/**
 * The cookies of a request header, first value per name (RFC 6265 §5.4 orders the more specific
 * first), read by `cookie`'s parser. A header past 16 KiB (more than any browser sends) is not read.
 */
export function readCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof header !== "string" || header.length > 16_384) return out;
  for (const [name, value] of Object.entries(parseCookie(header, { decode: unquoted }))) if (name !== "" && value !== undefined) out.set(name, value);
  return out;
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  return readCookies(header).get(name) || undefined;
}

/** Whether a request carries either dashboard cookie (an ambient credential that CSRF checks protect). */
export function hasSignInCookie(header: string | undefined, policy: CookiePolicy): boolean {
  const cookies = readCookies(header);
  return cookies.has(policy.access) || cookies.has(policy.refresh);
}

/**
 * One `Set-Cookie` value. Not `cookie`'s serialize: it orders the attributes otherwise (Max-Age before
 * Path, Secure before SameSite), and this order is the one the dashboard has always sent (decision 0250).
 */
function serialize(name: string, value: string, opts: { path: string; maxAgeSeconds: number; secure: boolean }): string {
  const parts = [`${name}=${value}`, `Path=${opts.path}`, `Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`, "HttpOnly", "SameSite=Lax"];
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}

export interface IssuedSignIn {
  accessToken: string;
  accessExpiresAt: Date;
  refreshToken: string;
  refreshExpiresAt: Date;
}

/** `Set-Cookie` values for a new or refreshed sign-in. */
export function signInCookies(policy: CookiePolicy, issued: IssuedSignIn, now: Date): string[] {
  const secondsUntil = (d: Date) => (d.getTime() - now.getTime()) / 1000;
  return [
    serialize(policy.access, issued.accessToken, { path: "/", maxAgeSeconds: secondsUntil(issued.accessExpiresAt), secure: policy.secure }),
    serialize(policy.refresh, issued.refreshToken, {
      path: policy.refreshPath,
      maxAgeSeconds: secondsUntil(issued.refreshExpiresAt),
      secure: policy.secure,
    }),
  ];
}

/** `Set-Cookie` values that delete both cookies (same names, paths and attributes, Max-Age=0). */
export function clearedSignInCookies(policy: CookiePolicy): string[] {
  return [
    serialize(policy.access, "", { path: "/", maxAgeSeconds: 0, secure: policy.secure }),
    serialize(policy.refresh, "", { path: policy.refreshPath, maxAgeSeconds: 0, secure: policy.secure }),
  ];
}
