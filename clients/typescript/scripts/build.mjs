// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts, using the workspace's tsc.
// dist/cjs gets a package.json of its own so Node (and TypeScript) read its .js and .d.ts as CommonJS.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const here = path.resolve(import.meta.dirname, "..");
const tsc = createRequire(path.join(here, "package.json")).resolve("typescript/bin/tsc");
fs.rmSync(path.join(here, "dist"), { recursive: true, force: true });
for (const project of ["tsconfig.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", project], { cwd: here, stdio: "inherit" });
}
fs.writeFileSync(path.join(here, "dist/cjs/package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
fs.chmodSync(path.join(here, "dist/esm/bin.js"), 0o755);
