import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Opaque one-time credentials of the dashboard (magic-link tokens, refresh tokens) and PKCE.
 *
 * Each token is 32 bytes from the CSPRNG (256 bits) in base64url, 43 characters. Only its SHA-256 is
 * stored: a slow hash buys nothing for 256 random bits, and a fast one lets the lookup be an index
 * probe on the hash itself.
 */

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 §4.1: 43–128 unreserved characters. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

/** An S256 challenge is base64url(SHA-256(verifier)) without padding: exactly 43 characters. */
export const CODE_CHALLENGE_PATTERN = TOKEN_PATTERN;

export function newOpaqueToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The stored form of an opaque token: hex SHA-256. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** base64url(SHA-256(verifier)): what the browser sent as its challenge (RFC 7636 §4.2, S256). */
export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/**
 * Whether `verifier` answers `challenge` under S256 (the only method accepted). A malformed verifier
 * never matches. Constant-time over the challenge, as GoTrue's VerifyPKCE does.
 */
export function verifierMatches(verifier: unknown, challenge: string): boolean {
  if (typeof verifier !== "string" || !CODE_VERIFIER_PATTERN.test(verifier)) return false;
  const expected = Buffer.from(challenge, "utf8");
  const actual = Buffer.from(s256Challenge(verifier), "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
