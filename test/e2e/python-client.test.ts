import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startClientHarness, type ClientHarness } from "../support/client-harness.ts";
import { scenarios, scenariosPath } from "../support/scenario-runner.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "clients/python");

/**
 * Debian's python3 (the set-up installs it with python3-venv and python3-pytest, like Chromium):
 * a Python from elsewhere on PATH (pyenv, say) would not see Debian's pytest or setuptools.
 */
function findPython(): string | undefined {
  for (const candidate of ["/usr/bin/python3", "python3"]) {
    try {
      execFileSync(candidate, ["-c", "import sys, venv, ensurepip; assert sys.version_info >= (3, 11)"], { stdio: "ignore" });
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const python = findPython();
const hasChromium = chromiumPath() !== undefined;
if (servicesRequired && !python) throw new Error("python3 (3.11+, with venv) is required (VESSEL_REQUIRE_SERVICES=1): apt-get install python3 python3-venv");
if (servicesRequired && !hasChromium) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.skipIf(!python || !hasChromium)("the Python client (clients/python), installed, against a running server", () => {
  let t: TestApp;
  let h: ClientHarness;
  let venv: string;
  beforeAll(async () => {
    // Installed as a user would, offline: a venv that sees Debian's setuptools and pytest, and pip
    // building the package from a copy (an in-tree build would leave build/ in the checkout).
    venv = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-py-"));
    const copy = path.join(venv, "src");
    fs.cpSync(packageDir, copy, { recursive: true, filter: (p) => !/(__pycache__|\.egg-info|\/build)$/.test(p) });
    const made = await run(python!, ["-m", "venv", "--system-site-packages", path.join(venv, "env")], { timeoutMs: 60_000 });
    expect(made.code, made.output).toBe(0);
    const installed = await run(path.join(venv, "env/bin/python"), ["-m", "pip", "install", "--no-index", "--no-build-isolation", "--no-deps", "-q", copy], {
      timeoutMs: 120_000,
    });
    expect(installed.code, installed.output).toBe(0);
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    h = await startClientHarness(t);
  }, 240_000);
  afterAll(async () => {
    await h?.close();
    await t?.stop();
    if (venv) fs.rmSync(venv, { recursive: true, force: true });
  });

  it("passes its whole suite: the shared scenarios, the retry timing, the matchers", async () => {
    const env = {
      ...process.env,
      VESSEL_API_KEY: h.keys.primary,
      VESSEL_BASE_URL: t.url,
      VESSEL_TEST_HARNESS_URL: h.url,
      VESSEL_SCENARIOS: scenariosPath,
      VESSEL_TEST_REQUIRE_INSTALLED: "1",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    const venvPython = path.join(venv, "env/bin/python");
    // pytest (Debian's python3-pytest) when present; otherwise the same unittest suite with the standard library's runner.
    const hasPytest = (await run(venvPython, ["-c", "import pytest"], { timeoutMs: 30_000 })).code === 0;
    if (servicesRequired) expect(hasPytest, "python3-pytest is required (VESSEL_REQUIRE_SERVICES=1)").toBe(true);
    const args = hasPytest
      ? ["-m", "pytest", "-p", "no:cacheprovider", "-v", "-rfEs", "tests"]
      : ["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."];
    const result = await run(venvPython, args, { cwd: packageDir, env, timeoutMs: 400_000 });
    expect(result.code, result.output).toBe(0);
    // Every scenario ran and passed; none was skipped (a skip must never read as a pass).
    expect(result.output, result.output).not.toMatch(/\bskipped\b|SKIP/i);
    for (let i = 1; i <= scenarios.length; i++) expect(result.output).toMatch(new RegExp(`test_${String(i).padStart(2, "0")}_\\w+`));
  }, 420_000);
});
