// The Python client's resource dataclasses (clients/python/src/vessel/_models.py), written from the
// OpenAPI document like the TypeScript client's types, so neither client can disagree with the server.
// Part of `npm run generate` (scripts/artifacts.ts); the artifacts test fails when the file drifts.

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  $ref?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: unknown;
  description?: string;
}

/** The resources the Python client returns; list envelopes become its generic `Page`. */
export const pythonResources = [
  "Session",
  "SessionEvent",
  "Profile",
  "Download",
  "SessionLogEntry",
  "SessionFile",
  "Extension",
  "Credential",
  "CredentialFill",
] as const;

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

class Writer {
  readonly aliases: string[] = [];
  readonly classes: string[] = [];
  constructor(private readonly schemas: Record<string, JsonSchema>) {}

  /** The Python annotation for a schema; nested objects with properties become dataclasses of their own. */
  annotation(schema: JsonSchema, owner: string, prop: string): { type: string; convert?: (v: string) => string } {
    if (schema.$ref) {
      const name = schema.$ref.split("/").at(-1)!;
      if ((pythonResources as readonly string[]).includes(name)) return { type: name, convert: (v) => `${name}.from_wire(${v})` };
      return { type: "dict[str, Any]" };
    }
    if (schema.anyOf) {
      const parts = schema.anyOf.map((s) => this.annotation(s, owner, prop));
      const nullable = parts.some((p) => p.type === "None");
      const rest = parts.filter((p) => p.type !== "None");
      const type = [...new Set(rest.map((p) => p.type))].join(" | ") + (nullable ? " | None" : "");
      const convert = rest.length === 1 ? rest[0]!.convert : undefined;
      return { type, ...(convert ? { convert: nullable ? (v) => `None if ${v} is None else ${convert(v)}` : convert } : {}) };
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "any"];
    const nullable = types.includes("null");
    const base = types.find((t) => t !== "null");
    if (base === undefined) return { type: "None" };
    const made = this.base(schema, base, owner, prop);
    if (!nullable) return made;
    const convert = made.convert;
    return { type: `${made.type} | None`, ...(convert ? { convert: (v: string) => `None if ${v} is None else ${convert(v)}` } : {}) };
  }

  private base(schema: JsonSchema, type: string, owner: string, prop: string): { type: string; convert?: (v: string) => string } {
    if (schema.enum) {
      const alias = `${owner}${pascal(prop)}`;
      this.aliases.push(`${alias} = Literal[${schema.enum.map((e) => JSON.stringify(e)).join(", ")}]`);
      return { type: alias };
    }
    if (type === "null") return { type: "None" };
    if (type === "string") return { type: "str" };
    if (type === "integer") return { type: "int" };
    if (type === "number") return { type: "float" };
    if (type === "boolean") return { type: "bool" };
    if (type === "array") {
      const item = this.annotation(schema.items ?? {}, owner, prop);
      const convert = item.convert;
      return { type: `list[${item.type}]`, ...(convert ? { convert: (v: string) => `[${convert("item")} for item in ${v}]` } : {}) };
    }
    if (type === "object" && schema.properties) {
      const name = `${owner}${pascal(prop)}`;
      this.dataclass(name, schema);
      return { type: name, convert: (v) => `${name}.from_wire(${v})` };
    }
    if (type === "object" && typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
      const values = this.annotation(schema.additionalProperties as JsonSchema, owner, prop);
      return { type: `dict[str, ${values.convert ? "Any" : values.type}]` };
    }
    return { type: type === "object" ? "dict[str, Any]" : "Any" };
  }

