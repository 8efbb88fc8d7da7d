import type { z } from "zod";
import type { builder as appBuilder } from "./builder.ts";
import { camel, descriptionOf, unwrap, elementOf, enumValues, graphqlEnumable, isRequired, kindOf, pascal, scalarOf, shapeOf } from "./zod-shape.ts";

/**
 * A GraphQL input type derived from a zod object schema, and the way back: the service's schema is
 * the one declaration of an input, so a field added there appears in GraphQL with no edit here.
 * snake_case fields become camelCase, nested objects become input types of their own, strings,
 * numbers (Int when `.int()`), booleans, enums and arrays their GraphQL types, descriptions carried
 * over. GraphQL has no type for an object of unknown keys (a zod record): `record` says how one is
 * entered (a list of key/value entries) and turned back. The answer's `toWire` turns a GraphQL input
 * into the snake_case object the zod schema validates (GraphQL's nulls dropped), for that schema to
 * judge: the bridge shapes, it never validates.
 */

// biome-ignore lint/suspicious/noExplicitAny: input refs of any shape, built at run time.
type InputRef = any;
type FieldBuilder = Parameters<NonNullable<Parameters<typeof appBuilder.inputType>[1]["fields"]>>[0];
/** A Pothos schema builder: the app's, or a test's own. */
// biome-ignore lint/suspicious/noExplicitAny: builders of any schema types.
export type AnyBuilder = any;

export interface ZodInputOptions {
  /** Names of nested input types by their snake_case path (`browser.viewport`); others are `<Parent><Field>Input`. */
  names?: Record<string, string>;
  /** How a record is entered in GraphQL: as a list of this input type, turned back into an object by `toWire`. */
  record?: { type: InputRef; toWire: (entries: never) => unknown };
  /**
   * Fields kept for older clients, deprecated: name → the camelCase path of the field each stands
   * for (`liveViewInteractive: "liveView.interactive"`). Given, it fills that field when the new one
   * is not given.
   */
  aliases?: Record<string, string>;
}

export interface ZodInput {
  ref: InputRef;
  /** A GraphQL input as the snake_case object its zod schema validates. */
  toWire(input: unknown): Record<string, unknown> | undefined;
}

const enums = new WeakMap<AnyBuilder, WeakMap<z.ZodType, unknown>>();

/** One GraphQL enum per zod enum and builder, whichever type meets it first names it. */
export function enumRef(builder: AnyBuilder, schema: z.ZodType, name: string): unknown {
  const inner = unwrap(schema);
  if (!enums.has(builder)) enums.set(builder, new WeakMap());
  const known = enums.get(builder)?.get(inner);
  if (known) return known;
  const ref = builder.enumType(name, {
    values: enumValues(schema).map(String) as [string, ...string[]],
    ...(descriptionOf(schema) ? { description: descriptionOf(schema) } : {}),
  });
  enums.get(builder)?.set(inner, ref);
  return ref;
}

const baseName = (typeName: string) => typeName.replace(/Input$/, "");

