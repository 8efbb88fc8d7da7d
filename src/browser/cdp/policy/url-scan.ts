/**
 * Finds, anywhere in a CDP command's parameters, a string that Chromium would read as an address
 * reaching the host rather than the web (issue 17): local files, the browser's own pages, DevTools,
 * extensions. The CDP policy (policy.ts) refuses a command that carries one, whatever the
 * parameter is called and however deep it is, including JSON carried inside a string (a message for
 * another target, a serialised argument).
 *
 * Only strings that ARE such an address count: a selector like `a:hover`, Playwright's
 * `internal:role=button`, or script source that merely contains `file:` somewhere pass. Each string
 * costs a look at its first few characters, so a 1 MB expression costs what "1+1" does.
 */

/**
 * Schemes that reach the host or the browser itself. Any scheme starting with `chrome` is one too
 * (chrome:, chrome-extension:, chrome-untrusted:, chrome-search:, chrome-error:, chrome-guest:,
 * chrome-native:, chrome-distiller:, chrome-devtools:, chrome-extension-resource:, …): Chromium keeps
 * adding them. Not here, on purpose: `content:` and `intent:` exist only on Android (and `content: x`
 * is everyday CSS), `javascript:` and `data:` run or show page content with an opaque or the page's
 * own origin, and http(s)/ws(s) leave through the egress listener.
 */
const hostSchemes = new Set(["file", "filesystem", "devtools", "view-source", "isolated-app", "externalfile", "googlechrome", "dom-distiller"]);

/**
 * The first two letters (lower case) of every scheme judged below: a string that starts with two
 * plain ASCII characters forming no such pair cannot be one of them, which settles most strings
 * (ids, words, numbers, script) at their first two characters.
 */
const openings = new Uint8Array(128 * 128);
for (const scheme of [...hostSchemes, "chrome", "about", "blob"]) openings[scheme.charCodeAt(0) * 128 + scheme.charCodeAt(1)] = 1;

/** `about:` pages other than these are the browser's own pages (Chromium maps about:version to chrome://version). */
const harmlessAbout = ["blank", "srcdoc"];

/** Longest scheme worth reading: beyond it a string cannot name one of ours (the longest is 25 characters). */
const MAX_SCHEME = 32;

/**
 * How deep containers may nest, counted through JSON carried in strings too. Chromium's own CDP
 * parser refuses messages nested deeper than 300, so a deeper one is no real client's.
 */
export const MAX_DEPTH = 300;
/** JSON inside a string inside JSON inside a string…: one level is what an attack needs, four is generous. */
export const MAX_EMBEDDED_LEVELS = 4;
/** Characters of strings parsed as JSON per command: parsing is the one cost a message can multiply. */
export const MAX_EMBEDDED_CHARS = 16 * 1024 * 1024;

/** Tab, LF, CR: Chromium's URL parser drops them anywhere in an address. */
function removedAnywhere(c: number): boolean {
  return c === 9 || c === 10 || c === 13;
}

/** Leading characters the URL parser trims (C0 controls and space), and Unicode spaces, refused as if trimmed to err on the safe side. */
function trimmedAtStart(c: number): boolean {
  return (
    c <= 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The scheme `s` starts with as Chromium reads it (lower case), and where the rest begins; null when
 * `s` does not start with a syntactically valid scheme (ASCII letter, then letters, digits, + - .).
 * Percent-escapes and other characters make a scheme invalid to Chromium, so they end the search.
 * Allocates only when a scheme is found: most strings end the search at their first few characters.
 */
function schemeAt(s: string, from: number): { scheme: string; rest: number } | null {
  const n = s.length;
  let i = from;
  while (i < n && trimmedAtStart(s.charCodeAt(i))) i++;
  const start = i;
  let length = 0;
  let dropped = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 58 /* : */) {
      if (length === 0) return null;
      const raw = s.slice(start, i);
      return { scheme: (dropped ? raw.replace(/[\t\n\r]/g, "") : raw).toLowerCase(), rest: i + 1 };
    }
    if (removedAnywhere(c)) {
      dropped = true;
      continue;
    }
    const letter = (c | 0x20) >= 97 && (c | 0x20) <= 122;
    if (!letter && !(length > 0 && ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46))) {
      if (!fullWidth(c)) return null;
      // NFKC maps each full-width character to one ASCII one, so positions up to the colon hold.
      const found = schemeAt(s.slice(from, from + 4 * MAX_SCHEME).normalize("NFKC"), 0);
      return found && { scheme: found.scheme, rest: from + found.rest };
    }
    if (++length > MAX_SCHEME) return null;
  }
  return null;
}

/** A compatibility form of an ASCII letter or scheme character (ｆｉｌｅ：): not a scheme to Chromium, refused all the same. */
function fullWidth(c: number): boolean {
  return c >= 0xff01 && c <= 0xff5e;
}

/** True when `s`, from `at`, is only what the URL parser trims or drops (the end of the address). */
function onlyTrailing(s: string, at: number): boolean {
  for (let i = at; i < s.length; i++) if (s.charCodeAt(i) > 0x20) return false;
  return true;
}

