import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserDataRoot } from "../../src/deps-browsers.ts";
import { loadConfig } from "../../src/config.ts";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../support/db.ts";
import { alive, eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const ready = chromiumPath() !== undefined && (await postgresAvailable());
if (!ready && servicesRequired) throw new Error("Chromium and PostgreSQL are required (VESSEL_REQUIRE_SERVICES=1)");

/** The real entry point in its own process, so it can be killed the hard way. */
function runMain(env: Record<string, string>): { child: ChildProcess; url: Promise<string>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*Vessel is listening/.exec(output);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", () => reject(new Error(`exited before listening:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, url, exited };
}

/** Chromium processes whose profile lives under `dir` (what this node launched). */
function chromiumUnder(dir: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dir) && alive(pid);
      } catch {
        return false;
      }
    });
}

describe.skipIf(!ready)("restarting a node", () => {
  let tdb: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-restart-"));
    env = {
      DATABASE_URL: tdb.url!,
      VESSEL_MASTER_KEY: Buffer.alloc(32, 9).toString("base64"),
      VESSEL_DATA_DIR: dataDir,
      VESSEL_HOST: "127.0.0.1",
      PORT: "0",
      VESSEL_NODE_ID: `restart-${randomUUID()}`,
      VESSEL_BROWSER_WARM: "1",
      LOG_LEVEL: "info",
    };
  });
  afterAll(async () => {
    for (const pid of chromiumUnder(browserDataRoot(loadConfig(env, "/nonexistent")))) process.kill(pid, "SIGKILL");
    await tdb?.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("ends the sessions a crashed run left behind and leaves no Chromium running", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/seed.ts", "--workspace", "restart"], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    const key = stdout.trim();
    const browsers = browserDataRoot(loadConfig(env, "/nonexistent"));

    const first = runMain(env);
    const url = await first.url;
    const created = await fetch(`${url}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ region: "us-east1" }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string };
    await eventually(
      async () => chromiumUnder(browsers).length,
      (n) => n >= 2,
    ); // the session's browser and the refilled spare
    first.child.kill("SIGKILL"); // no chance to clean up
    await first.exited;
    // Its browsers go with it (each exits when its DevTools pipe closes); their folders stay behind.
    await eventually(
      async () => chromiumUnder(browsers).length,
      (n) => n === 0,
    );
    const leftBehind = fs.readdirSync(browsers).filter((name) => fs.existsSync(path.join(browsers, name, "profile")));
    expect(leftBehind.length).toBeGreaterThan(0);

    const second = runMain(env);
    const url2 = await second.url;
    const row = await tdb.db.prisma.session.findUnique({ where: { id: session.id } });
    expect(row).toMatchObject({ status: "FAILED", endReason: "NODE_SHUTDOWN" });
    for (const folder of leftBehind) expect(fs.existsSync(path.join(browsers, folder)), folder).toBe(false);
    expect((await fetch(`${url2}/readyz`)).status).toBe(200);

    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    await eventually(
      async () => chromiumUnder(browsers).length,
      (n) => n === 0,
    );
  }, 120_000);
});
