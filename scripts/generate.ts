// Regenerates schema/schema.graphql, schema/openapi.json and the GraphQL codegen output (src/generated/gql/).
// `--check` writes nothing and exits 1 when a committed artifact is out of date.
import fs from "node:fs/promises";
import path from "node:path";
import { buildArtifacts, driftedArtifacts, root } from "./artifacts.ts";

if (process.argv.includes("--check")) {
  const drifted = await driftedArtifacts();
  if (drifted.length > 0) {
    console.error(`Out of date (run npm run generate): ${drifted.join(", ")}`);
    process.exit(1);
  }
  console.log("Generated artifacts are up to date.");
} else {
  for (const artifact of await buildArtifacts()) {
    await fs.mkdir(path.dirname(path.join(root, artifact.path)), { recursive: true });
    await fs.writeFile(path.join(root, artifact.path), artifact.content);
    console.log(`wrote ${artifact.path}`);
  }
}
