import fs from "node:fs/promises";
import path from "node:path";
import { generate } from "@graphql-codegen/cli";
import openapiTS, { astToString } from "openapi-typescript";
import { printSchema } from "graphql";
import codegenConfig from "../codegen.ts";
import { schema } from "../src/graphql/schema.ts";
import { buildOpenApi } from "../src/rest/openapi.ts";
import { pythonModels } from "./python-models.ts";
import { sessionOptionList } from "./session-options.ts";
import { routes } from "../src/rest/routes/all.ts";

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

export interface Artifact {
  /** Relative to the project root. */
  path: string;
  content: string;
}

/** The committed OpenAPI document names the local default address; the live one names the configured base URL. */
export const committedServerUrl = "http://localhost:8080";

/** Builds every generated artifact in memory, in dependency order (codegen reads the printed schema). */
export async function buildArtifacts(): Promise<Artifact[]> {
  const graphql: Artifact = { path: "schema/schema.graphql", content: `${printSchema(schema)}\n` };
  const document = buildOpenApi(routes, committedServerUrl);
  const openapi: Artifact = { path: "schema/openapi.json", content: `${JSON.stringify(document, null, 2)}\n` };
  // The client library's types come from the same document, so they can never disagree with the server.
  const clientTypes: Artifact = {
    path: "clients/typescript/src/generated/openapi.ts",
    content: `// Generated from schema/openapi.json by scripts/generate.ts (openapi-typescript). Do not edit.\n${astToString(
      await openapiTS(JSON.parse(openapi.content) as Parameters<typeof openapiTS>[0]),
    )}`,
  };
  // The Python client's dataclasses too (scripts/python-models.ts).
  const pythonTypes: Artifact = {
    path: "clients/python/src/vessel/_models.py",
    content: pythonModels(document as unknown as Parameters<typeof pythonModels>[0]),
  };
  // The dashboard's new-session form renders a control for each declared option it has none for by hand.
  const sessionOptions: Artifact = { path: "src/dashboard/src/generated/session-options.json", content: `${JSON.stringify(sessionOptionList(), null, 2)}\n` };
  const generated = (await generate({ ...codegenConfig, cwd: root, schema: graphql.content, silent: true, verbose: false }, false)) as Array<{
    filename: string;
    content: string;
  }>;
  const codegen = generated.map((f) => ({ path: path.relative(root, path.resolve(root, f.filename)), content: f.content }));
  return [graphql, openapi, clientTypes, pythonTypes, sessionOptions, ...codegen];
}

/** Paths whose committed content differs from what the code generates now. */
export async function driftedArtifacts(dir = root): Promise<string[]> {
  const drifted: string[] = [];
  for (const artifact of await buildArtifacts()) {
    const committed = await fs.readFile(path.join(dir, artifact.path), "utf8").catch(() => null);
    if (committed !== artifact.content) drifted.push(artifact.path);
  }
  return drifted;
}
