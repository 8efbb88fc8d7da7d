import { defaultFieldResolver, GraphQLObjectType, type GraphQLFieldResolver, type GraphQLSchema } from "graphql";
import { validationError } from "../errors.ts";
import { textFaults } from "../kernel/text.ts";

/**
 * Text is total (kernel/text.ts) over GraphQL: every field that takes arguments checks them, as
 * coerced (literals and variables alike), before its resolver runs, so a field added later gets the
 * rule without a word of its own. A NUL or a lone surrogate anywhere is a `VALIDATION_FAILED` (400)
 * naming the argument's path (`input.metadata.0.value`, `id`). GraphQL's own lexer already refuses
 * them in a document's literals; variables are JSON and can carry both.
 */
export function refuseUnstorableArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      field.resolve = checked(field.resolve ?? defaultFieldResolver);
      if (field.subscribe) field.subscribe = checked(field.subscribe);
    }
  }
  return schema;
}

function checked<S, C>(inner: GraphQLFieldResolver<S, C>): GraphQLFieldResolver<S, C> {
  return (source, args, context, info) => {
    const faults = textFaults(args, []);
    if (faults.length > 0) throw validationError(faults);
    return inner(source, args, context, info);
  };
}
