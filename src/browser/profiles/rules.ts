/**
 * The rules a profile document obeys (format.ts builds its schemas from them), and a
 * check of a stored version 1 document against the same rules in plain code.
 *
 * Why the plain check: every session started from a profile reads its document before the create
 * is answered, and the schema's validation of a realistic one (300 cookies, 1,000 storage items)
 * took ~5 ms of the create, copying every object as it went. The plain check walks the parsed JSON
 * once and copies nothing; whatever it does not accept goes through the schema, which then either
 * accepts it after all or says what is wrong (so the check may be stricter than the schema, never
 * looser: test/unit/profile-rules.test.ts compares the two).
 */

/** Far above what Chromium keeps (about 3,300 cookies in all, 180 per domain). */
export const MAX_COOKIES = 5_000;
export const MAX_ORIGINS = 1_000;
/** Items per storage area (localStorage or sessionStorage) of one origin. */
export const MAX_ITEMS = 10_000;
/** Chromium refuses cookies whose name and value together exceed 4,096 bytes. */
export const MAX_COOKIE_BYTES = 4_096;
export const MAX_STORAGE_NAME = 16_384;
/** Unix seconds of 9999-12-31T23:59:59Z; Chromium caps expiry at 400 days from setting anyway. */
export const MAX_EXPIRES = 253_402_300_799;
export const MAX_URL_CHARS = 2048;
export const MAX_DOMAIN_CHARS = 254;
export const MAX_PATH_CHARS = 1024;

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
// Control characters (tab aside) and `;` cannot appear in a cookie; `=` ends a name.
export const cookieValueChars = /^[^\x00-\x08\x0a-\x1f\x7f;]*$/;
export const cookieNameChars = /^[^\x00-\x08\x0a-\x1f\x7f;=]*$/;
export const hostName = /^\.?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$|^\[[0-9A-Fa-f:.]+\]$/;
export const pathChars = /^\/[^\x00-\x1f\x7f;]*$/;

/** `http(s)://host[:port]`, exactly as browsers serialise an origin (no path, no trailing slash). */
export function isOrigin(o: string): boolean {
  try {
    const u = new URL(o);
    return (u.protocol === "http:" || u.protocol === "https:") && u.origin === o;
  } catch {
    return false;
  }
}

/** A site (`scheme://registrable-domain`), the unit cookie partitions are keyed by. */
export function isSite(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && `${u.protocol}//${u.host}` === s && u.port === "";
  } catch {
    return false;
  }
}

export const isExpires = (n: number) => n === -1 || (Number.isFinite(n) && n >= 0 && n <= MAX_EXPIRES);

export interface CookieShape {
  name: string;
  value: string;
  domain: string;
  path: string;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None" | null;
  partitioned: boolean;
}

/** The rules Chromium applies when a cookie is set, checked up front so a stored profile never fails to restore over one. */
export function checkCookie(c: CookieShape, issue: (path: string, message: string) => void): void {
  if (bytes(c.name) + bytes(c.value) > MAX_COOKIE_BYTES) issue("value", `name and value together must be at most ${MAX_COOKIE_BYTES} bytes`);
  if (c.name === "" && c.value === "") issue("name", "a cookie needs a name or a value");
  if (c.sameSite === "None" && !c.secure) issue("secure", "a SameSite=None cookie must be secure");
  if (c.partitioned && !c.secure) issue("secure", "a partitioned cookie must be secure");
  const lower = c.name.toLowerCase();
  if ((lower.startsWith("__secure-") || lower.startsWith("__host-")) && !c.secure) issue("secure", "a __Secure- or __Host- cookie must be secure");
  if (lower.startsWith("__host-") && (c.path !== "/" || c.domain.startsWith("."))) issue("domain", "a __Host- cookie must be host-only with path /");
}

// ---- the plain check of a stored version 1 document ---------------------------------------------

type Plain = Record<string, unknown>;

/** A plain object with exactly `keys` (what a strict schema object accepts), none missing, none more. */
function exactly(o: unknown, keys: ReadonlySet<string>): o is Plain {
  if (typeof o !== "object" || o === null || Array.isArray(o)) return false;
  let n = 0;
  for (const k in o) {
    if (!Object.hasOwn(o, k) || !keys.has(k)) return false;
    n++;
  }
  return n === keys.size;
}

const str = (s: unknown, max: number): s is string => typeof s === "string" && s.length <= max;
const DOCUMENT_KEYS = new Set(["format", "formatVersion", "cookies", "origins"]);
const COOKIE_KEYS = new Set(["name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite", "partitionKey"]);
const PARTITION_KEYS = new Set(["topLevelSite", "hasCrossSiteAncestor"]);
const ORIGIN_KEYS = new Set(["origin", "localStorage", "sessionStorage"]);
const ITEM_KEYS = new Set(["name", "value"]);

/** True when the schema's ProfileCookie accepts `c` as it is (a cookie of a capture, or of a stored document). */
export function cookieOk(c: unknown): boolean {
  if (!exactly(c, COOKIE_KEYS)) return false;
  const { name, value, domain, path, expires, httpOnly, secure, sameSite, partitionKey: pk } = c;
  if (!str(name, MAX_COOKIE_BYTES) || !cookieNameChars.test(name) || !str(value, MAX_COOKIE_BYTES) || !cookieValueChars.test(value)) return false;
  if (!str(domain, MAX_DOMAIN_CHARS) || domain.length === 0 || !hostName.test(domain) || !str(path, MAX_PATH_CHARS) || !pathChars.test(path)) return false;
  if (typeof expires !== "number" || !isExpires(expires) || typeof httpOnly !== "boolean" || typeof secure !== "boolean") return false;
  if (sameSite !== null && sameSite !== "Strict" && sameSite !== "Lax" && sameSite !== "None") return false;
  if (
    pk !== null &&
    !(exactly(pk, PARTITION_KEYS) && str(pk.topLevelSite, MAX_URL_CHARS) && isSite(pk.topLevelSite) && typeof pk.hasCrossSiteAncestor === "boolean")
  )
    return false;
  let ok = true;
  checkCookie({ name, value, domain, path, secure, sameSite, partitioned: pk !== null }, () => (ok = false));
  return ok;
}

function areaOk(items: unknown): boolean {
  if (!Array.isArray(items) || items.length > MAX_ITEMS) return false;
  const names = new Set<string>();
  for (const item of items) {
    if (!exactly(item, ITEM_KEYS) || !str(item.name, MAX_STORAGE_NAME) || typeof item.value !== "string" || names.has(item.name)) return false;
    names.add(item.name);
  }
  return true;
}

/**
 * True when `json` is a version 1 document the schema (format.ts, ProfileDocumentV1) accepts
 * as it is: its output would be an equal copy. False when it is not, or when it is unsure.
 */
export function isPlainDocumentV1(json: unknown): boolean {
  if (!exactly(json, DOCUMENT_KEYS) || json.format !== "vessel.profile" || json.formatVersion !== 1) return false;
  const { cookies, origins } = json;
  if (!Array.isArray(cookies) || cookies.length > MAX_COOKIES || !Array.isArray(origins) || origins.length > MAX_ORIGINS) return false;
  for (const c of cookies) if (!cookieOk(c)) return false;
  const seen = new Set<string>();
  for (const o of origins) {
    if (!exactly(o, ORIGIN_KEYS) || !str(o.origin, MAX_URL_CHARS) || seen.has(o.origin) || !isOrigin(o.origin)) return false;
    if (!areaOk(o.localStorage) || !areaOk(o.sessionStorage)) return false;
    seen.add(o.origin);
  }
  return true;
}
