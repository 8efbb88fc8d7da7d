import type { z } from "zod";
import { enumRef, type AnyBuilder } from "./zod-input.ts";
import { camel, descriptionOf, elementOf, enumValues, graphqlEnumable, kindOf, pascal, scalarOf, shapeOf } from "./zod-shape.ts";

/**
 * Output fields derived from zod schemas: what was given as snake_case JSON (a stored option),
 * presented in GraphQL's camelCase with the same types the input bridge (zod-input.ts) gives it.
 * Every field is nullable: an option not given is null.
 */

// biome-ignore lint/suspicious/noExplicitAny: field builders and refs of any parent, built at run time.
type Loose = any;

const objects = new WeakMap<AnyBuilder, WeakMap<z.ZodType, unknown>>();

function outputTypeOf(builder: AnyBuilder, field: z.ZodType, name: string): unknown {
  const scalar = scalarOf(field);
  if (scalar) return scalar;
  switch (kindOf(field)) {
    case "enum": {
      const values = enumValues(field);
      return graphqlEnumable(values) ? enumRef(builder, field, name) : typeof values[0] === "number" ? "Float" : "String";
    }
    case "array":
      return [outputTypeOf(builder, elementOf(field), name)];
    case "object": {
      if (!objects.has(builder)) objects.set(builder, new WeakMap());
      const known = objects.get(builder)?.get(field);
      if (known) return known;
      const description = descriptionOf(field);
      const ref = builder.objectRef(name).implement({
        ...(description ? { description } : {}),
        fields: (t: Loose) => zodOutputFields(builder, t, shapeOf(field), (o: Record<string, unknown>) => o, name),
      });
      objects.get(builder)?.set(field, ref);
      return ref;
    }
  }
  throw new Error(`no GraphQL output form for the zod ${kindOf(field)} \`${name}\` (extend graphql/zod-output.ts)`);
}

/**
 * GraphQL fields for each entry of a zod shape, read from the snake_case object `read` gives for a
 * parent. Nested objects become types named `<prefix><Field>`.
 */
export function zodOutputFields<P>(
  builder: AnyBuilder,
  t: Loose,
  shape: Record<string, z.ZodType>,
  read: (parent: P) => Record<string, unknown>,
  prefix: string,
): Record<string, Loose> {
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => {
      const doc = descriptionOf(field);
      return [
        camel(key),
        t.field({
          type: outputTypeOf(builder, field, `${prefix}${pascal(key)}`),
          nullable: kindOf(field) === "array" ? { list: true, items: false } : true,
          ...(doc ? { description: doc } : {}),
          resolve: (parent: P) => read(parent)[key] ?? null,
        }),
      ];
    }),
  );
}
