import { OpenApiBuilder, type OpenAPIObject, type OperationObject, type ParameterObject, type SchemaObject } from "openapi3-ts/oas31";
import { z } from "zod";
import { RATE_LIMIT_DRAFT } from "../auth/rate-limit-headers.ts";
import { version } from "../config.ts";
import { problemTypes, type ProblemSlug } from "../errors.ts";
import type { AnyRoute } from "./define-route.ts";

type Json = Record<string, unknown>;

/** Turns zod schemas into OpenAPI 3.1 schemas, hoisting every schema with an `id` into components. */
class SchemaCollector {
  readonly components: Record<string, SchemaObject> = {};

  convert(schema: z.ZodType, io: "input" | "output"): SchemaObject {
    const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    const rename = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) {
      const existing = this.components[name];
      // The same named schema can differ between request and response (defaults make fields optional on input).
      const target = existing && JSON.stringify(existing) !== JSON.stringify(def) ? `${name}Input` : name;
      rename.set(name, target);
    }
    const fix = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(fix);
      if (!node || typeof node !== "object") return node;
      const out: Json = {};
      for (const [k, v] of Object.entries(node as Json)) {
        if (k === "$schema" || k === "$defs") continue;
        if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) {
          const name = v.slice("#/$defs/".length);
          out[k] = `#/components/schemas/${rename.get(name) ?? name}`;
        } else out[k] = fix(v);
      }
      return out;
    };
    for (const [name, def] of Object.entries(defs)) this.components[rename.get(name)!] = fix(def) as SchemaObject;
    return fix(json) as SchemaObject;
  }
}

const ProblemSchema: SchemaObject = {
  type: "object",
  description: "An RFC 9457 problem document.",
  required: ["type", "title", "status", "detail", "instance"],
  properties: {
    type: { type: "string", format: "uri", description: "`{base_url}/errors/<slug>`; GET it for a description." },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    instance: { type: "string", description: "The request path." },
    request_id: { type: "string", description: "Reference for the server log." },
    errors: {
      type: "array",
      description: "For validation failures: each offending field.",
      items: { type: "object", required: ["field", "message"], properties: { field: { type: "string" }, message: { type: "string" } } },
    },
  },
};

/** Problems every route can answer with, whatever it declares. */
const commonProblems: ProblemSlug[] = ["internal-error"];

const rateLimitHeaders = {
  "RateLimit-Policy": {
    description: `The caller's quota, for example \`"default";q=600;w=60\` (${RATE_LIMIT_DRAFT}).`,
    schema: { type: "string" },
  },
  RateLimit: {
    description: `What is left of it: \`"default";r=<remaining>;t=<seconds until the window resets>\` (${RATE_LIMIT_DRAFT}).`,
    schema: { type: "string" },
  },
} as const;

const deprecationHeaders = {
  Deprecation: { description: "RFC 9745: when the operation was deprecated (`@<epoch seconds>`).", schema: { type: "string" } },
  Sunset: { description: "RFC 8594: when it stops answering (HTTP-date); after it, 410.", schema: { type: "string" } },
  Link: { description: 'The successor, `rel="successor-version"`.', schema: { type: "string" } },
} as const;

function security(route: AnyRoute): OperationObject["security"] {
  if (route.auth === "none") return [];
  return route.auth === "apiKeyOrUser" ? [{ apiKey: [] }, { dashboard: [] }] : [{ apiKey: [] }];
}

