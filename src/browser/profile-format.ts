/**
 * The profile document: what a profile holds, as versioned JSON that names no browser file and no
 * Chromium structure, so a profile saved under one Chromium restores into any later one
 * (docs/profile-format.md). It is only ever stored encrypted (src/crypto/profile-crypto.ts).
 *
 * Also here: the Playwright `storageState` shape profiles are imported from and exported to, and
 * the strict validation every document passes, whether it came from a browser or from a client.
 */
import { z } from "zod";

export const PROFILE_FORMAT = "vessel.profile";
export const CURRENT_FORMAT_VERSION = 1;

/** Far above what Chromium keeps (about 3,300 cookies in all, 180 per domain). */
export const MAX_COOKIES = 5_000;
export const MAX_ORIGINS = 1_000;
/** Items per storage area (localStorage or sessionStorage) of one origin. */
export const MAX_ITEMS = 10_000;
/** Chromium refuses cookies whose name and value together exceed 4,096 bytes. */
export const MAX_COOKIE_BYTES = 4_096;
export const MAX_STORAGE_NAME = 16_384;
/** Unix seconds of 9999-12-31T23:59:59Z; Chromium caps expiry at 400 days from setting anyway. */
const MAX_EXPIRES = 253_402_300_799;

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
// Control characters (tab aside) and `;` cannot appear in a cookie; `=` ends a name.
const cookieValueChars = /^[^\x00-\x08\x0a-\x1f\x7f;]*$/;
const cookieNameChars = /^[^\x00-\x08\x0a-\x1f\x7f;=]*$/;
const hostName = /^\.?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$|^\[[0-9A-Fa-f:.]+\]$/;
const pathChars = /^\/[^\x00-\x1f\x7f;]*$/;

/** `http(s)://host[:port]`, exactly as browsers serialise an origin (no path, no trailing slash). */
export const Origin = z
  .string({ error: "must be a string" })
  .max(2048, "must be at most 2048 characters")
  .refine((o) => {
    try {
      const u = new URL(o);
      return (u.protocol === "http:" || u.protocol === "https:") && u.origin === o;
    } catch {
      return false;
    }
  }, "must be an http(s) origin such as https://example.com (scheme, host and optional port; no path or trailing slash)");

/** A site (`scheme://registrable-domain`), the unit cookie partitions are keyed by. */
const Site = z
  .string({ error: "must be a string" })
  .max(2048, "must be at most 2048 characters")
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && `${u.protocol}//${u.host}` === s && u.port === "";
    } catch {
      return false;
    }
  }, "must be a site such as https://example.com (scheme and host, no port or path)");

const SameSite = z.enum(["Strict", "Lax", "None"], { error: 'must be "Strict", "Lax" or "None"' });

const CookieName = z.string({ error: "must be a string" }).max(MAX_COOKIE_BYTES).regex(cookieNameChars, "cannot contain control characters, `;` or `=`");
const CookieValue = z.string({ error: "must be a string" }).max(MAX_COOKIE_BYTES).regex(cookieValueChars, "cannot contain control characters or `;`");
const CookieDomain = z
  .string({ error: "must be a string" })
  .min(1, "cannot be empty")
  .max(254, "must be at most 254 characters")
  .regex(hostName, "must be a host name (a leading dot makes it a domain cookie) or a bracketed IPv6 address");
const CookiePath = z.string({ error: "must be a string" }).max(1024, "must be at most 1024 characters").regex(pathChars, "must start with / and contain no control characters or `;`");
const Expires = z
  .number({ error: "must be a number" })
  .refine((n) => n === -1 || (Number.isFinite(n) && n >= 0 && n <= MAX_EXPIRES), "must be -1 (a session cookie) or Unix seconds");

const PartitionKey = z.strictObject({
  topLevelSite: Site,
  hasCrossSiteAncestor: z.boolean({ error: "must be a boolean" }),
});

interface CookieShape {
  name: string;
  value: string;
  domain: string;
  path: string;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None" | null;
  partitioned: boolean;
}

