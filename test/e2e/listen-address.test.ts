import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loneHost, netnsUnavailable, type LoneHost } from "../support/netns.ts";

/**
 * Where the embedded default listens: this machine's loopback alone (VESSEL_HOST opens it). The
 * real entry point runs in a network namespace of its own that has one more address besides
 * loopback, and is asked from inside it on both; all traffic stays in that namespace.
 */

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const run = promisify(execFile);
const PORT = 8080;

const started = new Set<ChildProcess>();
afterEach(() => {
  for (const child of started) child.kill("SIGKILL");
  started.clear();
});

/** What `GET /healthz` on address:PORT answers, asked from inside the namespace: a status, or the connection error's code. */
async function ask(ns: string, address: string): Promise<string> {
  const script = `fetch("http://${address}:${PORT}/healthz", { signal: AbortSignal.timeout(5000) }).then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.name))`;
  const { stdout } = await run("ip", ["netns", "exec", ns, process.execPath, "-e", script]);
  return stdout.trim();
}

async function startIn(ns: string, env: Record<string, string>): Promise<ChildProcess> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "vessel-listen-"));
  // `ip netns exec` execs the command itself: the child is the node.
  const child = spawn("ip", ["netns", "exec", ns, process.execPath, "--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(PORT), VESSEL_DATA_DIR: dataDir, VESSEL_BROWSER_WARM: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  child.once("exit", () => void fs.rm(dataDir, { recursive: true, force: true }));
  for (let i = 0; i < 600 && !/Vessel is listening/.test(output); i++) {
    if (child.exitCode !== null) throw new Error(`exited early:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!/Vessel is listening/.test(output)) throw new Error(`did not start:\n${output}`);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGINT");
  await exited;
  started.delete(child);
}

const unavailable = await netnsUnavailable();
if (unavailable && process.env.CI) throw new Error(`the listen-address test needs a network namespace: ${unavailable}`);

describe.skipIf(unavailable)("the address the embedded default listens on", () => {
  let host: LoneHost;
  beforeAll(async () => {
    host = await loneHost();
  });
  afterAll(async () => host?.destroy());

  it("is loopback alone: the machine's other address refuses the connection", async () => {
    const node = await startIn(host.ns, {});
    try {
      expect(await ask(host.ns, "127.0.0.1")).toBe("200");
      expect(await ask(host.ns, host.address)).toBe("ECONNREFUSED");
    } finally {
      await stop(node);
    }
  }, 120_000);

  it("is every interface with VESSEL_HOST=0.0.0.0 (what the image and the manifests set)", async () => {
    const node = await startIn(host.ns, { VESSEL_HOST: "0.0.0.0" });
    try {
      expect(await ask(host.ns, host.address)).toBe("200");
      expect(await ask(host.ns, "127.0.0.1")).toBe("200");
    } finally {
      await stop(node);
    }
  }, 120_000);
});