function parameters(route: AnyRoute, collector: SchemaCollector): ParameterObject[] {
  const out: ParameterObject[] = [];
  for (const where of ["params", "query", "headers"] as const) {
    const schema = route.input[where];
    if (!schema) continue;
    const json = collector.convert(schema, "input") as { properties?: Record<string, SchemaObject>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = prop;
      out.push({
        name,
        in: where === "params" ? "path" : where === "headers" ? "header" : "query",
        required: where === "params" || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        // An object in the query is sent as `name[key]=value` (rest/deep-object.ts reads it so).
        ...(where === "query" && rest.type === "object" ? { style: "deepObject" as const, explode: true } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function operation(route: AnyRoute, collector: SchemaCollector): OperationObject {
  const slugs = new Set<ProblemSlug>([...(route.problems ?? []), ...commonProblems]);
  const authenticated = route.auth !== "none";
  if (authenticated) for (const s of ["unauthenticated", "rate-limited"]) slugs.add(s as ProblemSlug);
  if (route.deprecated) slugs.add("gone");
  const headers = { ...(authenticated ? rateLimitHeaders : {}), ...(route.deprecated ? deprecationHeaders : {}) };
  if (Object.keys(route.input).length > 0) slugs.add("validation-failed");
  if (route.input.body) for (const s of ["malformed-json", "payload-too-large", "unsupported-media-type"]) slugs.add(s as ProblemSlug);
  if (route.multipart) for (const s of ["validation-failed", "payload-too-large", "unsupported-media-type"]) slugs.add(s as ProblemSlug);
  const fileContent = { [typeof route.file === "string" ? route.file : "application/octet-stream"]: { schema: { type: "string", format: "binary" } } };
  const responses: OperationObject["responses"] = {
    [route.status]: route.file
      ? { description: "The file", headers, content: fileContent }
      : {
          description: route.response ? "Success" : "Success (no body)",
          headers,
          ...(route.response ? { content: { "application/json": { schema: collector.convert(route.response, "output") } } } : {}),
        },
  };
  for (const [status, alt] of Object.entries(route.alternatives ?? {})) {
    responses[status] = {
      description: alt.description,
      ...(alt.headers
        ? { headers: Object.fromEntries(Object.entries(alt.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }])) }
        : {}),
      ...(route.file
        ? { content: fileContent }
        : route.response
          ? { content: { "application/json": { schema: collector.convert(route.response, "output") } } }
          : {}),
    };
  }
  const byStatus = new Map<number, ProblemSlug[]>();
  for (const slug of slugs) byStatus.set(problemTypes[slug].status, [...(byStatus.get(problemTypes[slug].status) ?? []), slug]);
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[status] = {
      description: list.map((s) => `\`${s}\`: ${problemTypes[s].title}`).join("; "),
      ...(status === 429 ? { headers: { ...headers, "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } } } : {}),
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    security: security(route),
    ...(route.deprecated ? { deprecated: true } : {}),
    parameters: parameters(route, collector),
    ...(route.input.body ? { requestBody: { required: true, content: { "application/json": { schema: collector.convert(route.input.body, "input") } } } } : {}),
    ...(route.multipart
      ? {
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: [route.multipart.field],
                  properties: { [route.multipart.field]: { type: "string", format: "binary", description: route.multipart.description } },
                },
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, built from the same table that registers the Express routes. */
export function buildOpenApi(routes: readonly AnyRoute[], serverUrl: string): OpenAPIObject {
  const collector = new SchemaCollector();
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion("3.1.0")
    .addTitle("Vessel API")
    .addVersion(version)
    .addDescription(
      "Remote browser sessions: create them, drive them over CDP, hand them to a human, save their logins.\n\n" +
        "Every `/v1` call needs `Authorization: Bearer <API key>`. Each key may make 600 requests a minute " +
        `unless its workspace has another limit; every answer carries \`RateLimit-Policy\` and \`RateLimit\` (${RATE_LIMIT_DRAFT}), ` +
        "and a refusal is 429 with `Retry-After`. Errors are RFC 9457 problem documents whose `type` is " +
        "`{base_url}/errors/<slug>`. Deprecated operations send `Deprecation`, `Sunset` (RFC 8594) and a `Link` " +
        "to their successor, and answer 410 after the sunset.",
    )
    .addServer({ url: serverUrl })
    .addServer({ url: `${serverUrl}/api`, description: "The same operations under an `/api` prefix (both forms appear in the product specification)." })
    .addSecurityScheme("apiKey", {
      type: "http",
      scheme: "bearer",
      bearerFormat: "vs_<ULID>.<32-character secret>",
      description: "An API key of one workspace, created in the dashboard. `Authorization: Bearer vs_…`.",
    })
    .addSecurityScheme("dashboard", {
      type: "http",
      scheme: "bearer",
      description:
        "A signed-in dashboard user (dashboard-only operations): `Authorization: Bearer <access token>`, or the dashboard's " +
        "access cookie (same-origin requests only). The access token is the value of the `__Host-vs_at` cookie set by the " +
        "GraphQL mutation `exchangeSignIn`.",
    })
    .addSchema("Problem", ProblemSchema);
  const paths: Record<string, Record<string, OperationObject>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route, collector) };
  }
  for (const [path, item] of Object.entries(paths)) builder.addPath(path, item);
  for (const [name, schema] of Object.entries(collector.components).sort(([a], [b]) => a.localeCompare(b))) builder.addSchema(name, schema);
  return builder.getSpec();
}