  /** A frozen dataclass; `from_wire` keeps the fields it knows, so a newer server's additions are ignored. */
  dataclass(name: string, schema: JsonSchema): void {
    const required = new Set(schema.required ?? []);
    const fields: string[] = [];
    const reads: string[] = [];
    for (const [prop, sub] of Object.entries(schema.properties ?? {})) {
      const { type, convert } = this.annotation(sub, name, prop);
      const optional = !required.has(prop);
      if (sub.description) fields.push(`    #: ${sub.description.replace(/\s+/g, " ")}`);
      fields.push(`    ${prop}: ${optional && !type.endsWith("| None") ? `${type} | None` : type}${optional ? " = None" : ""}`);
      const raw = optional ? `data.get(${JSON.stringify(prop)})` : `data[${JSON.stringify(prop)}]`;
      // The else branch indexes: data.get() is Optional to a type checker even after the None test.
      const value = convert ? (optional ? `None if ${raw} is None else ${convert(`data[${JSON.stringify(prop)}]`)}` : convert(raw)) : raw;
      reads.push(`            ${prop}=${value},`);
    }
    if (schema.additionalProperties && schema.properties) {
      // An open object (a log entry: its type's own fields beside the common ones) keeps the rest by name.
      const known = Object.keys(schema.properties)
        .map((k) => JSON.stringify(k))
        .join(", ");
      fields.push("    #: The fields beside those above, by name.", "    fields: dict[str, Any] = field(default_factory=dict)");
      reads.push(`            fields={k: v for k, v in data.items() if k not in (${known})},`);
    }
    // Required fields first: a dataclass field without a default may not follow one with it.
    const ordered = orderFields(fields);
    this.classes.push(
      [
        "@dataclass(frozen=True)",
        `class ${name}:`,
        `    """${(schema.description ?? `The API's ${name} resource.`).replace(/\s+/g, " ")}"""`,
        "",
        ...ordered,
        "",
        "    @classmethod",
        `    def from_wire(cls, data: Mapping[str, Any]) -> ${name}:`,
        "        return cls(",
        ...reads,
        "        )",
      ].join("\n"),
    );
  }
}

/** Moves fields with a default (and their comment lines) after those without. */
function orderFields(lines: string[]): string[] {
  const groups: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    current.push(line);
    if (!line.trimStart().startsWith("#:")) {
      groups.push(current);
      current = [];
    }
  }
  const hasDefault = (g: string[]) => / = (None|field\(.*\))$/.test(g.at(-1)!);
  return [...groups.filter((g) => !hasDefault(g)), ...groups.filter(hasDefault)].flat();
}

/** An input's annotation: what a caller may pass (nested objects as mappings, given in the wire's own form). */
function inputAnnotation(schema: JsonSchema): string {
  if (schema.anyOf) return [...new Set(schema.anyOf.map(inputAnnotation))].join(" | ");
  if (schema.enum) return `Literal[${schema.enum.map((e) => JSON.stringify(e)).join(", ")}]`;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "string") return "str";
  if (type === "integer") return "int";
  if (type === "number") return "float";
  if (type === "boolean") return "bool";
  if (type === "array") return `Sequence[${inputAnnotation(schema.items ?? {})}]`;
  if (type === "object" && !schema.properties && typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
    return `Mapping[str, ${inputAnnotation(schema.additionalProperties as JsonSchema)}]`;
  }
  return type === "object" ? "Mapping[str, Any]" : "Any";
}

/**
 * `Sessions.create`'s keyword options (all but the positional `region`), from the create's request
 * body: an option declared on the server is a typed keyword of the client after `npm run generate`.
 */
function createSessionOptions(body: JsonSchema): string {
  const lines = Object.entries(body.properties ?? {})
    .filter(([name]) => name !== "region")
    .flatMap(([name, sub]) => [...(sub.description ? [`    #: ${sub.description.replace(/\s+/g, " ")}`] : []), `    ${name}: ${inputAnnotation(sub)}`]);
  return [
    "class CreateSessionOptions(TypedDict, total=False):",
    '    """The options of ``vessel.sessions.create`` beside its region, as the API declares them."""',
    "",
    ...lines,
  ].join("\n");
}

type Document = {
  components: { schemas: Record<string, JsonSchema> };
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
};

export function pythonModels(document: Document): string {
  const writer = new Writer(document.components.schemas);
  for (const name of pythonResources) writer.dataclass(name, document.components.schemas[name]!);
  const createBody = document.paths["/v1/sessions"]?.post?.requestBody?.content["application/json"]?.schema;
  if (createBody) writer.classes.push(createSessionOptions(createBody));
  return [
    "# Generated from schema/openapi.json by scripts/generate.ts (scripts/python-models.ts). Do not edit.",
    '"""The API\'s resources as dataclasses, field for field as the wire has them (snake_case, ISO times)."""',
    "",
    "from __future__ import annotations",
    "",
    "from dataclasses import dataclass, field",
    "from typing import Any, Literal, Mapping, Sequence, TypedDict",
    "",
    ...writer.aliases,
    "",
    "",
    writer.classes.join("\n\n\n"),
    "",
  ].join("\n");
}
