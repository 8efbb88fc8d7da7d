import type { FieldError } from "../errors.ts";
import { escapeText } from "../escape-text.ts";
// Still named here, where the other text rules are; defined beneath the logger, which uses it too.
export { escapeText };
import { hasUnstorableText } from "./stored-text.ts";

/**
 * Text is total (issue 41): every string that comes from outside and can reach storage, a log line
 * or the audit log is one PostgreSQL can keep. Two kinds cannot be kept and are refused at the edge,
 * whatever the field: NUL (U+0000: `text` refuses it, SQLSTATE 22021, and `jsonb` refuses `\u0000`,
 * 22P05) and invalid UTF-16, a surrogate without its partner (it has no UTF-8 form). Everything else,
 * control characters included, is text like any other; each field's own schema says what it allows.
 *
 * Each transport calls `textFaults` once on what it parsed, before any service sees it: the REST
 * router on path, query, body and declared headers (rest/router.ts), GraphQL on every field's
 * arguments (graphql/text-arguments.ts), MCP on every tool's arguments (mcp/endpoint.ts). A field
 * declared anywhere gets the rule without a word of its own.
 */

/** What is wrong with `s`, or undefined when it can be stored (what cannot: kernel/stored-text.ts). */
export function textFault(s: string): string | undefined {
  if (!hasUnstorableText(s)) return undefined;
  return s.includes("\u0000")
    ? "contains a NUL character (U+0000), which cannot be stored"
    : "contains invalid UTF-16 (a lone surrogate), which cannot be stored";
}

/** At most this many faults are reported for one input (the first tells the client enough). */
const MAX_REPORTED = 10;

const objectLike = (v: unknown): v is object => v !== null && typeof v === "object" && !Buffer.isBuffer(v) && !(v instanceof Date);

/** Whether any string in `value`, or any key, cannot be stored. */
function holdsFault(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (textFault(v)) return true;
    } else if (Array.isArray(v)) {
      for (const inner of v) pending.push(inner);
    } else if (objectLike(v)) {
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        if (textFault(key)) return true;
        pending.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** Where a value sits: its key and its parent's place (a path is spelt out only for a fault). */
type Place = { key: string; parent: Place | null } | null;

function pathOf(place: Place, prefix: readonly string[]): string {
  const keys: string[] = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return [...prefix, ...keys.reverse()].map(escapeText).join(".") || "input";
}

/**
 * Every string in `value` (object keys included, any depth) that cannot be stored, each named by its
 * path under `prefix` (`body.metadata.team`, `params.id`, `input.description`). The walk keeps its own
 * stack and spells a path out only for a fault, so it is linear in the input however deep it nests.
 */
export function textFaults(value: unknown, prefix: readonly string[]): FieldError[] {
  // Nearly every input is clean: a first pass that keeps no places (cheaper) answers that.
  if (!holdsFault(value)) return [];
  const found: FieldError[] = [];
  const pending: Array<[unknown, Place]> = [[value, null]];
  while (pending.length > 0 && found.length < MAX_REPORTED) {
    const [v, place] = pending.pop()!;
    if (typeof v === "string") {
      const fault = textFault(v);
      if (fault) found.push({ field: pathOf(place, prefix), message: fault });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push([v[i], { key: String(i), parent: place }]);
    } else if (objectLike(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const fault = textFault(key);
        if (fault) found.push({ field: pathOf({ key, parent: place }, prefix), message: `its key ${fault}` });
        else pending.push([(v as Record<string, unknown>)[key], { key, parent: place }]);
      }
    }
  }
  return found;
}
