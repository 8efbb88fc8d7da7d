import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** The built app, rebuilt when its sources (or the generated operations) are newer than the build. */
export function ensureDashboardBuilt(): void {
  const index = path.join(root, "dist/dashboard/index.html");
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  const newer = (dir: string): boolean =>
    fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? newer(p) : fs.statSync(p).mtimeMs > built;
    });
  if (built && !newer(path.join(root, "src/dashboard")) && !newer(path.join(root, "src/generated/gql"))) return;
  execFileSync(process.execPath, [path.join(root, "node_modules/vite/bin/vite.js"), "build", "--config", "src/dashboard/vite.config.ts"], {
    cwd: root,
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    env: { ...process.env, NODE_ENV: "production" },
    stdio: "pipe",
    timeout: 120_000,
  });
}