/** True for about:blank and about:srcdoc (any case, with a query or fragment); `at` is just after `about:`. */
function isHarmlessAbout(s: string, at: number): boolean {
  for (const name of harmlessAbout) {
    let i = at;
    let k = 0;
    for (; i < s.length && k < name.length; i++) {
      const c = s.charCodeAt(i);
      if (removedAnywhere(c)) continue;
      if ((c | 0x20) !== name.charCodeAt(k)) break;
      k++;
    }
    if (k < name.length) continue;
    while (i < s.length && removedAnywhere(s.charCodeAt(i))) i++;
    if (i === s.length || s[i] === "?" || s[i] === "#" || onlyTrailing(s, i)) return true;
  }
  return false;
}

/**
 * Why the string is refused (it is an address of one of the schemes above), or null. `blob:` is
 * judged by the address it wraps (`blob:file:///…`), up to a few wrappings.
 */
export function hostAddress(s: string): string | null {
  if (plainlyNoScheme(s)) return null;
  let at = 0;
  let prefix = "";
  for (let wraps = 0; wraps < 4; wraps++) {
    const found = schemeAt(s, at);
    if (!found) return null;
    const { scheme } = found;
    if (scheme === "blob") {
      prefix += "blob:";
      at = found.rest;
      continue;
    }
    if (scheme === "about") {
      return isHarmlessAbout(s, found.rest) ? null : `${prefix}about: pages other than about:blank and about:srcdoc are the browser's own and are not allowed`;
    }
    if (hostSchemes.has(scheme) || scheme.startsWith("chrome")) {
      return `${prefix}${scheme}: addresses reach the server, not the web, and are not allowed`;
    }
    return null;
  }
  return "blob: addresses wrapped this many times are not allowed";
}

/**
 * True when `s` cannot start with one of the schemes: it starts with a printable ASCII character
 * that is not a letter (a scheme starts with one; only controls and spaces are trimmed before it),
 * or with two printable ASCII characters that open none of them. Anything else (leading controls,
 * spaces, tabs, non-ASCII) is left to schemeAt.
 */
function plainlyNoScheme(s: string): boolean {
  const c0 = s.charCodeAt(0);
  if (!(c0 > 0x20 && c0 < 0x7f)) return false;
  const l0 = c0 | 0x20;
  if (l0 < 97 || l0 > 122) return true;
  const c1 = s.charCodeAt(1); // NaN past the end: a single character
  if (Number.isNaN(c1)) return true;
  if (c1 === 9 || c1 === 10 || c1 === 13 || c1 >= 0x7f) return false; // dropped by the URL parser, or maybe full-width
  return c1 <= 0x20 || openings[l0 * 128 + (c1 | 0x20)] === 0;
}

/** True when `s` may be JSON text worth parsing: it starts with `{` or `[` and ends with `}` or `]` (spaces aside). */
function looksLikeJson(s: string): boolean {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) <= 0x20) i++;
  const first = s.charCodeAt(i);
  if (first !== 123 && first !== 91) return false;
  let j = s.length - 1;
  while (j > i && s.charCodeAt(j) <= 0x20) j--;
  const last = s.charCodeAt(j);
  return j > i && (last === 125 || last === 93);
}

/** Characters parsed as JSON so far for the command being judged (judging is synchronous, one command at a time). */
let embeddedChars = 0;

/** Why a string is refused: a host address, or JSON inside it that carries one (or goes past the limits). */
function judgeString(s: string, depth: number, level: number): string | null {
  const address = hostAddress(s);
  if (address) return address;
  if (!looksLikeJson(s)) return null;
  if (level >= MAX_EMBEDDED_LEVELS) return `JSON nested in strings more than ${MAX_EMBEDDED_LEVELS} deep is not allowed`;
  embeddedChars += s.length;
  if (embeddedChars > MAX_EMBEDDED_CHARS) return `more than ${MAX_EMBEDDED_CHARS / 1024 / 1024} MiB of JSON inside strings is not allowed`;
  let inner: unknown;
  try {
    inner = JSON.parse(s);
  } catch {
    return null; // not JSON after all (a script, a selector): judged above as a string
  }
  return judgeValue(inner, depth, level + 1);
}

function judgeValue(value: unknown, depth: number, level: number): string | null {
  if (typeof value === "string") return judgeString(value, depth, level);
  if (typeof value !== "object" || value === null) return null;
  if (depth >= MAX_DEPTH) return `parameters nested more than ${MAX_DEPTH} deep are not allowed`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const why = judgeValue(value[i], depth + 1, level);
      if (why) return why;
    }
    return null;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    // Keys are strings a client chose too (header names, argument maps).
    const why = judgeString(key, depth + 1, level) ?? judgeValue(object[key], depth + 1, level);
    if (why) return why;
  }
  return null;
}

/** Why a command's parameters are refused (see above), or null when none of their strings reaches the host. */
export function hostAddressIn(params: unknown): string | null {
  embeddedChars = 0;
  return judgeValue(params, 0, 0);
}
