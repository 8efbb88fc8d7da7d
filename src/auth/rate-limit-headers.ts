import { KEY_POLICY, type RateDecision, nonNegativeInt } from "./rate-limit.ts";

// The RateLimit header fields a limited answer carries (the IETF draft named below).

/** The revision of the RateLimit header fields draft whose syntax {@link rateLimitHeaders} emits. */
export const RATE_LIMIT_DRAFT = "draft-ietf-httpapi-ratelimit-headers-11";

/**
 * `RateLimit-Policy` and `RateLimit` as in draft-ietf-httpapi-ratelimit-headers-11 (Structured Field
 * lists whose items are the policy name as an sf-string with integer parameters):
 *
 *     RateLimit-Policy: "default";q=600;w=60
 *     RateLimit: "default";r=599;t=42
 *
 * and, when refused, `Retry-After: <delay-seconds>` (RFC 9110 §10.2.3) with `t` equal to it, so both
 * name the same moment (the draft: Retry-After SHOULD NOT be earlier than the end of the window).
 */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const policy = sfString(d.policy ?? KEY_POLICY);
  const q = nonNegativeInt(d.limit);
  const w = Math.max(1, nonNegativeInt(d.windowSeconds));
  const headers: Record<string, string> = { "RateLimit-Policy": `${policy};q=${q};w=${w}` };
  if (d.allowed) {
    headers.RateLimit = `${policy};r=${nonNegativeInt(d.remaining)};t=${nonNegativeInt(Math.ceil(d.resetSeconds))}`;
    return headers;
  }
  const retry = Math.max(1, nonNegativeInt(Math.ceil(d.retryAfterSeconds ?? d.resetSeconds)));
  headers.RateLimit = `${policy};r=0;t=${retry}`;
  headers["Retry-After"] = String(retry);
  return headers;
}

/** An RFC 9651 sf-string: printable ASCII, with `"` and `\` escaped. */
export function sfString(s: string): string {
  const printable = s.replace(/[^\x20-\x7e]/g, "");
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
