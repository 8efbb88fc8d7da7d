// How the configuration reads sizes: whole bytes or "64mb". Shared by the schema in src/config.ts and
// its parts by area (config-*.ts), so a leaf of its own.
import bytes from "bytes";
import { z } from "zod";

/**
 * A size in whole bytes or as `bytes` reads it ("64mb", "1.5gb": 1024-based), at least `min` and at most `max`. Only
 * what looks like a size reaches `bytes` (it reads "12abc" as 12); anything else is refused by the number check.
 */
const sizeText = /^\s*(?:\d+\s*b|\d+(?:\.\d+)?\s*(?:kb|mb|gb|tb|pb))\s*$/i;
export function byteCount(min: number, minText: string, max?: number, maxText?: string) {
  const count = z.coerce.number<unknown>({ error: "must be a whole number of bytes" }).int("must be a whole number of bytes").min(min, minText);
  const readSize = (v: unknown) => (typeof v === "string" && sizeText.test(v) ? bytes.parse(v) : v);
  return z.preprocess(readSize, max === undefined ? count : count.max(max, maxText));
}
