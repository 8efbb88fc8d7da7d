import { KeyObject, randomBytes, sign } from "node:crypto";
import { errors as joseErrors, exportJWK, generateKeyPair, importJWK, jwtVerify } from "jose";
import type { CryptoKey, JWK, JWTHeaderParameters } from "jose";
import { ulid } from "../ids.ts";
import { open, seal } from "../crypto/envelope.ts";
import type { MasterKey } from "../crypto/master-key.ts";
import { AppError } from "../kernel/errors.ts";
import type { Prisma, PrismaClient, SigningKey } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";

/**
 * Session-scoped JWTs for the CDP WebSocket (`connect_url`) and the live view (`live_view_url`).
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

export interface SessionClaims {
  sessionId: string;
  workspaceId: string;
  jti: string;
  expiresAt: Date;
  audience: TokenAudience;
  /** Live-view tokens: the session's live-view generation when minted (revoking the views moves it on). */
  generation: number;
}

export interface SessionTokensOptions {
  prisma: PrismaClient;
  masterKey: MasterKey;
  /** `iss` of every token: config.publicBaseUrl. */
  issuer: string;
  now: () => Date;
  log: Logger;
}

export const ALGORITHM = "EdDSA";
export const TOKEN_TYPES: Readonly<Record<TokenAudience, string>> = { cdp: "vs-cdp+jwt", "live-view": "vs-live+jwt" };
/** The longest a token may live: spec §5.3 (CDP: at most 30 min; live view: about 5 min). */
export const MAX_TOKEN_LIFETIME_SECONDS: Readonly<Record<TokenAudience, number>> = { cdp: 30 * 60, "live-view": 5 * 60 };
export const CLOCK_TOLERANCE_SECONDS = 5;
/** How long a key signs. */
export const SIGNING_PERIOD_MS = 30 * 24 * 3600 * 1000;
/** How long a retired key still verifies: longer than any token plus the clock tolerance. */
export const VERIFY_GRACE_MS = 3600 * 1000;
/** The one detail every refused token gets, so the answer reveals nothing about why. */
export const INVALID_TOKEN_DETAIL = "The session token is invalid or has expired.";

/** Reloads of the key set for unknown kids (or the JWKS) are at least this far apart (monotonic time). */
const MIN_RELOAD_INTERVAL_MS = 1000;
/** An unknown kid is refused without a reload for this long. */
const UNKNOWN_KID_TTL_MS = 10_000;
const MAX_UNKNOWN_KIDS = 10_000;
/** The JWKS is at most this stale (another node may have created a key). */
const JWKS_MAX_AGE_MS = 60_000;
/** Far more than any token we mint; longer input is refused before parsing. */
const MAX_TOKEN_LENGTH = 4096;
/** Tokens this process minted and remembers (see SessionTokens.minted). */
const MAX_MINTED = 10_000;

const ulidShape = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** Header parameters that point at or carry key material: never honoured, so refused. */
const keyCarryingHeaders = ["jwk", "jku", "x5u", "x5c", "x5t", "x5t#S256"] as const;
const audiences: readonly TokenAudience[] = ["cdp", "live-view"];

interface CachedKey {
  kid: string;
  publicKey: CryptoKey;
  /** Public parts only: what the JWKS serves. */
  publicJwk: JWK;
  retiresAt: Date;
  expiresAt: Date;
  /** Present when this process can sign with it (not retired when loaded, sealed under our master key). */
  privateKey?: CryptoKey;
  /** Order of arrival in the cache, so a reload does not drop a key created while it ran. */
  seq: number;
}

/** A refusal decided here (as opposed to one jose raises). */
class TokenRefused extends Error {}

/** The key store could not be read: a fault of ours, not the token's. */
export class KeyStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super("signing keys could not be loaded", { cause });
    this.name = "KeyStoreUnavailable";
  }
}

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

/** The AAD of a sealed private key: binds it to its row (and to this table). */
function privateKeyAad(kid: string): string {
  return `signing_keys:${kid}`;
}

export class SessionTokens {
  private readonly prisma: PrismaClient;
  private readonly masterKey: MasterKey;
  private readonly issuer: string;
  private readonly now: () => Date;
  private readonly log: Logger;

