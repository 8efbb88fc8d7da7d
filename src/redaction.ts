/**
 * The one rule for credentials in URLs and free text: the server's log (logger.ts) and sessions'
 * logs (browser/logs/capture.ts) both mask with it.
 *
 * A query parameter is a credential when its name, split into words (at `_`, `-`, `.` and
 * camelCase), has one of CREDENTIAL_WORDS among them (`X-Amz-Signature`, `refresh_token`, `apiKey`,
 * `sessionId`), or when the whole name is one of CREDENTIAL_NAMES. Its value becomes `[redacted]`;
 * the name stays, so a reader still sees what was sent. A fragment of `name=value` pairs is judged the
 * same way: it never leaves the browser, but OAuth's implicit flow puts `#access_token=…` there, and a
 * session's navigations are logged. Nothing else in a URL is touched.
 */

export const REDACTED = "[redacted]";

const CREDENTIAL_WORDS = new Set([
  "token",
  "code",
  "key",
  "secret",
  "password",
  "passwd",
  "pwd",
  "auth",
  "authorization",
  "session",
  "sessionid",
  "sid",
  "sig",
  "signature",
  "jwt",
  "cookie",
  "apikey",
  "credential",
  "credentials",
]);
const CREDENTIAL_NAMES = new Set(["access_token", "api_key", "apikey", "x-api-key", "phpsessid", "jsessionid", "asp.net_sessionid"]);

function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether a query parameter named `name` carries a credential. */
export function isCredentialName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    // a malformed escape: judge the name as written
  }
  if (CREDENTIAL_NAMES.has(decoded.toLowerCase())) return true;
  return wordsOf(decoded).some((w) => CREDENTIAL_WORDS.has(w));
}

/** `name=value` pairs of a query (without its `?`), credentials' values masked. */
function redactQuery(query: string): string {
  return query.replace(/(^|&)([^&=]*)=([^&]*)/g, (all, sep: string, name: string, value: string) =>
    value !== "" && value !== REDACTED && isCredentialName(name) ? `${sep}${name}=${REDACTED}` : all,
  );
}

/** A URL (absolute, or a path with a query) with the values of credential parameters masked, in its query and its fragment. */
export function redactUrl(url: string): string {
  const hash = url.indexOf("#");
  const head = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? "" : `#${redactQuery(url.slice(hash + 1))}`;
  const q = head.indexOf("?");
  return (q === -1 ? head : head.slice(0, q + 1) + redactQuery(head.slice(q + 1))) + fragment;
}

/** A credential parameter anywhere in free text (an error's stack, a console message): `?name=value` or `&name=value`. */
const IN_TEXT = /([?&])([A-Za-z0-9_.\-[\]%]{1,64})=([^&#\s"'`<>()]*)/g;

/** Free text with every credential query parameter it quotes masked (URLs inside it, wherever they are). */
export function redactText(text: string): string {
  if (!text.includes("=")) return text;
  return text.replace(IN_TEXT, (all, sep: string, name: string, value: string) =>
    value !== "" && value !== REDACTED && isCredentialName(name) ? `${sep}${name}=${REDACTED}` : all,
  );
}
