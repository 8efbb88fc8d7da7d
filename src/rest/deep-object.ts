/**
 * OpenAPI's `deepObject` query style (`?metadata[team]=qa&metadata[run]=42`): Express's simple query
 * parser keeps `metadata[team]` as one key, so the keys of that shape are gathered into an object
 * (`{metadata: {team: "qa", run: "42"}}`) before the route's schema judges the query. Only one level:
 * nothing deeper is a deepObject. A name given both plain and bracketed, or bracketed twice with one
 * key, keeps a shape the schema refuses (a string, an array), so the caller gets a 400, never a guess.
 * Not qs: it drops a `__proto__` key silently (we answer 400) and nests deeper levels, decision 0250.
 */
const bracketed = /^([A-Za-z_][A-Za-z0-9_]*)\[([^[\]]*)\]$/;

export function gatherDeepObjects(query: unknown): unknown {
  if (!query || typeof query !== "object") return query;
  const out: Record<string, unknown> = {};
  const deep = new Map<string, Record<string, unknown>>();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    const match = bracketed.exec(name);
    if (!match) {
      out[name] = value;
      continue;
    }
    const [, base, key] = match as unknown as [string, string, string];
    let object = deep.get(base);
    if (!object) deep.set(base, (object = Object.create(null) as Record<string, unknown>));
    object[key] = value;
  }
  for (const [base, object] of deep) out[base] = base in out ? [out[base], object] : { ...object };
  return out;
}
