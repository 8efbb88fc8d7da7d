/**
 * One byte range of a `Range` header (RFC 9110 §14.1.2): `bytes=first-last`, `bytes=first-` or
 * `bytes=-suffix`, against a resource of `size` bytes. Anything else (another unit, several ranges,
 * a malformed one) is ignored as the RFC allows: the whole resource is served. "unsatisfiable" when
 * the range starts beyond the end (416). Not range-parser: it answers 416 where the RFC says to serve
 * the whole (a suffix longer than the resource, an invalid range), decision 0250.
 */
export function parseByteRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | null {
  if (header === undefined) return null;
  const m = /^\s*bytes\s*=\s*(\d{0,15})\s*-\s*(\d{0,15})\s*$/i.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === "" ? Infinity : Number(m[2]);
  if (last < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(last, size - 1) };
}