export function zodInputType(builder: AnyBuilder, name: string, schema: z.ZodType, options: ZodInputOptions = {}): ZodInput {
  const names = options.names ?? {};
  const built = new Map<z.ZodType, InputRef>();

  /** The GraphQL type of one field, building nested types on the way. */
  function typeOf(field: z.ZodType, path: string, parent: string): unknown {
    const scalar = scalarOf(field);
    if (scalar) return scalar;
    switch (kindOf(field)) {
      case "object": {
        // Built once per zod object (an alias may name a nested object too).
        const known = built.get(unwrap(field));
        if (known) return known;
        const ref = objectType(field, names[path] ?? `${baseName(parent)}${pascal(path.split(".").pop() ?? "")}Input`, path);
        built.set(unwrap(field), ref);
        return ref;
      }
      case "enum": {
        const values = enumValues(field);
        return graphqlEnumable(values)
          ? enumRef(builder, field, `${baseName(parent)}${pascal(path.split(".").pop() ?? "")}`)
          : typeof values[0] === "number"
            ? "Float"
            : "String";
      }
      case "array":
        return [typeOf(elementOf(field), path, parent)];
      case "record":
        if (options.record) return [options.record.type];
        break;
    }
    throw new Error(`${name}: no GraphQL input form for the zod ${kindOf(field)} at \`${path}\` (extend graphql/zod-input.ts)`);
  }

  function objectType(object: z.ZodType, typeName: string, prefix: string, extra?: (t: FieldBuilder) => Array<[string, unknown]>): InputRef {
    const description = descriptionOf(object);
    return builder.inputType(typeName, {
      ...(description ? { description } : {}),
      fields: (t: FieldBuilder) =>
        Object.fromEntries(
          Object.entries(shapeOf(object))
            .map(([key, field]) => {
              const path = prefix ? `${prefix}.${key}` : key;
              const doc = descriptionOf(field);
              return [
                camel(key),
                t.field({ type: typeOf(field, path, typeName) as "String", required: isRequired(field), ...(doc ? { description: doc } : {}) }),
              ];
            })
            .concat((extra ? extra(t) : []) as never[]),
        ),
    });
  }

  const aliases = options.aliases ?? {};
  const ref = objectType(schema, name, "", (t) =>
    // Each alias takes the GraphQL type of the field it stands for.
    Object.entries(aliases).map(([alias, target]) => {
      const field = fieldAt(schema, target);
      const doc = descriptionOf(field);
      return [
        alias,
        t.field({
          type: typeOf(field, snakePath(schema, target), name) as "String",
          deprecationReason: `Use \`${target}\`.`,
          ...(doc ? { description: doc } : {}),
        }),
      ];
    }),
  );

  function wire(field: z.ZodType, value: unknown): unknown {
    if (value === null || value === undefined) return undefined;
    switch (kindOf(field)) {
      case "object": {
        const source = value as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const [key, inner] of Object.entries(shapeOf(field))) {
          const v = wire(inner, source[camel(key)]);
          if (v !== undefined) out[key] = v;
        }
        return out;
      }
      case "array":
        return Array.isArray(value) ? value.map((v) => wire(elementOf(field), v)) : value;
      case "record":
        return options.record ? options.record.toWire(value as never) : value;
      default:
        return value;
    }
  }

  return {
    ref,
    toWire: (input) =>
      input === null || input === undefined ? undefined : (wire(schema, withAliases(input as Record<string, unknown>, aliases)) as Record<string, unknown>),
  };
}

/** The zod field at a camelCase path (`liveView.interactive`). */
function fieldAt(schema: z.ZodType, camelPath: string): z.ZodType {
  let s = schema;
  for (const part of camelPath.split(".")) {
    const entry = Object.entries(shapeOf(s)).find(([key]) => camel(key) === part);
    if (!entry) throw new Error(`alias target \`${camelPath}\` is not a field`);
    s = entry[1];
  }
  return s;
}

const snakePath = (schema: z.ZodType, camelPath: string) => {
  let s = schema;
  return camelPath
    .split(".")
    .map((part) => {
      const [key, field] = Object.entries(shapeOf(s)).find(([k]) => camel(k) === part) ?? [part, s];
      s = field;
      return key;
    })
    .join(".");
};

/** The input with each given alias moved to the field it stands for (the field itself wins when both are given). */
function withAliases(input: Record<string, unknown>, aliases: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const [alias, target] of Object.entries(aliases)) {
    const value = out[alias];
    delete out[alias];
    if (value === null || value === undefined) continue;
    const parts = target.split(".");
    let node = out;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      node = node[part] = next && typeof next === "object" ? { ...(next as Record<string, unknown>) } : {};
    }
    const leaf = parts[parts.length - 1] as string;
    if (node[leaf] === null || node[leaf] === undefined) node[leaf] = value;
  }
  return out;
}
