/**
 * A URL as a person reads it: percent-encoded text decoded (`/caf%C3%A9` → `/café`), except what
 * would change its meaning or hide in it (encoded `/ ? # & =`, which decodeURI keeps; control and
 * direction characters, for which the whole is shown encoded). The entry keeps the exact URL.
 */
export function readableUrl(url: string): string {
  try {
    const decoded = decodeURI(url);
    return /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(decoded) ? url : decoded;
  } catch {
    return url;
  }
}

/**
 * `https://shop.test/cart?x=1` → `/cart?x=1` on the page's own origin, else the whole URL without its
 * scheme; readable (see readableUrl). A `data:` or other non-http URL is shown whole: URL's parts of
 * one would percent-encode it (`text/html,%E2%80%A6`).
 */
export function shortUrl(url: string | null, pageUrl?: string): string {
  if (!url) return "(no URL)";
  if (!/^https?:/i.test(url)) return readableUrl(url);
  try {
    const u = new URL(url);
    const page = pageUrl ? new URL(pageUrl) : undefined;
    if (page && page.origin === u.origin) return readableUrl(`${u.pathname}${u.search}`);
    return readableUrl(`${u.host}${u.pathname}${u.search}`);
  } catch {
    return readableUrl(url);
  }
}
