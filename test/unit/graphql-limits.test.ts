import { buildSchema, getIntrospectionQuery, Kind, parse, specifiedRules, validate, type FragmentDefinitionNode, type OperationDefinitionNode } from "graphql";
import { describe, expect, it } from "vitest";
import { asksForIntrospection, measureOperation, parseLimited, QueryLimitsRule, queryLimits, withoutSuggestions } from "../../src/graphql/limits.ts";
import { schema } from "../../src/graphql/schema.ts";

// A schema that nests without end, so depth can be tested with valid documents.
const toy = buildSchema(`
  type Node { id: ID! name: String child: Node children: [Node!]! }
  type Query { node: Node }
`);

const errorsOf = (source: string) => validate(toy, parse(source), [...specifiedRules, QueryLimitsRule]).map((e) => e.message);
const nested = (depth: number) => `{ node ${"{ child ".repeat(depth - 2)}{ id }${" }".repeat(depth - 2)} }`;

function measure(source: string) {
  const doc = parse(source);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return measureOperation(op, fragments);
}

describe("GraphQL query limits", () => {
  it("allows depth 6 and refuses depth 7", () => {
    expect(measure(nested(6)).depth).toBe(6);
    expect(errorsOf(nested(6))).toEqual([]);
    expect(errorsOf(nested(7))).toEqual(["The query is 7 levels deep; at most 6 are allowed."]);
  });

  it("sees depth through fragments, whatever they are called (GHSA-224p-v68g-5g8f)", () => {
    const viaSchemaName = "query __schema { node { ...__schema } } fragment __schema on Node { child { child { child { child { child { id } } } } } }";
    expect(errorsOf(viaSchemaName)).toContain("The query is 7 levels deep; at most 6 are allowed.");
    const chained =
      "{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { child { ...C } } fragment C on Node { child { child { child { id } } } }";
    expect(errorsOf(chained)).toContain("The query is 7 levels deep; at most 6 are allowed.");
    const inline = "{ node { ... on Node { child { ... on Node { child { child { child { child { id } } } } } } } } }";
    expect(errorsOf(inline)).toContain("The query is 7 levels deep; at most 6 are allowed.");
  });

  it("counts aliases and directives through fragment spreads", () => {
    const f = "fragment F on Node { a: id b: name }";
    expect(measure(`{ node { ...F ...F } } ${f}`).aliases).toBe(4);
    const sixteen = Array.from({ length: 8 }, () => "...F").join(" ");
    expect(errorsOf(`{ node { ${sixteen} } } ${f}`)).toContain("The query uses 16 aliases; at most 15 are allowed.");
    expect(measure("query Q @skip(if: false) { node @include(if: true) { id @skip(if: false) } }").directives).toBe(3);
  });

  it("prices fragments once, however many times they are spread (exponential documents cost nothing to measure)", () => {
    const spreads = (name: string) => Array.from({ length: 10 }, () => `...${name}`).join(" ");
    const levels = ["F0", "F1", "F2", "F3", "F4", "F5", "F6", "F7"];
    const fragments = levels.map((name, i) => `fragment ${name} on Node { ${i === 0 ? "id name" : spreads(levels[i - 1]!)} }`).join(" ");
    const started = performance.now();
    const m = measure(`{ node { ...F7 } } ${fragments}`);
    expect(performance.now() - started).toBeLessThan(200);
    expect(m.cost).toBeGreaterThan(1e7);
    expect(errorsOf(`{ node { ...F7 } } ${fragments}`).some((e) => e.startsWith("The query's estimated cost is"))).toBe(true);
  });

  it("survives fragment cycles (which graphql reports itself)", () => {
    const errors = errorsOf("{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { child { ...A } }");
    expect(errors.some((e) => /Cannot spread fragment "A" within itself/.test(e))).toBe(true);
  });

  it("lets GraphiQL's full introspection query through, and recognises it as introspection", () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const doc = parseLimited(query);
    expect(validate(schema, doc, [...specifiedRules, QueryLimitsRule])).toEqual([]);
    expect(asksForIntrospection(doc)).toBe(true);
    expect(asksForIntrospection(parse("{ __typename }"))).toBe(false);
    expect(asksForIntrospection(parse('query { ...F } fragment F on Query { __type(name: "Me") { name } }'))).toBe(true);
  });

  it("refuses more tokens than the limit while parsing", () => {
    expect(() => parseLimited(`{ ${"a ".repeat(queryLimits.maxTokens)} }`)).toThrow(/1000 tokens/);
    expect(() => parseLimited(`{ ${"a ".repeat(queryLimits.maxTokens - 2)} }`)).not.toThrow();
  });

  it("drops field suggestions from validation messages", () => {
    const [error] = validate(toy, parse("{ node { nmae } }"));
    expect(error?.message).toMatch(/Did you mean/);
    expect(withoutSuggestions(error!).message).toBe('Cannot query field "nmae" on type "Node".');
  });
});
