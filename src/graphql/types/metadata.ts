import { validationError } from "../../errors.ts";
import { builder } from "../builder.ts";

/** A session's metadata in GraphQL: key/value pairs (an object of unknown keys has no GraphQL type). */
export const MetadataEntry = builder.objectRef<{ key: string; value: string }>("MetadataEntry").implement({
  fields: (t) => ({ key: t.exposeString("key"), value: t.exposeString("value") }),
});

export const MetadataEntryInput = builder.inputType("MetadataEntryInput", {
  fields: (t) => ({ key: t.string({ required: true }), value: t.string({ required: true }) }),
});

export function metadataEntries(metadata: unknown): Array<{ key: string; value: string }> {
  if (!metadata || typeof metadata !== "object") return [];
  return Object.entries(metadata as Record<string, unknown>)
    .filter((e): e is [string, string] => typeof e[1] === "string")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

/**
 * The input's pairs as the object the service validates. A key given twice is kept as both values
 * joined into an array, which the service's schema refuses: a duplicate is an error, never a guess.
 */
export function metadataObject(entries: ReadonlyArray<{ key: string; value: string }> | null | undefined): Record<string, unknown> | undefined {
  if (!entries) return undefined;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const { key, value } of entries) {
    // An object key the service's schema would silently leave out (see the REST router's protoKeys).
    if (key === "__proto__") throw validationError([{ field: "metadata.__proto__", message: "`__proto__` is not accepted as a key" }]);
    out[key] = key in out ? [out[key], value].flat() : value;
  }
  return { ...out };
}
