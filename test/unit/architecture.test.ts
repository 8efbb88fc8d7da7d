import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * The dependency rules of the house (.dependency-cruiser.cjs, docs/architecture.md): no import cycle,
 * transports (the CDP proxy among them) never import each other, domains and the kernel know no transport, the kernel knows no
 * domain, src/browser knows no domain. Checked by dependency-cruiser over the real imports, type-only
 * ones included; and a tree with one violation of each rule proves the rules bite.
 */
const root = path.resolve(import.meta.dirname, "../..");
const config = path.join(root, ".dependency-cruiser.cjs");
const depcruise = path.join(root, "node_modules/.bin/depcruise");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: Array<{ name: string }>;
}

async function violations(cwd: string, rules = config): Promise<Violation[]> {
  const run = await promisify(execFile)(depcruise, ["src", "--config", rules, "--output-type", "json"], { cwd, maxBuffer: 64 * 1024 * 1024 })
    // depcruise exits non-zero when it finds violations; its report is still on stdout.
    .catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }));
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((c) => c.name).join(" → ")})` : ""}`;

/** Files written by people (not generated, not vendored assets) must stay readable on a screen or two. */
const MAX_LINES = 300;
const handWritten = (dir: string): string[] =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|js|mjs|cjs|css|html|sh|py)$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith("src/generated/") && !f.includes("node_modules") && !/(^|\/)(generated|dist)\/|\/_models\.py$/.test(f));

describe("the house", () => {
  it("keeps every dependency rule in src/", async () => {
    const found = await violations(root);
    expect(found.map(describeViolation)).toEqual([]);
  }, 120_000);

  it("has no import cycle in the dashboard either", async () => {
    const dashboard = path.join(root, "src/dashboard");
    const found = await violations(dashboard, path.join(dashboard, ".dependency-cruiser.cjs"));
    expect(found.map(describeViolation)).toEqual([]);
  }, 120_000);

  it("has no hand-written file over 300 lines in src/, scripts/, bench/ or clients/", () => {
    const long = ["src", "scripts", "bench", "clients"]
      .flatMap(handWritten)
      .map((f) => ({ f, lines: fs.readFileSync(path.join(root, f), "utf8").split("\n").length - 1 }))
      .filter((x) => x.lines > MAX_LINES)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });

  it("reports a violation of each rule (the checker is not a no-op)", async () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-rules-"));
    const write = (file: string, body: string) => {
      fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
      fs.writeFileSync(path.join(tree, file), body);
    };
    try {
      write(
        "tsconfig.json",
        JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowImportingTsExtensions: true, noEmit: true } }),
      );
      write("src/rest/route.ts", `import { field } from "../graphql/field.ts";\nexport const route = field;\n`);
      write("src/graphql/field.ts", `export const field = 1;\n`);
      write("src/services/sessions/sessions.ts", `import { route } from "../../rest/route.ts";\nexport const s = route;\n`);
      write("src/kernel/context.ts", `import type { s } from "../services/sessions/sessions.ts";\nexport type C = typeof s;\n`);
      write(
        "src/browser/pool.ts",
        `import type { C } from "../kernel/context.ts";\nimport { s } from "../services/sessions/sessions.ts";\nexport const p: C = s;\n`,
      );
      write("src/auth/a.ts", `import type { B } from "./b.ts";\nexport type A = B;\n`);
      write("src/auth/c.ts", `import { s } from "../services/sessions/sessions.ts";\nexport const c = s;\n`);
      write("src/auth/b.ts", `import type { A } from "./a.ts";\nexport type B = A | 1;\n`);
      // The CDP proxy is a transport like the others: it may not reach into another, nor the browser layer into it.
      write("src/cdp-proxy/proxy.ts", `import { field } from "../graphql/field.ts";\nexport const proxy = field;\n`);
      write("src/browser/relay.ts", `import { proxy } from "../cdp-proxy/proxy.ts";\nexport const relay = proxy;\n`);
      // A part split off the composition root (src/app-*.ts, src/deps-*.ts) is as far out of the kernel's reach as app.ts.
      write("src/app-routes.ts", `export const mounted = 1;\n`);
      write("src/kernel/mounted.ts", `import { mounted } from "../app-routes.ts";\nexport const m = mounted;\n`);
      // Node-to-node calls sit beneath the services: placement's port may use them, never the other way round.
      write("src/peers/call.ts", `import { s } from "../services/sessions/sessions.ts";\nexport const call = s;\n`);
      const found = await violations(tree);
      const rules = new Set(found.map((v) => v.rule.name));
      expect([...rules].sort()).toEqual([
        "auth-knows-no-domain",
        "browser-knows-no-domain",
        "domains-know-no-transport",
        "kernel-knows-no-domain",
        "no-circular",
        "peers-know-no-domain",
        "transports-are-independent",
      ]);
      expect(found.map(describeViolation)).toEqual(
        expect.arrayContaining([
          "transports-are-independent: src/cdp-proxy/proxy.ts → src/graphql/field.ts",
          "browser-knows-no-domain: src/browser/relay.ts → src/cdp-proxy/proxy.ts",
          "domains-know-no-transport: src/kernel/mounted.ts → src/app-routes.ts",
          "peers-know-no-domain: src/peers/call.ts → src/services/sessions/sessions.ts",
        ]),
      );
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  }, 120_000);
});
