import type { z } from "zod";

/**
 * Query values of a closed set arrive as people type them (`?status=running`, the CLI's
 * `--status running`): each is matched to the schema's own spelling ignoring case before the schema
 * judges it, so the documented values stay as they are and no case is refused. Values that match no
 * option are left alone for the schema to refuse, naming the options.
 */
export function foldQueryCase(schema: z.ZodType, query: unknown): unknown {
  const shape = shapeOf(schema);
  if (!shape || !query || typeof query !== "object") return query;
  const folded: Record<string, unknown> = { ...(query as Record<string, unknown>) };
  for (const [name, field] of Object.entries(shape)) {
    const options = enumOptions(field);
    const value = folded[name];
    if (!options || value === undefined) continue;
    const fold = (v: unknown) => (typeof v === "string" ? (options.find((o) => o.toLowerCase() === v.toLowerCase()) ?? v) : v);
    folded[name] = Array.isArray(value) ? value.map(fold) : fold(value);
  }
  return folded;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; entries?: Record<string, unknown> };
const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = defOf(schema);
  if (def.type === "object") return def.shape;
  if (def.type === "pipe" && def.in) return shapeOf(def.in);
  return undefined;
}

/** The string options of an enum, through optional, default and nullable wrappers. */
function enumOptions(schema: z.ZodType): string[] | undefined {
  let def = defOf(schema);
  for (let depth = 0; def.innerType && depth < 8; depth++) def = defOf(def.innerType);
  if (def.type !== "enum" || !def.entries) return undefined;
  return Object.values(def.entries).filter((v): v is string => typeof v === "string");
}
