import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../support/sessions.ts";
import { openDatabase } from "../../src/db/client.ts";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

/** Services a test started and has not seen exit: a test that fails half-way leaves none running. */
const started = new Set<ChildProcess>();
afterEach(() => {
  for (const child of started) child.kill("SIGKILL");
  started.clear();
});

/** The real entry point, as `npm start` runs it (set-up already done by the test command). */
function runMain(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VESSEL_HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  child.once("exit", () => started.delete(child));
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The exit code, or a failure that shows what the process printed when it does not exit in time. */
async function exitCode(run: ReturnType<typeof runMain>, boundMs = 60_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill("SIGKILL");
      reject(new Error(`still running ${boundMs} ms after the signal:\n${run.output().slice(-4000)}`));
    }, boundMs);
  });
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function listeningUrl(run: ReturnType<typeof runMain>): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const match = /"url":"(http:\/\/[^"]+)"[^\n]*Vessel is listening/.exec(run.output());
    if (match) return match[1]!;
    if (run.child.exitCode !== null) throw new Error(`exited early:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`did not start:\n${run.output()}`);
}

describe("the service process", () => {
  it("refuses an invalid configuration, naming each problem, and exits non-zero", async () => {
    const run = runMain({ PORT: "abc", VESSEL_REGIONS: "us-east1,", VESSEL_PUBLIC_BASE_URL: "not a url" });
    expect(await exitCode(run)).toBe(1);
    expect(run.output()).toMatch(/PORT: /);
    expect(run.output()).toMatch(/VESSEL_REGIONS \(entry 2\): a region name cannot be empty/);
    expect(run.output()).toMatch(/VESSEL_PUBLIC_BASE_URL: /);
  });

  it("starts on the embedded default, stops on SIGTERM, and keeps its data across restarts", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "vessel-data-"));
    const env = { PORT: "0", VESSEL_DATA_DIR: dataDir };
    try {
      const first = runMain(env);
      const url = await listeningUrl(first);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      // Every /v1 route needs an API key, health included.
      expect((await fetch(`${url}/v1/health`)).status).toBe(401);
      // The first start wrote one into the data folder, readable only by its owner.
      const keyFile = path.join(dataDir, "first-api-key");
      await eventually(
        async () =>
          fs.stat(keyFile).then(
            () => true,
            () => false,
          ),
        (exists) => exists,
      );
      expect((await fs.stat(keyFile)).mode & 0o777).toBe(0o600);
      const key = (await fs.readFile(keyFile, "utf8")).trim();
      expect((await fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      expect(first.output()).not.toContain(key);
      first.child.kill("SIGTERM");
      expect(await exitCode(first)).toBe(0);

      // Write through the database directly (no API writes data yet), then restart the service.
      const db = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
      await db.prisma.workspace.create({ data: { id: "01J00000000000000000000000", slug: "kept", name: "Kept" } });
      await db.close();

      const second = runMain(env);
      const url2 = await listeningUrl(second);
      expect((await fetch(`${url2}/readyz`)).status).toBe(200);
      expect(second.output()).not.toMatch(/applied migration/);
      second.child.kill("SIGTERM");
      expect(await exitCode(second)).toBe(0);

      const reopened = await openDatabase({ dataDir: path.join(dataDir, "pglite") });
      expect(await reopened.prisma.workspace.findUnique({ where: { slug: "kept" } })).toMatchObject({ name: "Kept" });
      await reopened.close();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  // A SIGTERM while the first start still writes its key and sign-in link: the database used to be
  // closed under a running statement, and the process spun at full CPU without ever exiting.
  it("exits 0 on a SIGTERM at once after it listens, and starts again on the same data", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "vessel-data-"));
    const env = { PORT: "0", VESSEL_DATA_DIR: dataDir };
    try {
      for (let round = 0; round < 2; round++) {
        const run = runMain(env);
        await listeningUrl(run);
        run.child.kill("SIGTERM");
        expect(await exitCode(run)).toBe(0);
        expect(run.output()).not.toMatch(/"level":(50|60)/);
      }
      const again = runMain(env);
      const url = await listeningUrl(again);
      const key = (await fs.readFile(path.join(dataDir, "first-api-key"), "utf8")).trim();
      expect((await fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      again.child.kill("SIGTERM");
      expect(await exitCode(again)).toBe(0);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
