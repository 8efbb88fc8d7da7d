import { exportJWK, generateKeyPair, importJWK } from "jose";
import type { CryptoKey, JWK } from "jose";
import { ulid } from "../ids.ts";
import { open, seal } from "../crypto/envelope.ts";
import type { MasterKey } from "../crypto/master-key.ts";
import type { Prisma, PrismaClient, SigningKey } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import type { JWTHeaderParameters } from "jose";

// The signing keys of connect tokens as rows of `signing_keys`: created with their private half
// sealed under the master key, and read back into the cache connect-tokens.ts keeps.

/** How long a key signs. */
export const SIGNING_PERIOD_MS = 30 * 24 * 3600 * 1000;
/** How long a retired key still verifies: longer than any token plus the clock tolerance. */
export const VERIFY_GRACE_MS = 3600 * 1000;
/** Reloads of the key set for unknown kids (or the JWKS) are at least this far apart (monotonic time). */
export const MIN_RELOAD_INTERVAL_MS = 1000;
/** An unknown kid is refused without a reload for this long. */
const UNKNOWN_KID_TTL_MS = 10_000;
const MAX_UNKNOWN_KIDS = 10_000;
/** The JWKS is at most this stale (another node may have created a key). */
const JWKS_MAX_AGE_MS = 60_000;
export const ulidShape = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** Header parameters that point at or carry key material: never honoured, so refused. */
const keyCarryingHeaders = ["jwk", "jku", "x5u", "x5c", "x5t", "x5t#S256"] as const;
/** A refusal decided by our own checks (as opposed to one jose raises). */
export class TokenRefused extends Error {}
export const ALGORITHM = "EdDSA";

export interface CachedKey {
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

/** The key store could not be read: a fault of ours, not the token's. */
export class KeyStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super("signing keys could not be loaded", { cause });
    this.name = "KeyStoreUnavailable";
  }
}

/** The AAD of a sealed private key: binds it to its row (and to this table). */
function privateKeyAad(kid: string): string {
  return `signing_keys:${kid}`;
}

/** A cache entry for a row, or undefined (logged) when the row is unusable. */
export async function importKeyRow(row: SigningKey, now: Date, masterKey: MasterKey, log: Logger, nextSeq: () => number): Promise<CachedKey | undefined> {
  const jwk = row.publicJwk as Record<string, unknown> | null;
  if (!jwk || jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || !ulidShape.test(row.id)) {
    log.error({ kid: row.id }, "signing key row has an unusable public key; ignored");
    return undefined;
  }
  const publicJwk: JWK = { kty: "OKP", crv: "Ed25519", x: jwk.x, kid: row.id, alg: ALGORITHM, use: "sig" };
  let publicKey: CryptoKey;
  try {
    publicKey = (await importJWK({ kty: "OKP", crv: "Ed25519", x: jwk.x }, ALGORITHM, { extractable: true })) as CryptoKey;
  } catch (err) {
    log.error({ kid: row.id, err }, "signing key row has an unusable public key; ignored");
    return undefined;
  }
  let privateKey: CryptoKey | undefined;
  if (row.retiresAt > now && row.masterKeyId === masterKey.id) {
    try {
      privateKey = await unsealPrivateKey(masterKey, row.id, row.privateKeyEncrypted, jwk.x);
    } catch (err) {
      // Verification with the public half still works; signing moves to a key this node can read.
      log.error({ kid: row.id, err: (err as Error).message }, "signing key could not be unsealed; it will not sign here");
    }
  }
  return { kid: row.id, publicKey, publicJwk, retiresAt: row.retiresAt, expiresAt: row.expiresAt, privateKey, seq: nextSeq() };
}

async function unsealPrivateKey(masterKey: MasterKey, kid: string, sealed: Uint8Array, x: string): Promise<CryptoKey> {
  const jwk = JSON.parse(open(masterKey.key, sealed, privateKeyAad(kid)).toString("utf8")) as Record<string, unknown>;
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || jwk.x !== x || typeof jwk.d !== "string") {
    throw new Error("the sealed private key does not match the public key");
  }
  return (await importJWK({ kty: "OKP", crv: "Ed25519", x, d: jwk.d }, ALGORITHM, { extractable: false })) as CryptoKey;
}

