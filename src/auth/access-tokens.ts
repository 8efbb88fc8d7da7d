import { hkdfSync, randomBytes } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { MasterKey } from "../crypto/master-key.ts";
import type { Logger } from "../logger.ts";

/**
 * The dashboard's access token: an HS256 JWT, one hour, carried in the access cookie (or as
 * `Authorization: Bearer <token>` by tools that signed in without a browser).
 *
 * Why a JWT and not an opaque token: the signature and expiry reject forged, altered and stale tokens
 * without touching the database, and the claims say who the user is and which sign-in (refresh token
 * family, `sid`) it belongs to, so no access-token table is needed. It is not trusted alone, though:
 * the authenticator checks on every request that the family is still live, so signing out or a
 * detected refresh-token reuse ends the access token at once, on every node (dashboard traffic is
 * small; one indexed lookup per request is cheap).
 *
 * Why HS256: only this service signs and verifies these (RFC 7518 §3.2 allows a shared 256-bit key
 * then). The key is derived with HKDF from the master key, which every node already shares, so no
 * key store or rotation schedule of its own is needed; rotating the master key signs everyone out.
 */

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
const ALGORITHM = "HS256";
const TYPE = "vs-dash+jwt";
const AUDIENCE = "dashboard";
const CLOCK_TOLERANCE_SECONDS = 5;
const MAX_TOKEN_LENGTH = 2048;

export interface AccessClaims {
  userId: string;
  /** The refresh token family (one sign-in): revoking it ends this token too. */
  familyId: string;
  expiresAt: Date;
}

export class AccessTokens {
  readonly #key: Uint8Array;
  readonly #issuer: string;
  readonly #now: () => Date;
  readonly #log: Logger;

  constructor(opts: { masterKey: MasterKey; issuer: string; now: () => Date; log: Logger }) {
    this.#key = new Uint8Array(hkdfSync("sha256", opts.masterKey.key, "vessel", "dashboard access token v1", 32));
    this.#issuer = opts.issuer;
    this.#now = opts.now;
    this.#log = opts.log;
  }

  async mint(userId: string, familyId: string): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(this.#now().getTime() / 1000);
    // Verification tolerates 5 s of clock skew between nodes; `exp` is set that much earlier, so no
    // node accepts the token more than an hour after it was issued.
    const exp = iat + ACCESS_TOKEN_LIFETIME_SECONDS - CLOCK_TOLERANCE_SECONDS;
    const token = await new SignJWT({ sid: familyId })
      .setProtectedHeader({ alg: ALGORITHM, typ: TYPE })
      .setIssuer(this.#issuer)
      .setAudience(AUDIENCE)
      .setSubject(userId)
      .setJti(randomBytes(12).toString("base64url"))
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .sign(this.#key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a valid token, or null for anything else (forged, expired, another audience, malformed). */
  async verify(token: string): Promise<AccessClaims | null> {
    if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: [ALGORITHM],
        audience: AUDIENCE,
        issuer: this.#issuer,
        typ: TYPE,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        maxTokenAge: ACCESS_TOKEN_LIFETIME_SECONDS,
        requiredClaims: ["iss", "aud", "sub", "jti", "iat", "nbf", "exp"],
        currentDate: this.#now(),
      });
      const { sub, sid, exp, aud } = payload;
      if (aud !== AUDIENCE || typeof sub !== "string" || !sub || typeof sid !== "string" || !sid || exp === undefined) return null;
      return { userId: sub, familyId: sid, expiresAt: new Date(exp * 1000) };
    } catch (err) {
      this.#log.debug({ reason: err instanceof joseErrors.JOSEError ? err.code : (err as Error).message }, "dashboard access token refused");
      return null;
    }
  }
}