/** The rules Chromium applies when a cookie is set, checked up front so a stored profile never fails to restore over one. */
function checkCookie(c: CookieShape, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (bytes(c.name) + bytes(c.value) > MAX_COOKIE_BYTES) issue("value", `name and value together must be at most ${MAX_COOKIE_BYTES} bytes`);
  if (c.name === "" && c.value === "") issue("name", "a cookie needs a name or a value");
  if (c.sameSite === "None" && !c.secure) issue("secure", "a SameSite=None cookie must be secure");
  if (c.partitioned && !c.secure) issue("secure", "a partitioned cookie must be secure");
  const lower = c.name.toLowerCase();
  if ((lower.startsWith("__secure-") || lower.startsWith("__host-")) && !c.secure) issue("secure", "a __Secure- or __Host- cookie must be secure");
  if (lower.startsWith("__host-") && (c.path !== "/" || c.domain.startsWith("."))) issue("domain", "a __Host- cookie must be host-only with path /");
}

/** One cookie as a profile stores it. `expires` is Unix seconds, or -1 for a session cookie. */
export const ProfileCookie = z
  .strictObject({
    name: CookieName,
    value: CookieValue,
    domain: CookieDomain,
    path: CookiePath,
    expires: Expires,
    httpOnly: z.boolean({ error: "must be a boolean" }),
    secure: z.boolean({ error: "must be a boolean" }),
    /** null: the cookie set no SameSite attribute (browsers then treat it as Lax). */
    sameSite: SameSite.nullable(),
    /** CHIPS: the partition of a `Partitioned` cookie; null for an ordinary one. */
    partitionKey: PartitionKey.nullable(),
  })
  .superRefine((c, ctx) => checkCookie({ ...c, partitioned: c.partitionKey !== null }, ctx));
export type ProfileCookie = z.output<typeof ProfileCookie>;

const StorageItem = z.strictObject({
  name: z.string({ error: "must be a string" }).max(MAX_STORAGE_NAME, `must be at most ${MAX_STORAGE_NAME} characters`),
  value: z.string({ error: "must be a string" }),
});
export type StorageItem = z.output<typeof StorageItem>;

function uniqueNames(items: StorageItem[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: "appears twice in this storage area" });
    seen.add(item.name);
  });
}

const StorageArea = z.array(StorageItem).max(MAX_ITEMS, `at most ${MAX_ITEMS} items per origin`).superRefine(uniqueNames);

export const ProfileOrigin = z.strictObject({
  origin: Origin,
  localStorage: StorageArea,
  /** Per tab in a browser: restored into every tab, before the origin's first document in that tab runs a script. */
  sessionStorage: StorageArea,
});
export type ProfileOrigin = z.output<typeof ProfileOrigin>;

function uniqueOrigins(origins: { origin: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  origins.forEach((o, i) => {
    if (seen.has(o.origin)) ctx.addIssue({ code: "custom", path: [i, "origin"], message: "appears twice" });
    seen.add(o.origin);
  });
}

export const ProfileDocumentV1 = z.strictObject({
  format: z.literal(PROFILE_FORMAT, { error: `must be "${PROFILE_FORMAT}"` }),
  formatVersion: z.literal(1, { error: "must be 1" }),
  cookies: z.array(ProfileCookie).max(MAX_COOKIES, `at most ${MAX_COOKIES} cookies`),
  origins: z.array(ProfileOrigin).max(MAX_ORIGINS, `at most ${MAX_ORIGINS} origins`).superRefine(uniqueOrigins),
});
/** The current document version. A later version adds its schema and an upgrade from this one. */
export type ProfileDocument = z.output<typeof ProfileDocumentV1>;

export class ProfileFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProfileFormatError";
  }
}

/**
 * Reads a stored document of any known version into the current shape. Throws ProfileFormatError
 * (never with values in the message) for anything else.
 */
export function parseProfileDocument(json: unknown): ProfileDocument {
  const version = (json as { formatVersion?: unknown } | null)?.formatVersion;
  if (version !== 1) throw new ProfileFormatError(`unknown profile format version ${JSON.stringify(version ?? null).slice(0, 20)}`);
  const result = ProfileDocumentV1.safeParse(json);
  if (!result.success) {
    const first = result.error.issues[0];
    throw new ProfileFormatError(`not a valid version 1 profile document (${first?.path.join(".") ?? "?"}: ${first?.message ?? "invalid"})`);
  }
  return result.data;
}

export function emptyDocument(): ProfileDocument {
  return { format: PROFILE_FORMAT, formatVersion: CURRENT_FORMAT_VERSION, cookies: [], origins: [] };
}