  private keys = new Map<string, CachedKey>();
  private seq = 0;
  /** kid → monotonic time until which it is refused without a reload. */
  private readonly unknownKids = new Map<string, number>();
  /**
   * The tokens this process minted, exactly as handed out, with their claims and key: a client
   * nearly always connects with the token it was just given, by the node that minted it, and that
   * token needs no signature check here (jose's takes ~0.25 ms, on the path of every connect). The
   * lookup is by the whole token, so nothing a client sends can match but what this process signed.
   * Time and key are still checked; anything else (another node's token, an expired one) goes to jose.
   */
  private readonly minted = new Map<string, { claims: SessionClaims; kid: string; notBefore: number }>();
  private lastReloadStart = Number.NEGATIVE_INFINITY;
  private reloadInFlight?: Promise<void>;
  /** A reload that has not started yet: callers that join it are sure to see rows committed before they asked. */
  private reloadQueued?: Promise<void>;
  private ensuring?: Promise<CachedKey>;

  constructor(opts: SessionTokensOptions) {
    this.prisma = opts.prisma;
    this.masterKey = opts.masterKey;
    this.issuer = opts.issuer;
    this.now = opts.now;
    this.log = opts.log;
  }

  /** Mints a token for a session; expiresAt is capped by the caller (session hard end); never more than 30 minutes from now. */
  async mint(input: { sessionId: string; workspaceId: string; audience: TokenAudience; expiresAt: Date; generation?: number }): Promise<string> {
    const { sessionId, workspaceId, audience } = input;
    if (!audiences.includes(audience)) throw new TypeError(`unknown token audience ${String(audience)}`);
    if (!sessionId || !workspaceId) throw new TypeError("a session token needs a session id and a workspace id");
    const nowSeconds = Math.floor(this.now().getTime() / 1000);
    const exp = Math.min(Math.floor(input.expiresAt.getTime() / 1000), nowSeconds + MAX_TOKEN_LIFETIME_SECONDS[audience]);
    if (!Number.isFinite(exp) || exp <= nowSeconds) {
      throw new RangeError("cannot mint a session token that expires now or in the past");
    }
    const key = await this.signingKey();
    const header = { alg: ALGORITHM, kid: key.kid, typ: TOKEN_TYPES[audience] };
    const payload = {
      wid: workspaceId, ...(audience === "live-view" ? { gen: input.generation ?? 0 } : {}),
      iss: this.issuer, aud: audience, sub: sessionId, jti: randomBytes(16).toString("base64url"), iat: nowSeconds, nbf: nowSeconds, exp,
    };
    const token = signCompact(header, payload, signerOf(key.privateKey));
    this.remember(token, {
      claims: { sessionId, workspaceId, jti: payload.jti, expiresAt: new Date(exp * 1000), audience, generation: input.generation ?? 0 },
      kid: key.kid,
      notBefore: nowSeconds,
    });
    return token;
  }

  private remember(token: string, entry: { claims: SessionClaims; kid: string; notBefore: number }): void {
    // Oldest first: the expired ones, then, past the bound, the oldest of all.
    const now = this.now().getTime();
    for (const [old, { claims }] of this.minted) {
      if (claims.expiresAt.getTime() > now && this.minted.size < MAX_MINTED) break;
      this.minted.delete(old);
    }
    this.minted.set(token, entry);
  }

  /** The claims of a token this process minted, while it is valid by its times and its key; else undefined (jose decides). */
  private mintedHere(token: string, audience: TokenAudience): SessionClaims | undefined {
    const entry = this.minted.get(token);
    if (!entry || entry.claims.audience !== audience) return undefined;
    const nowSeconds = this.now().getTime() / 1000;
    if (nowSeconds + CLOCK_TOLERANCE_SECONDS < entry.notBefore || nowSeconds >= entry.claims.expiresAt.getTime() / 1000) return undefined;
    return this.usableKey(entry.kid) ? { ...entry.claims } : undefined;
  }

  /** Verifies signature (EdDSA only; alg pinned; never honours jku/x5u/jwk headers), typ, iss, aud, exp/nbf with 5 s tolerance, and kid known. Throws AppError("unauthenticated", <generic detail>) on any failure — the same detail for every failure. */
  async verify(token: string, audience: TokenAudience): Promise<SessionClaims> {
    if (!audiences.includes(audience)) throw new TypeError(`unknown token audience ${String(audience)}`);
    try {
      if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        throw new TokenRefused("empty or oversized token");
      }
      const known = this.mintedHere(token, audience);
      if (known) return known;
      const { payload } = await jwtVerify(token, (header) => this.verificationKey(header), {
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
        "session token refused",
      );
      throw new AppError("unauthenticated", INVALID_TOKEN_DETAIL);
    }
  }

  /** Public keys still valid for verification, as a JWKS (served at /.well-known/jwks.json). */
  async jwks(): Promise<{ keys: JWK[] }> {
    if (performance.now() - this.lastReloadStart > JWKS_MAX_AGE_MS) await this.reload();
    const now = this.now();
    const keys = [...this.keys.values()]
      .filter((k) => k.expiresAt > now)
      .sort((a, b) => a.kid.localeCompare(b.kid))
      .map((k) => ({ ...k.publicJwk }));
    return { keys };
  }

