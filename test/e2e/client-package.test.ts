import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "clients/typescript");
const fixtures = path.join(root, "test/fixtures/client-consumer");
const require = createRequire(path.join(root, "package.json"));

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * @vessel/client as a user gets it: `npm pack`, installed from the tarball into an empty project
 * (offline: it has no dependencies), then used from plain Node — an ES module and a CommonJS script,
 * no tsx — against a running server, type-checked by tsc against its packed .d.ts, and its `vessel`
 * bin run with npx.
 */
describe.skipIf(!hasChromium)("the packed TypeScript client in an empty project", () => {
  let t: TestApp;
  let ws: Seeded;
  let project: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-client-pkg-"));
    const packed = await run("npm", ["pack", "--pack-destination", scratch, "--json"], { cwd: packageDir, timeoutMs: 180_000 });
    expect(packed.code, packed.stderr).toBe(0);
    const { filename, files } = (
      JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>
    )[0]!;
    // What ships: both builds with their types, the bin; no tests, no tsconfig.
    const shipped = files.map((f) => f.path);
    expect(shipped).toEqual(
      expect.arrayContaining([
        "dist/esm/index.js",
        "dist/esm/index.d.ts",
        "dist/cjs/index.js",
        "dist/cjs/index.d.ts",
        "dist/cjs/package.json",
        "dist/esm/bin.js",
      ]),
    );
    expect(shipped.filter((f) => /test|tsconfig/.test(f))).toEqual([]);

    project = path.join(scratch, "consumer");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    for (const f of fs.readdirSync(fixtures)) fs.copyFileSync(path.join(fixtures, f), path.join(project, f));
    const installed = await run("npm", ["install", "--offline", "--no-audit", "--no-fund", path.join(scratch, filename)], { cwd: project, timeoutMs: 120_000 });
    expect(installed.code, installed.stderr).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(project, "node_modules/@vessel/client/package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});

    t = await startTestApp();
    ws = await seedWorkspace(t);
    env = { ...process.env, VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url, PUPPETEER: require.resolve("puppeteer-core") };
  }, 240_000);
  afterAll(async () => {
    await t?.stop();
    if (project) fs.rmSync(path.dirname(project), { recursive: true, force: true });
  });

  for (const script of ["consumer.mjs", "consumer.cjs"]) {
    it(`${script}: plain node creates a session, drives it with Puppeteer and releases it`, async () => {
      const result = await run(process.execPath, [script], { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout) as { id: string; title: string; status: string; notFound: boolean };
      expect(out).toEqual({
        id: expect.stringMatching(/^ses_/),
        title: script.endsWith("mjs") ? "esm consumer" : "cjs consumer",
        status: "RELEASED",
        notFound: true,
      });
    });
  }

  it("tsc type-checks an ES module and a CommonJS consumer against the packed types", async () => {
    const tsc = require.resolve("typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", "."], { cwd: project });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // The same files with one wrong call each fail: the check sees the real types.
    fs.appendFileSync(path.join(project, "consumer.mts"), "\nexport const wrong: number = new Vessel().baseUrl;\n");
    const broken = await run(process.execPath, [tsc, "-p", "."], { cwd: project });
    expect(broken.stdout).toMatch(/consumer\.mts.*error TS2322/);
  });

  it("npx vessel sessions list --json works from the project", async () => {
    const help = await run("npx", ["--offline", "vessel", "--help"], { cwd: project, env });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("vessel sessions list");
    const listed = await run("npx", ["--offline", "vessel", "sessions", "list", "--json"], { cwd: project, env });
    expect(listed.code, listed.stderr).toBe(0);
    const sessions = JSON.parse(listed.stdout) as Array<{ id: string; status: string }>;
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(sessions.every((s) => s.status === "RELEASED")).toBe(true);
    const refused = await run("npx", ["--offline", "vessel", "sessions", "get", "ses_01JZZZZZZZZZZZZZZZZZZZZZZZ"], { cwd: project, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("NotFoundError");
  });

  it("npx vessel mcp serves the MCP tools over stdio from the project", async () => {
    const client = new Client({ name: "package-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: "npx", args: ["--offline", "vessel", "mcp"], cwd: project, env: env as Record<string, string> }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("ask_human");
      const listed = (await client.callTool({ name: "list_sessions", arguments: { status: "RELEASED" } })) as { content: Array<{ text?: string }> };
      expect(listed.content[0]!.text).toMatch(/^ses_\S+ {2}RELEASED/m);
    } finally {
      await client.close();
    }
  });
});
