import { navigate } from "./router.tsx";

/** One label of a session, as GraphQL carries metadata (an object of unknown keys has no GraphQL type). */
export interface MetadataPair {
  key: string;
  value: string;
}

/** The server's rules (docs/session-options.md), checked here too so a typo is caught before a round trip. */
export const METADATA_KEY = /^[a-z0-9_.-]{1,64}$/;
export const MAX_METADATA = 16;
export const MAX_METADATA_VALUE = 512;
export const KEY_RULE = "Keys are 1–64 characters of a-z, 0-9, _ . and -.";

export const formatPair = (p: MetadataPair): string => `${p.key}=${p.value}`;

/** `team=qa` as a pair, or why it is not one. The value is everything after the first `=`. */
export function parsePair(text: string): { pair: MetadataPair } | { problem: string } {
  const at = text.indexOf("=");
  if (at <= 0) return { problem: "Write it as key=value, such as team=qa." };
  const key = text.slice(0, at).trim();
  const value = text.slice(at + 1).trim();
  if (!METADATA_KEY.test(key)) return { problem: KEY_RULE };
  if (value.length > MAX_METADATA_VALUE) return { problem: `Values are at most ${MAX_METADATA_VALUE} characters.` };
  return { pair: { key, value } };
}

// The list's metadata filters live in the address (`?meta=team%3Dqa&meta=run%3D42`), so a filtered
// list survives a reload and can be shared like the status filter.
export const METADATA_PARAM = "meta";

/** The filters among the address's `meta` values (`search.getAll("meta")`); malformed ones are left out. */
export function metadataFilters(values: readonly string[]): MetadataPair[] {
  const pairs: MetadataPair[] = [];
  for (const raw of values) {
    const parsed = parsePair(raw);
    if ("pair" in parsed && !pairs.some((p) => p.key === parsed.pair.key)) pairs.push(parsed.pair);
  }
  return pairs.slice(0, MAX_METADATA);
}

export function setMetadataFilters(pairs: MetadataPair[]): void {
  const url = new URL(location.href);
  url.searchParams.delete(METADATA_PARAM);
  for (const p of pairs) url.searchParams.append(METADATA_PARAM, formatPair(p));
  navigate(url.pathname + url.search, { replace: true });
}

/**
 * The filters with `pair` added. A key already filtered on takes the new value: every pair must
 * match, so two values of one key would match nothing (and the server refuses a key given twice).
 */
export function withFilter(filters: MetadataPair[], pair: MetadataPair): MetadataPair[] {
  return [...filters.filter((p) => p.key !== pair.key), pair];
}

/** Whether a session's metadata has every filter's key with exactly its value (as the server decides). */
export function matchesAll(metadata: readonly MetadataPair[], filters: readonly MetadataPair[]): boolean {
  return filters.every((f) => metadata.some((m) => m.key === f.key && m.value === f.value));
}
