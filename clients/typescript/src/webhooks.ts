import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Checking a webhook Vessel sent (Standard Webhooks): `webhook-signature` holds one or more
 * space-separated `v1,<base64 HMAC-SHA256>` over `"{webhook-id}.{webhook-timestamp}.{body}"`, keyed by
 * the secret's decoded bytes (`whsec_<base64>`); during a rotation there are two, and either may match.
 * The timestamp must be within 5 minutes of now, so a captured request cannot be replayed later.
 * Pass the body exactly as received (the raw bytes, not a re-serialized object).
 */

/** Body of every delivery. */
export interface WebhookEvent<T = Record<string, unknown>> {
  /** `session.running`, `session.released`, `session.timed_out`, `session.failed`, `live_view.done`, `download.completed`, `recording.ready` or `webhook.test`. */
  type: string;
  /** When it happened (ISO 8601). */
  timestamp: string;
  /** The session (for `session.*`) or the event, as the REST API answers them. */
  data: T;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The clock (tests). */
  now?: () => Date;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

/**
 * The delivery's event once its signature and timestamp check out; throws WebhookVerificationError
 * otherwise. `secret` is the webhook's `whsec_…` (several may be given while you switch secrets).
 */
export function verifyWebhook<T = Record<string, unknown>>(
  secret: string | readonly string[],
  headers: HeaderBag,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent<T> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a number of seconds");
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError("webhook-timestamp is too far from now");
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const offered = signatures.split(" ").flatMap((s) => {
    const [version, value] = s.split(",", 2);
    return version === "v1" && value ? [Buffer.from(value, "base64")] : [];
  });
  const secrets = typeof secret === "string" ? [secret] : secret;
  let matched = false;
  for (const s of secrets) {
    const key = Buffer.from(s.startsWith("whsec_") ? s.slice(6) : s, "base64");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(raw).digest();
    // Every candidate is compared in full (no early exit), each in constant time.
    for (const candidate of offered) if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError("no webhook-signature matches the secret");
  try {
    return JSON.parse(raw.toString("utf8")) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
}
