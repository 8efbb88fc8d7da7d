import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildArtifacts, driftedArtifacts, root } from "../../scripts/artifacts.ts";

describe("generated artifacts", () => {
  it("are committed up to date (run `npm run generate` when this fails)", async () => {
    expect(await driftedArtifacts()).toEqual([]);
  });

  it("drift is detected", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "vessel-artifacts-"));
    const artifacts = await buildArtifacts();
    for (const a of artifacts) {
      await fs.mkdir(path.dirname(path.join(dir, a.path)), { recursive: true });
      await fs.copyFile(path.join(root, a.path), path.join(dir, a.path));
    }
    expect(await driftedArtifacts(dir)).toEqual([]);
    await fs.appendFile(path.join(dir, "schema/schema.graphql"), "\ntype Stale { x: Int }\n");
    await fs.rm(path.join(dir, "schema/openapi.json"));
    expect((await driftedArtifacts(dir)).sort()).toEqual(["schema/openapi.json", "schema/schema.graphql"]);
  });

  it("cover the schema, the OpenAPI document, the codegen output and the Python client's dataclasses", async () => {
    const paths = (await buildArtifacts()).map((a) => a.path);
    expect(paths).toEqual(
      expect.arrayContaining(["schema/schema.graphql", "schema/openapi.json", "src/generated/gql/graphql.ts", "clients/python/src/vessel/_models.py"]),
    );
  });
});
