import SchemaBuilder from "@pothos/core";
import { graphql, printSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { zodInputType } from "../../src/graphql/zod-input.ts";
import { zodOutputFields } from "../../src/graphql/zod-output.ts";

// The zod -> GraphQL bridge on a schema of its own: a field declared in zod appears in the derived
// input (and output) with no GraphQL edit, and a GraphQL input maps back to the snake_case wire form.

const Declared = z.strictObject({
  region: z.string().min(1).describe("Where it runs."),
  timeout_seconds: z.number().int().optional(),
  block_ads: z.boolean().optional().describe("Block ads and trackers."),
  zoom_factor: z.number().optional(),
  mode: z.enum(["fast", "careful"]).optional(),
  live_view: z.strictObject({ interactive: z.boolean().default(false), instructions: z.string().optional() }).optional(),
  tags: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
});

function build() {
  const builder = new SchemaBuilder<{ DefaultFieldNullability: false }>({ defaultFieldNullability: false });
  const Entry = builder.inputType("Entry", { fields: (t) => ({ key: t.string({ required: true }), value: t.string({ required: true }) }) });
  const input = zodInputType(builder, "CreateThingInput", Declared, {
    names: { live_view: "LiveViewInput" },
    record: { type: Entry, toWire: (entries: Array<{ key: string; value: string }>) => Object.fromEntries(entries.map((e) => [e.key, e.value])) },
    aliases: { liveViewInteractive: "liveView.interactive" },
  });
  const Thing = builder.objectRef<Record<string, unknown>>("Thing").implement({
    fields: (t) => zodOutputFields(builder, t, { block_ads: Declared.shape.block_ads, mode: Declared.shape.mode }, (o: Record<string, unknown>) => o, "Thing"),
  });
  builder.queryType({
    fields: (t) => ({
      wire: t.string({ args: { input: t.arg({ type: input.ref, required: true }) }, resolve: (_r, args) => JSON.stringify(input.toWire(args.input)) }),
      thing: t.field({ type: Thing, resolve: () => ({ block_ads: true, mode: "careful" }) }),
    }),
  });
  return builder.toSchema();
}

describe("zod -> GraphQL input bridge", () => {
  const schema = build();
  const printed = printSchema(schema);

  it("derives each zod field, camelCased, with its GraphQL type, requiredness and description", () => {
    expect(printed).toContain('"""Block ads and trackers."""\n  blockAds: Boolean');
    expect(printed).toMatch(/region: String!/);
    expect(printed).toMatch(/timeoutSeconds: Int\n/);
    expect(printed).toMatch(/zoomFactor: Float\n/);
    expect(printed).toMatch(/mode: CreateThingMode\n/);
    expect(printed).toMatch(/liveView: LiveViewInput\n/);
    expect(printed).toMatch(/input LiveViewInput \{[^}]*interactive: Boolean\n/);
    expect(printed).toMatch(/tags: \[String!\]\n/);
    expect(printed).toMatch(/labels: \[Entry!\]\n/);
    expect(printed).toMatch(/liveViewInteractive: Boolean @deprecated\(reason: "Use `liveView.interactive`."\)/);
  });

  it("maps a GraphQL input back to the snake_case object the zod schema validates", async () => {
    const result = await graphql({
      schema,
      source: `{ wire(input: { region: "eu", blockAds: true, timeoutSeconds: null, mode: careful, liveView: { instructions: "hi" }, liveViewInteractive: true, tags: ["a"], labels: [{ key: "k", value: "v" }] }) }`,
    });
    expect(result.errors).toBeUndefined();
    const wire = JSON.parse(String(result.data?.wire));
    expect(wire).toEqual({
      region: "eu",
      block_ads: true,
      mode: "careful",
      live_view: { interactive: true, instructions: "hi" },
      tags: ["a"],
      labels: { k: "v" },
    });
    expect(Declared.parse(wire)).toEqual(wire);
  });

  it("presents stored snake_case values as camelCase output fields", async () => {
    expect(printed).toMatch(/type Thing \{[^}]*blockAds: Boolean\n/);
    const result = await graphql({ schema, source: "{ thing { blockAds mode } }" });
    expect(result.data?.thing).toEqual({ blockAds: true, mode: "careful" });
  });
});