export interface DocumentStats {
  /** UTF-8 bytes of the serialised document: what the size limit applies to. */
  sizeBytes: number;
  cookieCount: number;
  originCount: number;
  /** localStorage and sessionStorage items of every origin. */
  keyCount: number;
}

export function serializeDocument(doc: ProfileDocument): { json: Buffer; stats: DocumentStats } {
  const json = Buffer.from(JSON.stringify(doc), "utf8");
  return {
    json,
    stats: {
      sizeBytes: json.length,
      cookieCount: doc.cookies.length,
      originCount: doc.origins.length,
      keyCount: doc.origins.reduce((n, o) => n + o.localStorage.length + o.sessionStorage.length, 0),
    },
  };
}

// ---- Playwright's storageState ----------------------------------------------------------------

/**
 * A cookie as Playwright's `storageState()` writes it; `partitionKey` is the top-level site of a
 * partitioned cookie and `_crHasCrossSiteAncestor` Playwright's Chromium-only companion field.
 */
const StorageStateCookie = z
  .strictObject({
    name: CookieName,
    value: CookieValue,
    domain: CookieDomain,
    path: CookiePath,
    expires: Expires.default(-1),
    httpOnly: z.boolean({ error: "must be a boolean" }).default(false),
    secure: z.boolean({ error: "must be a boolean" }).default(false),
    sameSite: SameSite.optional(),
    partitionKey: Site.optional(),
    _crHasCrossSiteAncestor: z.boolean({ error: "must be a boolean" }).optional(),
  })
  .superRefine((c, ctx) => checkCookie({ ...c, sameSite: c.sameSite ?? null, partitioned: c.partitionKey !== undefined }, ctx));

const StorageStateOrigin = z.strictObject({
  origin: Origin,
  localStorage: StorageArea,
  /** Not part of Playwright's shape (Playwright ignores it); Vessel exports and imports it. */
  sessionStorage: StorageArea.optional(),
});

/** Playwright's `storageState` (cookies and per-origin localStorage), plus optional per-origin sessionStorage. */
export const StorageState = z
  .strictObject({
    cookies: z.array(StorageStateCookie).max(MAX_COOKIES, `at most ${MAX_COOKIES} cookies`),
    origins: z.array(StorageStateOrigin).max(MAX_ORIGINS, `at most ${MAX_ORIGINS} origins`).superRefine(uniqueOrigins),
  })
  .meta({ id: "StorageState" });
export type StorageStateInput = z.input<typeof StorageState>;
export type StorageState = z.output<typeof StorageState>;

/** The export: always every Playwright field, so Playwright's `newContext({ storageState })` takes it as is. */
export interface StorageStateExport {
  cookies: Array<{
    name: string; value: string; domain: string; path: string; expires: number; httpOnly: boolean; secure: boolean;
    sameSite: "Strict" | "Lax" | "None"; partitionKey?: string; _crHasCrossSiteAncestor?: boolean;
  }>;
  origins: Array<{ origin: string; localStorage: StorageItem[]; sessionStorage: StorageItem[] }>;
}

export function fromStorageState(state: StorageState): ProfileDocument {
  return {
    format: PROFILE_FORMAT,
    formatVersion: CURRENT_FORMAT_VERSION,
    cookies: state.cookies.map((c) => ({
      name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires, httpOnly: c.httpOnly, secure: c.secure,
      sameSite: c.sameSite ?? null,
      partitionKey: c.partitionKey === undefined ? null : { topLevelSite: c.partitionKey, hasCrossSiteAncestor: c._crHasCrossSiteAncestor ?? false },
    })),
    origins: state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: o.sessionStorage ?? [] })),
  };
}

export function toStorageState(doc: ProfileDocument): StorageStateExport {
  return {
    cookies: doc.cookies.map((c) => ({
      name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires, httpOnly: c.httpOnly, secure: c.secure,
      // Playwright's shape has no "unspecified"; browsers treat a cookie without the attribute as Lax.
      sameSite: c.sameSite ?? "Lax",
      ...(c.partitionKey ? { partitionKey: c.partitionKey.topLevelSite, _crHasCrossSiteAncestor: c.partitionKey.hasCrossSiteAncestor } : {}),
    })),
    origins: doc.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: o.sessionStorage })),
  };
}
