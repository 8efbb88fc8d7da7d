import {
  GraphQLError,
  Kind,
  parse,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from "graphql";

/**
 * Limits on what one GraphQL document may ask for (OWASP GraphQL cheat sheet; the figures are
 * GraphQL Armor's defaults, security.md §1.9 and tests F35–F36). Measured on the operation with its
 * fragments expanded, so neither fragment names (the `__schema`-named fragment that bypassed Armor,
 * GHSA-224p-v68g-5g8f) nor chains of spreads hide anything. Whether a field is introspection is
 * decided by the field itself (`__schema`, `__type`), never by a name the client chose.
 *
 * Introspection has limits of its own: its type references nest deeper than any data query
 * (GraphiQL's own introspection is 9 levels), it reads no data, and only signed-in callers may run it.
 */
export const queryLimits = {
  maxDepth: 6,
  maxIntrospectionDepth: 15,
  maxAliases: 15,
  maxDirectives: 50,
  maxTokens: 1000,
  maxCost: 5000,
} as const;

/** Per field: 2 for an object, 1 for a scalar, times 1.5 per level of nesting (Armor's cost model). */
const OBJECT_COST = 2;
const SCALAR_COST = 1;
const DEPTH_COST_FACTOR = 1.5;

const introspectionRoots = new Set(["__schema", "__type"]);

interface Measure {
  depth: number;
  introspectionDepth: number;
  aliases: number;
  directives: number;
  cost: number;
}

const zero: Measure = { depth: 0, introspectionDepth: 0, aliases: 0, directives: 0, cost: 0 };

/** Parses with the token limit: a document over it is refused while being read, before any work. */
export function parseLimited(source: string): DocumentNode {
  return parse(source, { maxTokens: queryLimits.maxTokens });
}

/** Measures one operation. Memoised per fragment, nesting level and introspection context. */
export function measureOperation(op: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): Measure {
  const memo = new Map<string, Measure>();
  const inProgress = new Set<string>();

  const walk = (set: SelectionSetNode | undefined, level: number, introspection: boolean): Measure => {
    const m: Measure = { ...zero };
    if (!set) return m;
    for (const sel of set.selections) {
      m.directives += sel.directives?.length ?? 0;
      let sub: Measure;
      if (sel.kind === Kind.FIELD) {
        const intro = introspection || introspectionRoots.has(sel.name.value);
        const below = walk(sel.selectionSet, level + 1, intro);
        if (sel.alias) m.aliases += 1;
        const own = intro ? 0 : (sel.selectionSet ? OBJECT_COST : SCALAR_COST) * DEPTH_COST_FACTOR ** level;
        sub = {
          depth: intro ? 0 : 1 + below.depth,
          introspectionDepth: intro ? 1 + Math.max(below.introspectionDepth, below.depth) : below.introspectionDepth,
          aliases: below.aliases,
          directives: below.directives,
          cost: own + below.cost,
        };
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        sub = walk(sel.selectionSet, level, introspection);
      } else {
        const name = sel.name.value;
        const key = `${name}@${level}@${introspection}`;
        const cached = memo.get(key);
        if (cached) sub = cached;
        else if (inProgress.has(name))
          sub = zero; // a cycle: NoFragmentCyclesRule reports it
        else {
          const fragment = fragments.get(name);
          inProgress.add(name);
          const inner = fragment ? walk(fragment.selectionSet, level, introspection) : zero;
          sub = { ...inner, directives: inner.directives + (fragment?.directives?.length ?? 0) };
          inProgress.delete(name);
          memo.set(key, sub);
        }
      }
      m.depth = Math.max(m.depth, sub.depth);
      m.introspectionDepth = Math.max(m.introspectionDepth, sub.introspectionDepth);
      m.aliases += sub.aliases;
      m.directives += sub.directives;
      m.cost += sub.cost;
    }
    return m;
  };

  const m = walk(op.selectionSet, 0, false);
  m.directives += op.directives?.length ?? 0;
  return m;
}

/** The validation rule: every operation of the document within queryLimits. */
export function QueryLimitsRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of context.getDocument().definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const refuse = (message: string, node: OperationDefinitionNode) =>
    context.reportError(new GraphQLError(message, { nodes: [node], extensions: { code: "QUERY_LIMIT" } }));
  return {
    OperationDefinition(op) {
      const m = measureOperation(op, fragments);
      const l = queryLimits;
      if (m.depth > l.maxDepth) refuse(`The query is ${m.depth} levels deep; at most ${l.maxDepth} are allowed.`, op);
      if (m.introspectionDepth > l.maxIntrospectionDepth) {
        refuse(`The introspection query is ${m.introspectionDepth} levels deep; at most ${l.maxIntrospectionDepth} are allowed.`, op);
      }
      if (m.aliases > l.maxAliases) refuse(`The query uses ${m.aliases} aliases; at most ${l.maxAliases} are allowed.`, op);
      if (m.directives > l.maxDirectives) refuse(`The query uses ${m.directives} directives; at most ${l.maxDirectives} are allowed.`, op);
      if (m.cost > l.maxCost) refuse(`The query's estimated cost is ${Math.ceil(m.cost)}; at most ${l.maxCost} is allowed.`, op);
      return false;
    },
  };
}

/** Whether the document asks for the schema (`__schema` or `__type` anywhere, fragments included). */
export function asksForIntrospection(document: DocumentNode): boolean {
  let found = false;
  const visit = (set: SelectionSetNode | undefined): void => {
    for (const sel of set?.selections ?? []) {
      if (found) return;
      if (sel.kind === Kind.FIELD) {
        if (introspectionRoots.has(sel.name.value)) found = true;
        else visit(sel.selectionSet);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet);
    }
  };
  // Every definition, fragments included: a fragment holding `__schema` counts wherever it is spread.
  for (const def of document.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION || def.kind === Kind.FRAGMENT_DEFINITION) visit(def.selectionSet);
  }
  return found;
}

/** Validation messages without "Did you mean …?" hints, which map the schema for strangers. */
export function withoutSuggestions<E extends Error>(error: E): E | GraphQLError {
  if (!(error instanceof GraphQLError)) return error;
  const message = error.message.replace(/ Did you mean .*\?$/s, "");
  return message === error.message
    ? error
    : new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions: error.extensions });
}
