import { KeyObject, randomBytes, sign } from "node:crypto";
import { errors as joseErrors, jwtVerify } from "jose";
import type { CryptoKey, JWK } from "jose";
import type { MasterKey } from "../crypto/master-key.ts";
import { AppError } from "../errors.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { ALGORITHM, KeyStoreUnavailable, SigningKeyCache, TokenRefused } from "./signing-keys.ts";

/**
 * Connect tokens: session-scoped JWTs for the CDP WebSocket (`connect_url`) and the live view (`live_view_url`).
 *
 * - EdDSA (Ed25519) only, pinned on verification; keys are never taken from the token (`jwk`,
 *   `jku`, `x5u`, `x5c` headers are refused outright), only from `signing_keys` by `kid`.
 * - Explicit typing (RFC 8725 §3.11/§3.12): `typ` and `aud` differ per audience, so a live-view
 *   token never opens a CDP socket and vice versa.
 * - Keys live in the database so every node verifies what any node signed. A key signs for 30 days,
 *   then verifies for one more hour (longer than any token). When no key can sign, one is created;
 *   nodes racing may each create one, which is harmless because any unexpired key verifies.
 * - An unknown `kid` reloads the key set from the database, at most once a second per process
 *   however many requests ask, and an unknown kid is remembered for a few seconds; a kid that is not
 *   ULID-shaped never reaches the database.
 */

export type TokenAudience = "cdp" | "live-view";

export interface ConnectClaims {
  sessionId: string;
  workspaceId: string;
  jti: string;
  expiresAt: Date;
  audience: TokenAudience;
  /** Live-view tokens: the session's live-view generation when minted (revoking the views moves it on). */
  generation: number;
}

export interface ConnectTokensOptions {
  prisma: PrismaClient;
  masterKey: MasterKey;
  /** `iss` of every token: config.publicBaseUrl. */
  issuer: string;
  now: () => Date;
  log: Logger;
}

export const TOKEN_TYPES: Readonly<Record<TokenAudience, string>> = { cdp: "vs-cdp+jwt", "live-view": "vs-live+jwt" };
/** The longest a token may live: spec §5.3 (CDP: at most 30 min; live view: about 5 min). */
export const MAX_TOKEN_LIFETIME_SECONDS: Readonly<Record<TokenAudience, number>> = { cdp: 30 * 60, "live-view": 5 * 60 };
export const CLOCK_TOLERANCE_SECONDS = 5;
/** The one detail every refused token gets, so the answer reveals nothing about why (wire text: it keeps its old wording). */
export const INVALID_TOKEN_DETAIL = "The session token is invalid or has expired.";

/** Far more than any token we mint; longer input is refused before parsing. */
const MAX_TOKEN_LENGTH = 4096;
/** Tokens this process minted and remembers (see ConnectTokens.minted). */
const MAX_MINTED = 10_000;

const audiences: readonly TokenAudience[] = ["cdp", "live-view"];

/**
 * A JWS in compact form (RFC 7515), signed with Ed25519 by node:crypto in this thread. Why not
 * jose's SignJWT: it signs through WebCrypto on the thread pool, and two tokens per new session
 * took about a millisecond there, on the path of POST /v1/sessions, where Ed25519 itself takes
 * ~50 µs. Verification stays with jose (jwtVerify), which checks what a token claims.
 */