  // ---- verification keys ----

  private async verificationKey(header: JWTHeaderParameters): Promise<CryptoKey> {
    for (const name of keyCarryingHeaders) {
      if (Object.hasOwn(header, name)) throw new TokenRefused(`"${name}" header present`);
    }
    const { kid } = header;
    if (typeof kid !== "string" || !ulidShape.test(kid)) throw new TokenRefused("kid missing or not a ULID");
    const cached = this.usableKey(kid);
    if (cached) return cached.publicKey;

    const refusedUntil = this.unknownKids.get(kid);
    if (refusedUntil !== undefined && refusedUntil > performance.now()) throw new TokenRefused("kid unknown (remembered)");
    // Another node may have created it: reload once (shared with every other request that asks).
    await this.reload();
    const loaded = this.usableKey(kid);
    if (loaded) return loaded.publicKey;
    this.rememberUnknown(kid);
    throw new TokenRefused("kid unknown or expired");
  }

  private usableKey(kid: string): CachedKey | undefined {
    const key = this.keys.get(kid);
    if (!key) return undefined;
    if (key.expiresAt <= this.now()) {
      this.keys.delete(kid);
      return undefined;
    }
    return key;
  }

  private rememberUnknown(kid: string): void {
    const now = performance.now();
    if (this.unknownKids.size >= MAX_UNKNOWN_KIDS) {
      for (const [k, until] of this.unknownKids) if (until <= now) this.unknownKids.delete(k);
      if (this.unknownKids.size >= MAX_UNKNOWN_KIDS) this.unknownKids.clear();
    }
    this.unknownKids.set(kid, now + UNKNOWN_KID_TTL_MS);
  }

  /**
   * Reloads the key set from the database. Callers join a reload that has not started yet, so each
   * sees every row committed before it asked; reloads start at least MIN_RELOAD_INTERVAL_MS apart.
   */
  private reload(): Promise<void> {
    if (this.reloadQueued) return this.reloadQueued;
    const queued = (async () => {
      const wait = this.lastReloadStart + MIN_RELOAD_INTERVAL_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      await this.reloadInFlight?.catch(() => {});
      this.reloadQueued = undefined;
      this.lastReloadStart = performance.now();
      const run = this.loadKeys();
      this.reloadInFlight = run;
      try {
        await run;
      } finally {
        if (this.reloadInFlight === run) this.reloadInFlight = undefined;
      }
    })();
    this.reloadQueued = queued;
    return queued;
  }

  private async loadKeys(): Promise<void> {
    const startSeq = this.seq;
    const now = this.now();
    let rows: SigningKey[];
    try {
      rows = await this.prisma.signingKey.findMany({ where: { expiresAt: { gt: now }, algorithm: ALGORITHM } });
    } catch (err) {
      throw new KeyStoreUnavailable(err);
    }
    const next = new Map<string, CachedKey>();
    for (const row of rows) {
      const known = this.keys.get(row.id);
      if (known && (known.privateKey || row.retiresAt <= now || row.masterKeyId !== this.masterKey.id)) {
        next.set(row.id, known);
        continue;
      }
      const key = await this.importRow(row, now);
      if (key) next.set(row.id, key);
    }
    // Keys this process added while the query ran (their rows may have committed after it read).
    for (const key of this.keys.values()) if (key.seq > startSeq && !next.has(key.kid)) next.set(key.kid, key);
    this.keys = next;
    for (const kid of next.keys()) this.unknownKids.delete(kid);
  }

  /** A cache entry for a row, or undefined (logged) when the row is unusable. */
  private async importRow(row: SigningKey, now: Date): Promise<CachedKey | undefined> {
    const jwk = row.publicJwk as Record<string, unknown> | null;
    if (!jwk || jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || !ulidShape.test(row.id)) {
      this.log.error({ kid: row.id }, "signing key row has an unusable public key; ignored");
      return undefined;
    }
    const publicJwk: JWK = { kty: "OKP", crv: "Ed25519", x: jwk.x, kid: row.id, alg: ALGORITHM, use: "sig" };
    let publicKey: CryptoKey;
    try {
      publicKey = (await importJWK({ kty: "OKP", crv: "Ed25519", x: jwk.x }, ALGORITHM, { extractable: true })) as CryptoKey;
    } catch (err) {
      this.log.error({ kid: row.id, err }, "signing key row has an unusable public key; ignored");
      return undefined;
    }
    let privateKey: CryptoKey | undefined;
    if (row.retiresAt > now && row.masterKeyId === this.masterKey.id) {
      try {
        privateKey = await this.unsealPrivateKey(row.id, row.privateKeyEncrypted, jwk.x);
      } catch (err) {
        // Verification with the public half still works; signing moves to a key this node can read.
        this.log.error({ kid: row.id, err: (err as Error).message }, "signing key could not be unsealed; it will not sign here");
      }
    }
    return { kid: row.id, publicKey, publicJwk, retiresAt: row.retiresAt, expiresAt: row.expiresAt, privateKey, seq: ++this.seq };
  }

