import type { z } from "zod";

/**
 * Reading a zod 4 schema for GraphQL: what it is under its wrappers, whether it may be left out, its
 * description, and names in GraphQL's camelCase. Shared by the input bridge (zod-input.ts) and the
 * output fields (zod-output.ts), so both read a declaration the same way.
 */

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; getter?: () => z.ZodType };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers that change presence, not shape. */
const wrappers = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);

/** The schema under its optional/nullable/default wrappers (a pipe is read by its input side). */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (wrappers.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === "pipe" && def.in) s = def.in;
    else if (def.type === "lazy" && def.getter) s = def.getter();
    else return s;
  }
}

/** The zod kind of a schema under its wrappers: "object", "string", "number", "enum", … */
export const kindOf = (schema: z.ZodType): string => defOf(unwrap(schema)).type;

/** Whether a caller must give it: neither optional, nor defaulted, nor nullable anywhere in its wrappers. */
export function isRequired(schema: z.ZodType): boolean {
  if ((schema as unknown as { _zod: { optin?: string } })._zod.optin === "optional") return false;
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (def.type === "nullable" || def.type === "optional" || def.type === "default" || def.type === "prefault") return false;
    if (!(wrappers.has(def.type) && def.innerType)) return true;
    s = def.innerType;
  }
}

/** The first description met from the outside in (`.describe()` may sit on a wrapper or on what it wraps). */
export function descriptionOf(schema: z.ZodType): string | undefined {
  let s: z.ZodType | undefined = schema;
  while (s) {
    if (s.description) return s.description;
    const def = defOf(s);
    s = wrappers.has(def.type) ? def.innerType : def.type === "pipe" ? def.in : undefined;
  }
  return undefined;
}

/** An object's fields, an array's element, an enum's values. */
export const shapeOf = (schema: z.ZodType) => (unwrap(schema) as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
export const elementOf = (schema: z.ZodType) => (unwrap(schema) as unknown as z.ZodArray<z.ZodType>).element;
export const enumValues = (schema: z.ZodType) => (unwrap(schema) as unknown as z.ZodEnum).options as Array<string | number>;
export const isInt = (schema: z.ZodType) => Boolean((unwrap(schema) as unknown as z.ZodNumber).isInt);

/** `save_profile_on_release` → `saveProfileOnRelease`. */
export const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
/** `live_view` → `LiveView`. */
export const pascal = (name: string) => camel(name).replace(/^[a-z]/, (c) => c.toUpperCase());

/** The GraphQL scalar of a scalar schema, or null when it is not one. */
export function scalarOf(schema: z.ZodType): "String" | "Int" | "Float" | "Boolean" | null {
  switch (kindOf(schema)) {
    case "string":
      return "String";
    case "number":
      return isInt(schema) ? "Int" : "Float";
    case "boolean":
      return "Boolean";
    default:
      return null;
  }
}

/** Whether every value of an enum is a GraphQL name (else it is presented as a String). */
export const graphqlEnumable = (values: ReadonlyArray<string | number>) =>
  values.every((v) => typeof v === "string" && /^[_A-Za-z][_0-9A-Za-z]*$/.test(v) && !["true", "false", "null"].includes(v));
