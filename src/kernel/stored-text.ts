/**
 * Text PostgreSQL cannot store: a NUL character (a `text` value refuses it, SQLSTATE 22021; `jsonb`
 * refuses its `\u0000` escape, 22P05) and lone UTF-16 surrogates (the drivers encode them as U+FFFD
 * in `text`, silently changing the value; `jsonb` refuses their escapes, 22P02). Where such a value
 * is only recorded (an audit entry's target, a session event's data), it is stored escaped instead,
 * as the characters `\u0000`, `\uD800`, …, so the record still shows what came in.
 */

/** NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");
/** A NUL or any surrogate: the plain character class is several times cheaper than the lookarounds, and ordinary text has neither. */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

export function hasUnstorableText(s: string): boolean {
  return SUSPECT.test(s) && UNSTORABLE.test(s);
}

/** `s` with each NUL and lone surrogate written as its `\uXXXX` escape (upper-case hex); `s` itself when it has none. */
export function escapeUnstorable(s: string): string {
  if (!hasUnstorableText(s)) return s;
  return s.replace(UNSTORABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
}

/**
 * A JSON-like value (objects, arrays, strings, numbers…) with every string in it (keys too) escaped
 * by {@link escapeUnstorable}; `changed` says whether any was. Values other than plain objects and
 * arrays are kept as they are.
 */
export function escapeUnstorableDeep<T>(value: T): { value: T; changed: boolean } {
  let changed = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") {
      const escaped = escapeUnstorable(v);
      if (escaped !== v) changed = true;
      return escaped;
    }
    // Deeper than any JSON a writer is given; past it the value is left to the database to judge.
    if (depth > 64 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      const key = escapeUnstorable(k);
      if (key !== k) changed = true;
      out[key] = walk(item, depth + 1);
    }
    return out;
  };
  const escaped = walk(value, 0);
  return changed ? { value: escaped as T, changed } : { value, changed };
}

/** At most `max` characters of `s`, escaped, for a log line that must not carry a whole untrusted value. */
export function sampleOf(s: string, max = 64): string {
  const escaped = escapeUnstorable(s);
  return escaped.length <= max ? escaped : `${escaped.slice(0, max)}… (${s.length} characters)`;
}