/** Creates a key that signs for SIGNING_PERIOD_MS, stores it sealed under the master key, and deletes expired ones. */
export async function createSigningKey(prisma: PrismaClient, masterKey: MasterKey, now: Date, log: Logger): Promise<Omit<CachedKey, "seq">> {
  const kid = ulid(now.getTime());
  const pair = await generateKeyPair(ALGORITHM, { extractable: true });
  const priv = await exportJWK(pair.privateKey);
  if (typeof priv.x !== "string" || typeof priv.d !== "string") throw new Error("generated key has no x/d");
  const sealed = seal(masterKey.key, Buffer.from(JSON.stringify({ kty: "OKP", crv: "Ed25519", x: priv.x, d: priv.d }), "utf8"), privateKeyAad(kid));
  const publicJwk: JWK = { kty: "OKP", crv: "Ed25519", x: priv.x, kid, alg: ALGORITHM, use: "sig" };
  const retiresAt = new Date(now.getTime() + SIGNING_PERIOD_MS);
  const expiresAt = new Date(retiresAt.getTime() + VERIFY_GRACE_MS);
  await prisma.signingKey.create({
    data: {
      id: kid,
      algorithm: ALGORITHM,
      publicJwk: publicJwk as Prisma.InputJsonObject,
      privateKeyEncrypted: new Uint8Array(sealed),
      masterKeyId: masterKey.id,
      retiresAt,
      expiresAt,
    },
  });
  const privateKey = (await importJWK({ kty: "OKP", crv: "Ed25519", x: priv.x, d: priv.d }, ALGORITHM, { extractable: false })) as CryptoKey;
  const key = { kid, publicKey: pair.publicKey, publicJwk, retiresAt, expiresAt, privateKey };
  log.info({ kid, retiresAt, expiresAt }, "created a connect-token signing key");
  // Keys past their verification window are of no further use to anyone.
  await prisma.signingKey.deleteMany({ where: { expiresAt: { lt: now } } }).catch((err: unknown) => {
    log.warn({ err }, "could not delete expired signing keys");
  });
  return key;
}

/**
 * The signing keys this process knows, by kid: reloaded from the database when a token names an
 * unknown one (at most once a second however many ask; an unknown kid is remembered a while), and
 * the newest key this process can sign with, created when none is left.
 */
export class SigningKeyCache {
  private readonly prisma: PrismaClient;
  private readonly masterKey: MasterKey;
  private readonly now: () => Date;
  private readonly log: Logger;
  private keys = new Map<string, CachedKey>();
  private seq = 0;
  /** kid → monotonic time until which it is refused without a reload. */
  private readonly unknownKids = new Map<string, number>();
  private lastReloadStart = Number.NEGATIVE_INFINITY;
  private reloadInFlight?: Promise<void>;
  /** A reload that has not started yet: callers that join it are sure to see rows committed before they asked. */
  private reloadQueued?: Promise<void>;
  private ensuring?: Promise<CachedKey>;

  constructor(opts: { prisma: PrismaClient; masterKey: MasterKey; now: () => Date; log: Logger }) {
    this.prisma = opts.prisma;
    this.masterKey = opts.masterKey;
    this.now = opts.now;
    this.log = opts.log;
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

  async verificationKey(header: JWTHeaderParameters): Promise<CryptoKey> {
    for (const name of keyCarryingHeaders) {
      if (Object.hasOwn(header, name)) throw new TokenRefused(`"${name}" header present`);
    }
    const { kid } = header;
    if (typeof kid !== "string" || !ulidShape.test(kid)) throw new TokenRefused("kid missing or not a ULID");
    const cached = this.usable(kid);
    if (cached) return cached.publicKey;

    const refusedUntil = this.unknownKids.get(kid);
    if (refusedUntil !== undefined && refusedUntil > performance.now()) throw new TokenRefused("kid unknown (remembered)");
    // Another node may have created it: reload once (shared with every other request that asks).
    await this.reload();
    const loaded = this.usable(kid);
    if (loaded) return loaded.publicKey;
    this.rememberUnknown(kid);
    throw new TokenRefused("kid unknown or expired");
  }

  usable(kid: string): CachedKey | undefined {
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
      const key = await importKeyRow(row, now, this.masterKey, this.log, () => ++this.seq);
      if (key) next.set(row.id, key);
    }
    // Keys this process added while the query ran (their rows may have committed after it read).
    for (const key of this.keys.values()) if (key.seq > startSeq && !next.has(key.kid)) next.set(key.kid, key);
    this.keys = next;
    for (const kid of next.keys()) this.unknownKids.delete(kid);
  }

  // ---- signing keys ----

  /** The newest key this process can sign with, creating one when none is left. */
  async signingKey(): Promise<CachedKey & { privateKey: CryptoKey }> {
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
    const key = { ...(await createSigningKey(this.prisma, this.masterKey, this.now(), this.log)), seq: ++this.seq };
    this.keys.set(key.kid, key);
    this.unknownKids.delete(key.kid);
    return key;
  }
}
