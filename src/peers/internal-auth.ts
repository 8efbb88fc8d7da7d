import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/**
 * Node-to-node authentication. Every internal call (and every connection one node forwards to
 * another) carries an HMAC-SHA-256 over what it asks for, keyed by a key derived from the shared
 * master key (HKDF, its own label), so only nodes can make one, and no customer credential (API
 * key, connect token, sign-in cookie) is ever accepted in its place.
 *
 * Signed: method, path with query, sending node, receiving node, time, a random nonce and the body's
 * SHA-256. A call is refused when its time is more than {@link INTERNAL_WINDOW_MS} away from the
 * receiver's clock, when it was meant for another node, or when its nonce was seen already (kept for
 * the window): a captured call cannot be replayed, neither later nor against another node.
 */

export const INTERNAL_WINDOW_MS = 30_000;

export const internalHeaders = {
  from: "x-vessel-node",
  to: "x-vessel-to",
  time: "x-vessel-time",
  nonce: "x-vessel-nonce",
  signature: "x-vessel-signature",
} as const;

const HEADER_NAMES: ReadonlySet<string> = new Set(Object.values(internalHeaders));

/** Whether a header is one of ours (stripped from anything a client sends before a node forwards it). */
export function isInternalHeader(name: string): boolean {
  return HEADER_NAMES.has(name.toLowerCase());
}

/** A key of its own for each use (`calls` signs requests, `payloads` seals what nodes hand each other). */
export function deriveInternalKey(masterKey: Buffer, use: "calls" | "payloads" = "calls"): Buffer {
  return Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), Buffer.from(`vessel/internal-${use}/v1`), 32));
}

const sha256 = (body: string | Buffer) => createHash("sha256").update(body).digest("hex");

export class InternalAuth {
  readonly #key: Buffer;
  readonly #self: string;
  readonly #now: () => number;
  /** Nonces seen, with when they may be forgotten (insertion order ≈ time order). */
  readonly #seen = new Map<string, number>();

  constructor(masterKey: Buffer, self: string, now: () => number = Date.now) {
    this.#key = deriveInternalKey(masterKey);
    this.#self = self;
    this.#now = now;
  }

  /** Headers that authenticate `method path` (with `body`) from this node to node `to`. */
  sign(to: string, method: string, path: string, body: string | Buffer = ""): Record<string, string> {
    const time = String(this.#now());
    const nonce = randomBytes(16).toString("base64url");
    return {
      [internalHeaders.from]: this.#self,
      [internalHeaders.to]: to,
      [internalHeaders.time]: time,
      [internalHeaders.nonce]: nonce,
      [internalHeaders.signature]: this.#mac(method, path, this.#self, to, time, nonce, sha256(body)),
    };
  }

  /** The sending node when the headers authenticate this request to this node; otherwise why not. */
  verify(headers: IncomingHttpHeaders, method: string, path: string, body: string | Buffer = ""): { ok: true; from: string } | { ok: false; reason: string } {
    const get = (name: string) => {
      const v = headers[name];
      return typeof v === "string" ? v : undefined;
    };
    const from = get(internalHeaders.from);
    const to = get(internalHeaders.to);
    const time = get(internalHeaders.time);
    const nonce = get(internalHeaders.nonce);
    const signature = get(internalHeaders.signature);
    if (!from || !to || !time || !nonce || !signature) return { ok: false, reason: "not signed" };
    if (to !== this.#self) return { ok: false, reason: "meant for another node" };
    const at = Number(time);
    const now = this.#now();
    if (!Number.isFinite(at) || Math.abs(now - at) > INTERNAL_WINDOW_MS) return { ok: false, reason: "outside the time window" };
    const expected = Buffer.from(this.#mac(method, path, from, to, time, nonce, sha256(body)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad signature" };
    this.#forgetOld(now);
    if (this.#seen.has(nonce)) return { ok: false, reason: "replayed" };
    this.#seen.set(nonce, at + INTERNAL_WINDOW_MS);
    return { ok: true, from };
  }

  #mac(method: string, path: string, from: string, to: string, time: string, nonce: string, bodyHash: string): string {
    return createHmac("sha256", this.#key)
      .update(["vessel-internal-v1", method.toUpperCase(), path, from, to, time, nonce, bodyHash].join("\n"))
      .digest("base64url");
  }

  #forgetOld(now: number): void {
    for (const [nonce, until] of this.#seen) {
      if (until >= now) break;
      this.#seen.delete(nonce);
    }
    // Bounded even if times arrive out of order: the oldest go first.
    while (this.#seen.size > 100_000) this.#seen.delete(this.#seen.keys().next().value!);
  }
}
