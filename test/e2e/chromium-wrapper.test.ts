import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FULL_CHROMIUM, HEADLESS_SHELL } from "../../src/browser/launch/command.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { servicesRequired } from "../support/services.ts";

// Debian's launcher: a shell script reading /etc/chromium.d, then running /usr/lib/chromium/chromium.
const DEBIAN_WRAPPER = "/usr/bin/chromium";
const isScript = (file: string) => fs.existsSync(file) && fs.readFileSync(file).subarray(0, 2).toString() === "#!";
const hasWrapper = isScript(DEBIAN_WRAPPER) && fs.existsSync(FULL_CHROMIUM);
if (!hasWrapper && servicesRequired) throw new Error("Debian's chromium package is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const config = (env: Record<string, string>) => loadConfig(env, "/nonexistent");

/** Issue 45 point 10: VESSEL_CHROMIUM_PATH at a distribution's launcher script works, or is refused at start. */
describe.skipIf(!hasWrapper)("VESSEL_CHROMIUM_PATH at a launcher script", () => {
  let dir: string;
  let t: TestApp | undefined;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-wrapper-"));
  });
  afterAll(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const script = (name: string, body: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };

  it("Debian's /usr/bin/chromium is resolved to the binary it runs; a binary is kept as given", () => {
    expect(config({ VESSEL_CHROMIUM_PATH: DEBIAN_WRAPPER }).browser.executablePath).toBe(FULL_CHROMIUM);
    expect(config({ VESSEL_CHROMIUM_PATH: FULL_CHROMIUM }).browser.executablePath).toBe(FULL_CHROMIUM);
    // Variables and a symlink on the way are followed; the script is read, never run.
    const marker = path.join(dir, "ran");
    const own = script("own-launcher", `touch ${marker}\nDIR=/usr/lib/chromium\nexec "$DIR/chromium-headless-shell" "$@"`);
    fs.symlinkSync(own, path.join(dir, "linked"));
    expect(config({ VESSEL_CHROMIUM_PATH: path.join(dir, "linked") }).browser.executablePath).toBe(HEADLESS_SHELL);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a script whose Chromium cannot be told is refused, naming the binary to use", () => {
    const unknown = script("mystery", 'exec "$HOME/somewhere/chrome" "$@"');
    const both = script("two", `[ -n "$X" ] && exec ${FULL_CHROMIUM} "$@"\nexec ${HEADLESS_SHELL} "$@"`);
    for (const file of [unknown, both]) {
      let problems: string[] = [];
      try {
        config({ VESSEL_CHROMIUM_PATH: file });
      } catch (err) {
        if (err instanceof ConfigError) problems = err.problems;
      }
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`VESSEL_CHROMIUM_PATH: ${file} is a launcher script`);
      expect(problems[0]).toContain(FULL_CHROMIUM);
    }
  });

  it("the server refuses to start with such a script, and says why on the console", () => {
    const unknown = script("refused", 'exec "$HOME/elsewhere/chrome" "$@"');
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: { ...process.env, VESSEL_CHROMIUM_PATH: unknown, PORT: "0", VESSEL_DATA_DIR: path.join(dir, "data"), LOG_LEVEL: "silent" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`VESSEL_CHROMIUM_PATH: ${unknown} is a launcher script`);
    expect(run.stderr).toContain(`set it to the binary itself, ${FULL_CHROMIUM}`);
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });

  it("a session starts and runs with VESSEL_CHROMIUM_PATH=/usr/bin/chromium", async () => {
    t = await startTestApp({ env: { VESSEL_CHROMIUM_PATH: DEBIAN_WRAPPER } });
    expect(t.config.browser.executablePath).toBe(FULL_CHROMIUM);
    const ws = await seedWorkspace(t);
    const { res, body } = await createSession(t, ws.key);
    expect(res.status).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
    const tab = await browser.newPage();
    expect(await tab.evaluate(() => 6 * 7)).toBe(42);
    // Full Chromium (the wrapper's binary), not the headless shell a fallback would have run.
    expect(await browser.version()).toMatch(/^Chrome\//);
    await browser.disconnect();
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
  });
});