  private async unsealPrivateKey(kid: string, sealed: Uint8Array, x: string): Promise<CryptoKey> {
    const jwk = JSON.parse(open(this.masterKey.key, sealed, privateKeyAad(kid)).toString("utf8")) as Record<string, unknown>;
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || jwk.x !== x || typeof jwk.d !== "string") {
      throw new Error("the sealed private key does not match the public key");
    }
    return (await importJWK({ kty: "OKP", crv: "Ed25519", x, d: jwk.d }, ALGORITHM, { extractable: false })) as CryptoKey;
  }

  // ---- signing keys ----

  /** The newest key this process can sign with, creating one when none is left. */
  private async signingKey(): Promise<CachedKey & { privateKey: CryptoKey }> {
    const current = this.currentSigningKey();
    if (current) return current;
    this.ensuring ??= (async () => {
      try {
        // Another node (or an earlier run) may have one. A reload that just ran is recent enough: at
        // worst a second key is created, which is harmless, and a mint never waits for the rate limit.
        if (performance.now() - this.lastReloadStart >= MIN_RELOAD_INTERVAL_MS) await this.reload();
        else await this.reloadInFlight?.catch(() => {});
        return this.currentSigningKey() ?? (await this.createKey());
      } finally {
        this.ensuring = undefined;
      }
    })();
    return (await this.ensuring) as CachedKey & { privateKey: CryptoKey };
  }

  private currentSigningKey(): (CachedKey & { privateKey: CryptoKey }) | undefined {
    const now = this.now();
    let best: CachedKey | undefined;
    for (const key of this.keys.values()) {
      if (!key.privateKey || key.retiresAt <= now) continue;
      if (!best || key.retiresAt > best.retiresAt || (key.retiresAt.getTime() === best.retiresAt.getTime() && key.kid > best.kid)) best = key;
    }
    return best as (CachedKey & { privateKey: CryptoKey }) | undefined;
  }

  private async createKey(): Promise<CachedKey> {
    const now = this.now();
    const kid = ulid(now.getTime());
    const pair = await generateKeyPair(ALGORITHM, { extractable: true });
    const priv = await exportJWK(pair.privateKey);
    if (typeof priv.x !== "string" || typeof priv.d !== "string") throw new Error("generated key has no x/d");
    const sealed = seal(
      this.masterKey.key,
      Buffer.from(JSON.stringify({ kty: "OKP", crv: "Ed25519", x: priv.x, d: priv.d }), "utf8"),
      privateKeyAad(kid),
    );
    const publicJwk: JWK = { kty: "OKP", crv: "Ed25519", x: priv.x, kid, alg: ALGORITHM, use: "sig" };
    const retiresAt = new Date(now.getTime() + SIGNING_PERIOD_MS);
    const expiresAt = new Date(retiresAt.getTime() + VERIFY_GRACE_MS);
    await this.prisma.signingKey.create({
      data: {
        id: kid,
        algorithm: ALGORITHM,
        publicJwk: publicJwk as Prisma.InputJsonObject,
        privateKeyEncrypted: new Uint8Array(sealed),
        masterKeyId: this.masterKey.id,
        retiresAt,
        expiresAt,
      },
    });
    const privateKey = (await importJWK({ kty: "OKP", crv: "Ed25519", x: priv.x, d: priv.d }, ALGORITHM, { extractable: false })) as CryptoKey;
    const key: CachedKey = { kid, publicKey: pair.publicKey, publicJwk, retiresAt, expiresAt, privateKey, seq: ++this.seq };
    this.keys.set(kid, key);
    this.unknownKids.delete(kid);
    this.log.info({ kid, retiresAt, expiresAt }, "created a session-token signing key");
    // Keys past their verification window are of no further use to anyone.
    await this.prisma.signingKey.deleteMany({ where: { expiresAt: { lt: now } } }).catch((err: unknown) => {
      this.log.warn({ err }, "could not delete expired signing keys");
    });
    return key;
  }
}