function signCompact(header: object, payload: object, key: KeyObject): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part(header)}.${part(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString("base64url")}`;
}

/** node:crypto's handle on a private key (made once per key). */
const signers = new WeakMap<CryptoKey, KeyObject>();
function signerOf(privateKey: CryptoKey): KeyObject {
  let signer = signers.get(privateKey);
  if (!signer) {
    signer = KeyObject.from(privateKey as Parameters<typeof KeyObject.from>[0]);
    signers.set(privateKey, signer);
  }
  return signer;
}

export class ConnectTokens {
  private readonly issuer: string;
  private readonly now: () => Date;
  private readonly log: Logger;

  private readonly keys: SigningKeyCache;
  /**
   * The tokens this process minted, exactly as handed out, with their claims and key: a client
   * nearly always connects with the token it was just given, by the node that minted it, and that
   * token needs no signature check here (jose's takes ~0.25 ms, on the path of every connect). The
   * lookup is by the whole token, so nothing a client sends can match but what this process signed.
   * Time and key are still checked; anything else (another node's token, an expired one) goes to jose.
   */
  private readonly minted = new Map<string, { claims: ConnectClaims; kid: string; notBefore: number }>();

  constructor(opts: ConnectTokensOptions) {
    this.issuer = opts.issuer;
    this.now = opts.now;
    this.log = opts.log;
    this.keys = new SigningKeyCache(opts);
  }

  /** Mints a token for a session; expiresAt is capped by the caller (session hard end); never more than 30 minutes from now. */
  async mint(input: { sessionId: string; workspaceId: string; audience: TokenAudience; expiresAt: Date; generation?: number }): Promise<string> {
    const { sessionId, workspaceId, audience } = input;
    if (!audiences.includes(audience)) throw new TypeError(`unknown token audience ${String(audience)}`);
    if (!sessionId || !workspaceId) throw new TypeError("a connect token needs a session id and a workspace id");
    const nowSeconds = Math.floor(this.now().getTime() / 1000);
    const exp = Math.min(Math.floor(input.expiresAt.getTime() / 1000), nowSeconds + MAX_TOKEN_LIFETIME_SECONDS[audience]);
    if (!Number.isFinite(exp) || exp <= nowSeconds) {
      throw new RangeError("cannot mint a connect token that expires now or in the past");
    }
    const key = await this.keys.signingKey();
    const header = { alg: ALGORITHM, kid: key.kid, typ: TOKEN_TYPES[audience] };
    const payload = {
      wid: workspaceId,
      ...(audience === "live-view" ? { gen: input.generation ?? 0 } : {}),
      iss: this.issuer,
      aud: audience,
      sub: sessionId,
      jti: randomBytes(16).toString("base64url"),
      iat: nowSeconds,
      nbf: nowSeconds,
      exp,
    };
    const token = signCompact(header, payload, signerOf(key.privateKey));
    this.remember(token, {
      claims: { sessionId, workspaceId, jti: payload.jti, expiresAt: new Date(exp * 1000), audience, generation: input.generation ?? 0 },
      kid: key.kid,
      notBefore: nowSeconds,
    });
    return token;
  }

  private remember(token: string, entry: { claims: ConnectClaims; kid: string; notBefore: number }): void {
    // Oldest first: the expired ones, then, past the bound, the oldest of all.
    const now = this.now().getTime();
    for (const [old, { claims }] of this.minted) {
      if (claims.expiresAt.getTime() > now && this.minted.size < MAX_MINTED) break;
      this.minted.delete(old);
    }
    this.minted.set(token, entry);
  }

  /** The claims of a token this process minted, while it is valid by its times and its key; else undefined (jose decides). */
  private mintedHere(token: string, audience: TokenAudience): ConnectClaims | undefined {
    const entry = this.minted.get(token);
    if (!entry || entry.claims.audience !== audience) return undefined;
    const nowSeconds = this.now().getTime() / 1000;
    if (nowSeconds + CLOCK_TOLERANCE_SECONDS < entry.notBefore || nowSeconds >= entry.claims.expiresAt.getTime() / 1000) return undefined;
    return this.keys.usable(entry.kid) ? { ...entry.claims } : undefined;
  }

  /** Verifies signature (EdDSA only; alg pinned; never honours jku/x5u/jwk headers), typ, iss, aud, exp/nbf with 5 s tolerance, and kid known. Throws AppError("unauthenticated", <generic detail>) on any failure — the same detail for every failure. */
  async verify(token: string, audience: TokenAudience): Promise<ConnectClaims> {
    if (!audiences.includes(audience)) throw new TypeError(`unknown token audience ${String(audience)}`);
    try {
      if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        throw new TokenRefused("empty or oversized token");
      }
      const known = this.mintedHere(token, audience);
      if (known) return known;
      const { payload } = await jwtVerify(token, (header) => this.keys.verificationKey(header), {
        algorithms: [ALGORITHM],
        audience,
        issuer: this.issuer,
        typ: TOKEN_TYPES[audience],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        maxTokenAge: MAX_TOKEN_LIFETIME_SECONDS[audience],
        requiredClaims: ["iss", "aud", "sub", "jti", "iat", "nbf", "exp"],
        currentDate: this.now(),
      });
      const { sub, jti, exp, iat, aud } = payload;
      const wid = payload.wid;
      // jose accepts an `aud` array that contains the audience; ours are a single string, always.
      if (aud !== audience) throw new TokenRefused("aud is not exactly the expected audience");
      if (typeof sub !== "string" || !sub || typeof wid !== "string" || !wid || typeof jti !== "string" || !jti) {
        throw new TokenRefused("sub, wid or jti missing");
      }
      if (exp === undefined || iat === undefined || exp - iat > MAX_TOKEN_LIFETIME_SECONDS[audience]) {
        throw new TokenRefused("lifetime longer than this audience allows");
      }
      const gen = audience === "live-view" ? payload.gen : 0;
      if (typeof gen !== "number" || !Number.isSafeInteger(gen) || gen < 0) throw new TokenRefused("gen missing");
      return { sessionId: sub, workspaceId: wid, jti, expiresAt: new Date(exp * 1000), audience, generation: gen };
    } catch (err) {
      // The database being unreachable is not the token's fault: let the caller answer 503, not 401.
      if (err instanceof KeyStoreUnavailable) throw err;
      this.log.debug(
        { audience, reason: err instanceof joseErrors.JOSEError ? `${err.code}: ${err.message}` : (err as Error).message },
        "connect token refused",
      );
      throw new AppError("unauthenticated", INVALID_TOKEN_DETAIL);
    }
  }

  /** Public keys still valid for verification, as a JWKS (served at /.well-known/jwks.json). */
  jwks(): Promise<{ keys: JWK[] }> {
    return this.keys.jwks();
  }
}
