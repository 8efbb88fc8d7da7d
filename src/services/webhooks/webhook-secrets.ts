import { createHmac, randomBytes } from "node:crypto";
import { open, seal } from "../../crypto/envelope.ts";
import type { MasterKey } from "../../crypto/master-key.ts";

/**
 * Webhook signing secrets (Standard Webhooks): 32 random bytes, shown once as `whsec_<base64>`,
 * stored only sealed by the master key (AES-256-GCM) with the endpoint's id as AAD, so a sealed
 * secret copied to another endpoint's row does not open. Signatures are
 * `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` keyed by the raw bytes.
 */

export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

const bytes = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

/** The AAD binding a sealed secret to its endpoint (the master-key rotation re-seals with it). */
export const secretAad = (endpointId: string) => `webhook_endpoints:${endpointId}:secret`;

export interface NewSecret {
  /** `whsec_…`: handed to the caller once, never stored. */
  shown: string;
  sealed: Uint8Array<ArrayBuffer>;
  masterKeyId: string;
}

export function newSecret(masterKey: MasterKey, endpointId: string): NewSecret {
  const raw = randomBytes(SECRET_BYTES);
  try {
    return { shown: SECRET_PREFIX + raw.toString("base64"), sealed: bytes(seal(masterKey.key, raw, secretAad(endpointId))), masterKeyId: masterKey.id };
  } finally {
    raw.fill(0);
  }
}

/** The secret's raw bytes; throws when it was sealed by another master key, for another endpoint, or tampered with. */
export function openSecret(masterKey: MasterKey, endpointId: string, sealed: Uint8Array): Buffer {
  return open(masterKey.key, sealed, secretAad(endpointId));
}

/** One `v1,<base64>` signature of a message. */
export function signature(key: Buffer, msgId: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac("sha256", key).update(`${msgId}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The three headers of one attempt: every key signs (space-separated), the newest first. */
export function signedHeaders(keys: readonly Buffer[], msgId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": keys.map((k) => signature(k, msgId, timestampSeconds, body)).join(" "),
  };
}
