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

import {
  MAX_COOKIE_BYTES,
  MAX_COOKIES,
  MAX_DOMAIN_CHARS,
  MAX_ITEMS,
  MAX_ORIGINS,
  MAX_PATH_CHARS,
  MAX_STORAGE_NAME,
  MAX_URL_CHARS,
  checkCookie,
  cookieNameChars,
  cookieValueChars,
  hostName,
  isExpires,
  isOrigin,
  isPlainDocumentV1,
  isSite,
  pathChars,
} from "./rules.ts";

export { MAX_COOKIE_BYTES, MAX_COOKIES, MAX_ITEMS, MAX_ORIGINS, MAX_STORAGE_NAME } from "./rules.ts";

/** `http(s)://host[:port]`, exactly as browsers serialise an origin (no path, no trailing slash). */
export const Origin = z
  .string({ error: "must be a string" })
  .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
  .refine(isOrigin, "must be an http(s) origin such as https://example.com (scheme, host and optional port; no path or trailing slash)");

/** A site (`scheme://registrable-domain`), the unit cookie partitions are keyed by. */
const Site = z
  .string({ error: "must be a string" })
  .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
  .refine(isSite, "must be a site such as https://example.com (scheme and host, no port or path)");

const SameSite = z.enum(["Strict", "Lax", "None"], { error: 'must be "Strict", "Lax" or "None"' });

const CookieName = z.string({ error: "must be a string" }).max(MAX_COOKIE_BYTES).regex(cookieNameChars, "cannot contain control characters, `;` or `=`");
const CookieValue = z.string({ error: "must be a string" }).max(MAX_COOKIE_BYTES).regex(cookieValueChars, "cannot contain control characters or `;`");
const CookieDomain = z
  .string({ error: "must be a string" })
  .min(1, "cannot be empty")
  .max(MAX_DOMAIN_CHARS, `must be at most ${MAX_DOMAIN_CHARS} characters`)
  .regex(hostName, "must be a host name (a leading dot makes it a domain cookie) or a bracketed IPv6 address");
const CookiePath = z
  .string({ error: "must be a string" })
  .max(MAX_PATH_CHARS, `must be at most ${MAX_PATH_CHARS} characters`)
  .regex(pathChars, "must start with / and contain no control characters or `;`");
const Expires = z.number({ error: "must be a number" }).refine(isExpires, "must be -1 (a session cookie) or Unix seconds");

const PartitionKey = z.strictObject({
  topLevelSite: Site,
  hasCrossSiteAncestor: z.boolean({ error: "must be a boolean" }),
});

/** Chromium's rules for setting a cookie (rules.ts), as issues of the schema. */
const cookieRules = (ctx: z.RefinementCtx) => (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });

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
  .superRefine((c, ctx) => checkCookie({ ...c, partitioned: c.partitionKey !== null }, cookieRules(ctx)));
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
  // The usual stored document passes the plain check as it is (rules.ts says why); the
  // schema judges the rest, and says what is wrong.
  if (isPlainDocumentV1(json)) return json as ProfileDocument;
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
  .superRefine((c, ctx) => checkCookie({ ...c, sameSite: c.sameSite ?? null, partitioned: c.partitionKey !== undefined }, cookieRules(ctx)));

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
    name: string;
    value: string;
    domain: string;
    path: string;
    expires: number;
    httpOnly: boolean;
    secure: boolean;
    sameSite: "Strict" | "Lax" | "None";
    partitionKey?: string;
    _crHasCrossSiteAncestor?: boolean;
  }>;
  origins: Array<{ origin: string; localStorage: StorageItem[]; sessionStorage: StorageItem[] }>;
}

export function fromStorageState(state: StorageState): ProfileDocument {
  return {
    format: PROFILE_FORMAT,
    formatVersion: CURRENT_FORMAT_VERSION,
    cookies: state.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      expires: c.expires,
      httpOnly: c.httpOnly,
      secure: c.secure,
      sameSite: c.sameSite ?? null,
      partitionKey: c.partitionKey === undefined ? null : { topLevelSite: c.partitionKey, hasCrossSiteAncestor: c._crHasCrossSiteAncestor ?? false },
    })),
    origins: state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: o.sessionStorage ?? [] })),
  };
}

export function toStorageState(doc: ProfileDocument): StorageStateExport {
  return {
    cookies: doc.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      expires: c.expires,
      httpOnly: c.httpOnly,
      secure: c.secure,
      // Playwright's shape has no "unspecified"; browsers treat a cookie without the attribute as Lax.
      sameSite: c.sameSite ?? "Lax",
      ...(c.partitionKey ? { partitionKey: c.partitionKey.topLevelSite, _crHasCrossSiteAncestor: c.partitionKey.hasCrossSiteAncestor } : {}),
    })),
    origins: doc.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: o.sessionStorage })),
  };
}
