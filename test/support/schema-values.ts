import { randomUUID } from "node:crypto";
import { GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLScalarType, type GraphQLInputType } from "graphql";
import { mutate, type Rng } from "./fuzz.ts";

/**
 * Values for an operation's inputs, generated from its own declaration (a JSON Schema of the served
 * OpenAPI document, or a GraphQL input type from introspection), then spoilt in one place: the
 * generative acceptance test of issue 41 (integration/fuzz-operations.test.ts). Near-valid values
 * reach deep into each operation; the spoilt one is what the operation must refuse with a 4xx.
 */

/** The kinds of spoilt value, each a class of input that once gave a 500 or could. */
export const faultKinds = ["nul", "surrogate", "control", "huge", "wrong-type", "repeat", "mutated"] as const;
export type FaultKind = (typeof faultKinds)[number];

/** A string of the kind (`huge` is 1 MB). */
export function faultyString(rng: Rng, kind: FaultKind, base = "fuzz"): string {
  switch (kind) {
    case "nul":
      return rng.pick([`${base}\u0000`, "\u0000", `a\u0000b${base}`]);
    case "surrogate":
      return rng.pick([`${base}\ud800`, "\udfff", `x\udbff${base}`, "\ud800\ud800"]);
    case "control":
      return rng.pick([`${base}\u0001\u001f\u007f`, "\t\r\n", `\u001b[31m${base}`, "\u0085\u2028"]);
    case "huge":
      return "x".repeat(1_000_000);
    default:
      return mutate(rng, base);
  }
}

/** A value of another JSON type than `v`'s. */
export function wrongType(rng: Rng, v: unknown): unknown {
  const others: unknown[] = [42, -1e308, true, null, [], {}, "", "1", [1, "a"], { a: 1 }];
  return rng.pick(others.filter((o) => typeof o !== typeof v || Array.isArray(o) !== Array.isArray(v)));
}

type JsonSchema = Record<string, unknown> & { $ref?: string };

/** A near-valid value of a JSON Schema (OpenAPI 3.1, as zod writes it); `$ref`s resolve in `components`. */
export function sampleOf(rng: Rng, schema: JsonSchema | undefined, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (!schema || depth > 8) return "fuzz";
  if (schema.$ref) return sampleOf(rng, components[schema.$ref.split("/").pop()!], components, depth + 1);
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices)
    return sampleOf(rng, rng.pick(choices.filter((c) => c.type !== "null").length ? choices.filter((c) => c.type !== "null") : choices), components, depth + 1);
  if (schema.allOf) return sampleOf(rng, (schema.allOf as JsonSchema[])[0], components, depth + 1);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum as unknown[]);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : (schema.type as string | undefined);
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, inner] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) {
        if (required.has(name) || rng.chance(0.5)) out[name] = sampleOf(rng, inner, components, depth + 1);
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === "object" && rng.chance(0.7)) {
        out[rng.pick(["team", "run", "a.b"])] = sampleOf(rng, schema.additionalProperties as JsonSchema, components, depth + 1);
      }
      return out;
    }
    case "array":
      return Array.from({ length: 1 + rng.int(2) }, () => sampleOf(rng, schema.items as JsonSchema, components, depth + 1));
    case "integer":
    case "number":
      return typeof schema.minimum === "number" && schema.minimum > -1e15 ? schema.minimum : 1;
    case "boolean":
      return rng.chance(0.5);
    default:
      if (schema.format === "uri" || /url/i.test(String(schema.description ?? ""))) return "https://example.com/fuzz";
      if (schema.format === "date-time") return new Date().toISOString();
      if (schema.format === "uuid") return randomUUID();
      return `fuzz-${rng.int(1000)}`;
  }
}

/** A near-valid value of a GraphQL input type. */
export function sampleOfGraphQL(rng: Rng, type: GraphQLInputType, depth = 0): unknown {
  if (type instanceof GraphQLNonNull) return sampleOfGraphQL(rng, type.ofType, depth);
  if (depth > 8) return null;
  if (type instanceof GraphQLList) return Array.from({ length: 1 + rng.int(2) }, () => sampleOfGraphQL(rng, type.ofType, depth + 1));
  if (type instanceof GraphQLEnumType) return rng.pick(type.getValues()).name;
  if (type instanceof GraphQLInputObjectType) {
    const out: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields())) {
      if (field.type instanceof GraphQLNonNull || rng.chance(0.5)) out[field.name] = sampleOfGraphQL(rng, field.type, depth + 1);
    }
    return out;
  }
  const scalar = type as GraphQLScalarType;
  return { Int: 1, Float: 1.5, Boolean: true, DateTime: new Date().toISOString() }[scalar.name as "Int"] ?? `fuzz-${rng.int(1000)}`;
}

/** Every place in `value` (as paths) holding a string, and every array. */
function places(
  value: unknown,
  path: Array<string | number> = [],
  out: { strings: Array<Array<string | number>>; arrays: Array<Array<string | number>>; all: Array<Array<string | number>> } = {
    strings: [],
    arrays: [],
    all: [],
  },
) {
  out.all.push(path);
  if (typeof value === "string") out.strings.push(path);
  if (Array.isArray(value)) {
    out.arrays.push(path);
    for (const [i, v] of value.entries()) places(v, [...path, i], out);
  } else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) places(v, [...path, k], out);
  return out;
}

function at(root: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}

function put(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  (at(root, path.slice(0, -1)) as Record<string | number, unknown>)[path.at(-1)!] = value;
  return root;
}

/**
 * `value` spoilt once by a fault of `kind`: a string replaced (NUL, lone surrogate, controls, 1 MB,
 * mutated), a value of the wrong type, an array's first item repeated, or a metadata-like key
 * spoilt. Answers the spoilt value and where it is.
 */
export function spoil(rng: Rng, value: unknown, kind: FaultKind): { value: unknown; where: string } {
  const v = structuredClone(value);
  const p = places(v);
  if (kind === "repeat" && p.arrays.length > 0) {
    const path = rng.pick(p.arrays);
    const list = at(v, path) as unknown[];
    if (list.length === 0) list.push("fuzz-id");
    list.push(list[0]);
    return { value: v, where: `${path.join(".")} repeated` };
  }
  if (kind === "wrong-type") {
    const path = rng.pick(p.all);
    return { value: put(v, path, wrongType(rng, at(v, path))), where: `${path.join(".")} wrong type` };
  }
  if (p.strings.length === 0) {
    // Nothing to spoil in place: a key of the top object, or the whole value, becomes the bad text.
    if (v && typeof v === "object" && !Array.isArray(v))
      return { value: { ...v, [faultyString(rng, kind === "huge" ? "nul" : kind, "key")]: "x" }, where: "a key" };
    return { value: faultyString(rng, kind === "repeat" ? "nul" : kind), where: "the whole" };
  }
  const path = rng.pick(p.strings);
  return { value: put(v, path, faultyString(rng, kind === "repeat" ? "nul" : kind, String(at(v, path)).slice(0, 40))), where: path.join(".") };
}
