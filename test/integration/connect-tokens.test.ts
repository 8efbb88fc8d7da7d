import { randomBytes } from "node:crypto";
import { CompactSign, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import type { CryptoKey, JWK } from "jose";
import { ulid } from "ulid";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { CLOCK_TOLERANCE_SECONDS, INVALID_TOKEN_DETAIL, ConnectTokens } from "../../src/auth/connect-tokens.ts";
import { KeyStoreUnavailable, SIGNING_PERIOD_MS, VERIFY_GRACE_MS } from "../../src/auth/signing-keys.ts";
import type { TokenAudience } from "../../src/auth/connect-tokens.ts";
import { open } from "../../src/crypto/envelope.ts";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import type { MasterKey } from "../../src/crypto/master-key.ts";
import type { PrismaClient } from "../../src/generated/prisma/client.ts";
import { createLogger } from "../../src/logger.ts";
import { createTestDatabase, describeEachBackend } from "../support/db.ts";
import type { TestDatabase } from "../support/db.ts";
import { appError } from "../support/errors.ts";

const issuer = "https://vessel.test";
const log = createLogger("silent");
const typ = { cdp: "vs-cdp+jwt", "live-view": "vs-live+jwt" } as const;

function newMasterKey(): MasterKey {
  const key = randomBytes(32);
  return { key, id: masterKeyId(key) };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/** Refused with 401 and the one generic detail. */
async function refused(promise: Promise<unknown>): Promise<void> {
  const err = await appError(promise);
  expect(err.slug).toBe("unauthenticated");
  expect(err.status).toBe(401);
  expect(err.detail).toBe(INVALID_TOKEN_DETAIL);
}

/** A PrismaClient whose signingKey.findMany calls are counted. */
function counting(prisma: PrismaClient): { prisma: PrismaClient; reads: () => number } {
  let reads = 0;
  const delegate = prisma.signingKey;
  const signingKey = new Proxy(delegate, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop === "findMany" || prop === "findUnique" || prop === "findFirst") {
        return (...args: unknown[]) => {
          reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const wrapped = new Proxy(prisma, {
    get(target, prop) {
      if (prop === "signingKey") return signingKey;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { prisma: wrapped, reads: () => reads };
}

describeEachBackend("connect tokens", (backend) => {
  let t: TestDatabase;
  let prisma: PrismaClient;
  let clock: Date;
  const now = () => clock;
  const mk = newMasterKey();
  const node = (opts: { issuer?: string; masterKey?: MasterKey; prisma?: PrismaClient } = {}) =>
    new ConnectTokens({ prisma: opts.prisma ?? prisma, masterKey: opts.masterKey ?? mk, issuer: opts.issuer ?? issuer, now, log });
  const nowS = () => Math.floor(clock.getTime() / 1000);
  const inMinutes = (m: number) => new Date(clock.getTime() + m * 60_000);
  const input = (audience: TokenAudience, minutes = 10) => ({
    sessionId: `ses_${ulid()}`,
    workspaceId: ulid(),
    audience,
    expiresAt: inMinutes(minutes),
  });

  /** The real private key of `kid`, read the way an attacker with the master key would. */
  async function privateKeyOf(kid: string): Promise<CryptoKey> {
    const row = await prisma.signingKey.findUniqueOrThrow({ where: { id: kid } });
    const jwk = JSON.parse(open(mk.key, row.privateKeyEncrypted, `signing_keys:${kid}`).toString("utf8")) as JWK;
    return (await importJWK(jwk, "EdDSA")) as CryptoKey;
  }

  /** A token signed with the real key of `kid`, with the given header and claims changes. */
  async function forge(
    kid: string,
    opts: { header?: Record<string, unknown>; claims?: Record<string, unknown>; drop?: string[]; audience?: TokenAudience } = {},
  ): Promise<string> {
    const audience = opts.audience ?? "cdp";
    const claims: Record<string, unknown> = {
      iss: issuer,
      aud: audience,
      sub: "ses_forged",
      wid: "w_forged",
      jti: "j1",
      iat: nowS(),
      nbf: nowS(),
      exp: nowS() + 120,
      ...opts.claims,
    };
    for (const name of opts.drop ?? []) delete claims[name];
    const header = { alg: "EdDSA", kid, typ: typ[audience], ...opts.header };
    return new CompactSign(Buffer.from(JSON.stringify(claims))).setProtectedHeader(header as { alg: string }).sign(await privateKeyOf(kid));
  }

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    prisma = t.db.prisma;
  });
  afterAll(async () => {
    await t?.dispose();
  });
  beforeEach(async () => {
    clock = new Date(Math.floor(Date.now() / 1000) * 1000);
    await prisma.signingKey.deleteMany({});
  });

  test("mint → verify round trip, for both audiences", async () => {
    const tokens = node();
    for (const audience of ["cdp", "live-view"] as const) {
      const req = input(audience, 3);
      const token = await tokens.mint(req);
      const claims = await tokens.verify(token, audience);
      expect(claims).toEqual({
        sessionId: req.sessionId,
        workspaceId: req.workspaceId,
        jti: expect.any(String),
        expiresAt: req.expiresAt,
        audience,
        generation: 0,
      });
      const header = decodeProtectedHeader(token);
      expect(header).toEqual({ alg: "EdDSA", kid: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), typ: typ[audience] });
      const payload = decodeJwt(token);
      expect(payload).toEqual({
        iss: issuer,
        aud: audience,
        sub: req.sessionId,
        wid: req.workspaceId,
        jti: claims.jti,
        iat: nowS(),
        nbf: nowS(),
        exp: nowS() + 180,
        // Live-view tokens name the session's live-view generation (revoking the views moves it on).
        ...(audience === "live-view" ? { gen: 0 } : {}),
      });
    }
    const a = decodeJwt(await tokens.mint(input("cdp"))).jti;
    const b = decodeJwt(await tokens.mint(input("cdp"))).jti;
    expect(a).not.toBe(b);
  });

  test("lifetimes are capped: CDP 30 minutes, live view 5 minutes; a past expiry is refused", async () => {
    const tokens = node();
    const cdp = decodeJwt(await tokens.mint(input("cdp", 24 * 60)));
    expect(cdp.exp! - cdp.iat!).toBe(1800);
    const live = decodeJwt(await tokens.mint(input("live-view", 30)));
    expect(live.exp! - live.iat!).toBe(300);
    const short = decodeJwt(await tokens.mint(input("cdp", 2)));
    expect(short.exp! - short.iat!).toBe(120);
    await expect(tokens.mint(input("cdp", 0))).rejects.toThrow(RangeError);
    await expect(tokens.mint(input("cdp", -1))).rejects.toThrow(RangeError);
  });

  test("audiences are never interchangeable", async () => {
    const tokens = node();
    const cdp = await tokens.mint(input("cdp"));
    const live = await tokens.mint(input("live-view"));
    await expect(tokens.verify(cdp, "cdp")).resolves.toBeTruthy();
    await expect(tokens.verify(live, "live-view")).resolves.toBeTruthy();
    await refused(tokens.verify(cdp, "live-view"));
    await refused(tokens.verify(live, "cdp"));
    // Right aud with the other typ, and an aud array naming both: refused too.
    const kid = decodeProtectedHeader(cdp).kid!;
    await expect(tokens.verify(await forge(kid), "cdp")).resolves.toBeTruthy(); // control: forge() makes valid tokens
    await refused(tokens.verify(await forge(kid, { header: { typ: typ["live-view"] } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { audience: "live-view", header: { typ: typ.cdp } }), "live-view"));
    await refused(tokens.verify(await forge(kid, { claims: { aud: ["cdp", "live-view"] } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { header: { typ: "JWT" } }), "cdp"));
  });

  test("expiry and not-before honour a 5 s tolerance, no more", async () => {
    const tokens = node();
    const token = await tokens.mint(input("cdp", 1));
    const minted = clock;
    clock = new Date(minted.getTime() + 64_000); // exp + 4 s
    await expect(tokens.verify(token, "cdp")).resolves.toBeTruthy();
    clock = new Date(minted.getTime() + 66_000); // exp + 6 s
    await refused(tokens.verify(token, "cdp"));
    clock = new Date(minted.getTime() - 4_000); // nbf − 4 s
    await expect(tokens.verify(token, "cdp")).resolves.toBeTruthy();
    clock = new Date(minted.getTime() - 6_000); // nbf − 6 s
    await refused(tokens.verify(token, "cdp"));
  });

  test("alg none, a tampered signature and a tampered payload are refused", async () => {
    const tokens = node();
    const token = await tokens.mint(input("cdp"));
    const [h, p, s] = token.split(".") as [string, string, string];
    const header = decodeProtectedHeader(token);
    const payload = decodeJwt(token);
    await expect(tokens.verify(token, "cdp")).resolves.toBeTruthy();

    await refused(tokens.verify(`${b64({ ...header, alg: "none" })}.${p}.`, "cdp"));
    await refused(tokens.verify(`${b64({ ...header, alg: "none" })}.${p}.${s}`, "cdp"));
    await refused(tokens.verify(`${b64({ alg: "none", typ: typ.cdp })}.${p}.`, "cdp"));

    const mid = Math.floor(s.length / 2);
    const flipped = `${s.slice(0, mid)}${s[mid] === "A" ? "B" : "A"}${s.slice(mid + 1)}`;
    await refused(tokens.verify(`${h}.${p}.${flipped}`, "cdp"));
    await refused(tokens.verify(`${h}.${p}.`, "cdp"));
    await refused(tokens.verify(`${h}.${b64({ ...payload, sub: "ses_someone_else" })}.${s}`, "cdp"));

    for (const junk of ["", "abc", "a.b.c", `${h}.${p}`, `${token}.x`, "x".repeat(10_000)]) {
      await refused(tokens.verify(junk, "cdp"));
    }
  });

  test("a fresh Ed25519 key with a known kid, or a key carried in the header, is refused", async () => {
    const tokens = node();
    const token = await tokens.mint(input("cdp"));
    const kid = decodeProtectedHeader(token).kid!;
    const claims = decodeJwt(token);
    const attacker = await generateKeyPair("EdDSA", { extractable: true });
    const attackerJwk = await exportJWK(attacker.publicKey);
    const sign = (header: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: "EdDSA", typ: typ.cdp, ...header }).sign(attacker.privateKey);

    await refused(tokens.verify(await sign({ kid }), "cdp"));
    await refused(tokens.verify(await sign({ kid, jwk: attackerJwk }), "cdp"));
    await refused(tokens.verify(await sign({ jwk: attackerJwk }), "cdp"));
    await refused(tokens.verify(await sign({ kid: ulid(), jwk: attackerJwk }), "cdp"));
    // Even correctly signed with the real key, a header pointing at keys elsewhere is refused.
    await expect(tokens.verify(await forge(kid), "cdp")).resolves.toBeTruthy();
    await refused(tokens.verify(await forge(kid, { header: { jku: "https://attacker.test/jwks.json" } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { header: { x5u: "https://attacker.test/cert.pem" } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { header: { jwk: attackerJwk } }), "cdp"));
  });

  test("tokens from another issuer are refused", async () => {
    const ours = node();
    const theirs = node({ issuer: "https://other.test" });
    const token = await theirs.mint(input("cdp"));
    await expect(theirs.verify(token, "cdp")).resolves.toBeTruthy();
    await refused(ours.verify(token, "cdp"));
    const kid = decodeProtectedHeader(token).kid!;
    await refused(ours.verify(await forge(kid, { claims: { iss: "https://other.test" } }), "cdp"));
    await refused(ours.verify(await forge(kid, { drop: ["iss"] }), "cdp"));
  });

  test("HS256 signed with the public key (algorithm confusion) is refused", async () => {
    const tokens = node();
    const token = await tokens.mint(input("cdp"));
    const header = decodeProtectedHeader(token);
    const claims = decodeJwt(token);
    const { keys } = await tokens.jwks();
    const jwk = keys.find((k) => k.kid === header.kid)!;
    const secrets = [Buffer.from(jwk.x!, "base64url"), Buffer.from(JSON.stringify(jwk)), Buffer.from(jwk.x!)];
    for (const secret of secrets) {
      const hs = await new SignJWT(claims).setProtectedHeader({ ...header, alg: "HS256" }).sign(secret);
      await refused(tokens.verify(hs, "cdp"));
    }
  });

  test("missing or out-of-range claims are refused", async () => {
    const tokens = node();
    const kid = decodeProtectedHeader(await tokens.mint(input("cdp"))).kid!;
    await expect(tokens.verify(await forge(kid), "cdp")).resolves.toBeTruthy();
    for (const claim of ["exp", "nbf", "iat", "sub", "wid", "jti", "aud"]) {
      await refused(tokens.verify(await forge(kid, { drop: [claim] }), "cdp"));
    }
    // Longer-lived than the audience allows, or issued in the future.
    await refused(tokens.verify(await forge(kid, { claims: { exp: nowS() + 1801 } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { audience: "live-view", claims: { exp: nowS() + 301 } }), "live-view"));
    await expect(tokens.verify(await forge(kid, { audience: "live-view", claims: { exp: nowS() + 300, gen: 2 } }), "live-view")).resolves.toMatchObject({
      generation: 2,
    });
    // A live-view token without its generation, or with a nonsense one, is refused.
    await refused(tokens.verify(await forge(kid, { audience: "live-view", claims: { exp: nowS() + 300 } }), "live-view"));
    await refused(tokens.verify(await forge(kid, { audience: "live-view", claims: { exp: nowS() + 300, gen: -1 } }), "live-view"));
    await refused(tokens.verify(await forge(kid, { audience: "live-view", claims: { exp: nowS() + 300, gen: "0" } }), "live-view"));
    await refused(tokens.verify(await forge(kid, { claims: { iat: nowS() + 60, nbf: nowS() - 1 } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { claims: { sub: 42 } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { claims: { wid: "" } }), "cdp"));
  });

  test("unknown and malformed kids are refused, and cannot make the database work per request", async () => {
    const counted = counting(prisma);
    const tokens = node({ prisma: counted.prisma });
    const kid = decodeProtectedHeader(await tokens.mint(input("cdp"))).kid!;
    const base = counted.reads();
    // Not ULID-shaped: refused without a lookup.
    for (const bad of ["' OR 1=1 --", "../../etc/passwd", "", "01J0000000000000000000000", kid.toLowerCase()]) {
      await refused(tokens.verify(await forge(kid, { header: { kid: bad } }), "cdp"));
    }
    await refused(tokens.verify(await forge(kid, { header: { kid: 42 } }), "cdp"));
    await refused(tokens.verify(await forge(kid, { header: { kid: undefined } }), "cdp"));
    expect(counted.reads()).toBe(base);

    // An unknown ULID: one reload, then remembered.
    const unknown = await forge(kid, { header: { kid: ulid() } });
    await refused(tokens.verify(unknown, "cdp"));
    expect(counted.reads()).toBe(base + 1);
    for (let i = 0; i < 5; i++) await refused(tokens.verify(unknown, "cdp"));
    expect(counted.reads()).toBe(base + 1);

    // Many different garbage kids at once share one reload (reloads are at least a second apart).
    const many = await Promise.all(Array.from({ length: 30 }, () => forge(kid, { header: { kid: ulid() } })));
    await Promise.all(many.map((tok) => refused(tokens.verify(tok, "cdp"))));
    expect(counted.reads()).toBeLessThanOrEqual(base + 2);
    // The known kid is served from memory throughout.
    const before = counted.reads();
    await expect(tokens.verify(await forge(kid), "cdp")).resolves.toBeTruthy();
    expect(counted.reads()).toBe(before);
  });

  test("an unreachable key store is reported as such, not as a bad token", async () => {
    const token = await node().mint(input("cdp"));
    const broken = new Proxy(prisma, {
      get(target, prop) {
        if (prop === "signingKey") return { findMany: () => Promise.reject(new Error("connection refused")) };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const cold = node({ prisma: broken });
    await expect(cold.verify(token, "cdp")).rejects.toBeInstanceOf(KeyStoreUnavailable);
    // Still a plain 401 for what can be judged without the database.
    await refused(cold.verify("not-a-token", "cdp"));
  });

  test("a key created by node 1 verifies on node 2; racing nodes both end up with working keys", async () => {
    const node1 = node();
    const node2 = node();
    const token = await node1.mint(input("cdp"));
    await expect(node2.verify(token, "cdp")).resolves.toBeTruthy();
    expect((await node2.jwks()).keys.map((k) => k.kid)).toContain(decodeProtectedHeader(token).kid);

    await prisma.signingKey.deleteMany({});
    const racers = [node(), node(), node()];
    const minted = await Promise.all(racers.map((r) => r.mint(input("live-view"))));
    for (const verifier of [...racers, node()]) {
      for (const tok of minted) await expect(verifier.verify(tok, "live-view")).resolves.toBeTruthy();
    }
    expect(await prisma.signingKey.count()).toBeGreaterThanOrEqual(1);
  });

  test("a token verifies the same on the node that minted it (which remembers it) as on any other", async () => {
    const node1 = node();
    const node2 = node();
    for (const audience of ["cdp", "live-view"] as const) {
      const token = await node1.mint({ ...input(audience), ...(audience === "live-view" ? { generation: 3 } : {}) });
      const here = await node1.verify(token, audience);
      expect(here).toEqual(await node2.verify(token, audience));
      expect(here).toMatchObject({ audience, generation: audience === "live-view" ? 3 : 0 });
      // Remembered for its own audience only, and only as minted.
      await refused(node1.verify(token, audience === "cdp" ? "live-view" : "cdp"));
      await refused(node1.verify(`${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`, audience));
    }
    // Past its end it is refused here as everywhere (jose decides once the remembered times say no).
    const token = await node1.mint(input("cdp"));
    const exp = (await node1.verify(token, "cdp")).expiresAt.getTime();
    clock = new Date(exp + (CLOCK_TOLERANCE_SECONDS + 1) * 1000);
    await refused(node1.verify(token, "cdp"));
  });

  test("rotation: after 30 days a new kid signs; old tokens verify until their own exp; the old key then ends", async () => {
    const tokens = node();
    const first = await tokens.mint(input("cdp"));
    const kid1 = decodeProtectedHeader(first).kid!;
    const row1 = await prisma.signingKey.findUniqueOrThrow({ where: { id: kid1 } });
    expect(row1.retiresAt.getTime()).toBe(clock.getTime() + SIGNING_PERIOD_MS);
    expect(row1.expiresAt.getTime()).toBe(row1.retiresAt.getTime() + VERIFY_GRACE_MS);
    expect(row1.algorithm).toBe("EdDSA");
    expect(row1.masterKeyId).toBe(mk.id);

    clock = new Date(row1.retiresAt.getTime() - 10 * 60_000);
    const late = await tokens.mint(input("cdp", 30)); // exp = retiresAt + 20 min
    expect(decodeProtectedHeader(late).kid).toBe(kid1);

    clock = new Date(row1.retiresAt.getTime() + 1000);
    const fresh = await tokens.mint(input("cdp", 30));
    const kid2 = decodeProtectedHeader(fresh).kid!;
    expect(kid2).not.toBe(kid1);
    await expect(tokens.verify(late, "cdp")).resolves.toBeTruthy();
    await expect(node().verify(late, "cdp")).resolves.toBeTruthy(); // a node that never saw kid1 before
    expect((await tokens.jwks()).keys.map((k) => k.kid).sort()).toEqual([kid1, kid2].sort());

    clock = new Date(decodeJwt(late).exp! * 1000 + 6000);
    await refused(tokens.verify(late, "cdp"));
    await expect(tokens.verify(fresh, "cdp")).resolves.toBeTruthy();

    // Past kid1's verification window, even a well-formed token under kid1 fails, and the JWKS drops it.
    clock = new Date(row1.expiresAt.getTime() + 1000);
    const underKid1 = await forge(kid1);
    await refused(tokens.verify(underKid1, "cdp"));
    await refused(node().verify(underKid1, "cdp"));
    expect((await node().jwks()).keys.map((k) => k.kid)).toEqual([kid2]);

    // When the next key is created, rows past their window are deleted.
    const row2 = await prisma.signingKey.findUniqueOrThrow({ where: { id: kid2 } });
    clock = new Date(row2.retiresAt.getTime() + 1000);
    const kid3 = decodeProtectedHeader(await tokens.mint(input("cdp"))).kid!;
    expect((await prisma.signingKey.findMany({ orderBy: { id: "asc" } })).map((r) => r.id)).toEqual([kid2, kid3]);
  });

  test("a node with another master key verifies, and signs with a key of its own", async () => {
    const node1 = node();
    const token = await node1.mint(input("cdp"));
    const other = node({ masterKey: newMasterKey() });
    await expect(other.verify(token, "cdp")).resolves.toBeTruthy();
    const own = await other.mint(input("cdp"));
    expect(decodeProtectedHeader(own).kid).not.toBe(decodeProtectedHeader(token).kid);
    await expect(node1.verify(own, "cdp")).resolves.toBeTruthy();
  });

  test("the private key is stored sealed (bound to its kid) and never in clear; the JWKS is public parts only", async () => {
    const tokens = node();
    const kid = decodeProtectedHeader(await tokens.mint(input("cdp"))).kid!;
    const row = await prisma.signingKey.findUniqueOrThrow({ where: { id: kid } });
    const privateJwk = JSON.parse(open(mk.key, row.privateKeyEncrypted, `signing_keys:${kid}`).toString("utf8")) as JWK;
    expect(typeof privateJwk.d).toBe("string");
    const stored = Buffer.from(row.privateKeyEncrypted);
    expect(stored.includes(Buffer.from(privateJwk.d!))).toBe(false);
    expect(stored.includes(Buffer.from(privateJwk.d!, "base64url"))).toBe(false);
    expect(stored.includes(Buffer.from('"d"'))).toBe(false);
    expect(JSON.stringify(row.publicJwk)).not.toContain(privateJwk.d!);
    expect(row.publicJwk).not.toHaveProperty("d");
    // Bound to its row: under another kid's AAD (a swapped row) it does not open.
    expect(() => open(mk.key, row.privateKeyEncrypted, `signing_keys:${ulid()}`)).toThrow();
    expect(() => open(newMasterKey().key, row.privateKeyEncrypted, `signing_keys:${kid}`)).toThrow();

    const jwks = await tokens.jwks();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toEqual({ kty: "OKP", crv: "Ed25519", x: privateJwk.x, kid, alg: "EdDSA", use: "sig" });
    expect(JSON.stringify(jwks)).not.toContain(privateJwk.d!);
  });

  test("a swapped private-key ciphertext is not used for signing", async () => {
    const node1 = node();
    const kid1 = decodeProtectedHeader(await node1.mint(input("cdp"))).kid!;
    clock = new Date(clock.getTime() + SIGNING_PERIOD_MS + 1000);
    const kid2 = decodeProtectedHeader(await node1.mint(input("cdp"))).kid!;
    expect(kid2).not.toBe(kid1);
    const row1 = await prisma.signingKey.findUniqueOrThrow({ where: { id: kid1 } });
    // Put kid1's (retired) sealed private key into kid2's row: a new node must refuse to unseal it.
    await prisma.signingKey.update({ where: { id: kid2 }, data: { privateKeyEncrypted: row1.privateKeyEncrypted } });
    const fresh = node();
    const token = await fresh.mint(input("cdp"));
    const kid3 = decodeProtectedHeader(token).kid!;
    expect([kid1, kid2]).not.toContain(kid3);
    await expect(node().verify(token, "cdp")).resolves.toBeTruthy();
  });
});
