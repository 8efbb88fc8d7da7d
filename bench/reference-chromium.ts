// The benchmarks' reference browser: Chromium as a user runs it without Vessel, driven over its own
// DevTools WebSocket. Vessel's browsers have no DevTools port any more (--remote-debugging-pipe,
// src/browser/launch/chromium.ts), so the references are launched here, with the very flags of
// chromiumArgs() plus `--remote-debugging-port=0`, and their endpoint is read from the
// "DevTools listening on ws://…" line on stderr, as puppeteer.launch does.
//
// The pipe that chromiumArgs() asks for stays open beside the port (Chromium serves both at once): it
// is used only outside the clock, to warm a "fresh" reference up with the pool's own warmUpProfile()
// and to close the browser as ChromiumProcess.close() does (Browser.close, then SIGKILL to the group).
// Benchmark clients never use it: they connect to `wsEndpoint` like any user of a running Chromium.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { CdpPipe } from "../src/browser/cdp/pipe/pipe.ts";
import { chromiumArgs, chromiumEnv } from "../src/browser/launch/command.ts";
import { liveGroupMembers } from "../src/browser/launch/processes.ts";

export interface ReferenceChromium {
  readonly id: string;
  readonly pid: number;
  /** ws://127.0.0.1:<port>/devtools/browser/<id> */
  readonly wsEndpoint: string;
  readonly port: number;
  /** The browser's pipe (warm-up and close only; see above). */
  readonly cdp: CdpPipe;
  readonly alive: boolean;
  /** Browser.close on the pipe, SIGKILL to the group after 2 s, waits, removes the folder. Idempotent. */
  close(): Promise<void>;
}

const LAUNCH_TIMEOUT_MS = 15_000;
const CLOSE_GRACE_MS = 2_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is empty
  }
}

/**
 * Launches one reference Chromium in `<dataRoot>/<id>` (profile, HOME, XDG_* and TMPDIR inside it,
 * as the pool's browsers have) and resolves once its DevTools endpoint is listening and its pipe
 * has answered.
 */
export async function launchReference(opts: { executablePath: string; dataRoot: string; id: string }): Promise<ReferenceChromium> {
  const dir = path.join(path.resolve(opts.dataRoot), opts.id);
  fs.mkdirSync(dir, { recursive: false, mode: 0o700 });
  for (const sub of ["profile", "home", "config", "cache", "data", "tmp"]) fs.mkdirSync(path.join(dir, sub), { mode: 0o700 });
  const args = chromiumArgs(opts.executablePath, path.join(dir, "profile"), ["--remote-debugging-port=0"]);
  const child = spawn(opts.executablePath, args, {
    cwd: path.join(dir, "home"),
    env: chromiumEnv(dir),
    detached: true,
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  child.on("error", () => {});
  const pid = child.pid;
  if (pid === undefined) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot start ${opts.executablePath}`);
  }
  const cdp = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);

  let stderr = "";
  const endpoint = new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk; // kept for a launch error only; drained for the browser's whole life
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void exit.then(() => reject(new Error(`the reference Chromium exited during launch:\n${stderr.slice(-2000)}`)));
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (!exited) {
        if (!cdp.write(JSON.stringify({ id: 0, method: "Browser.close" }))) signalGroup(pid, "SIGTERM");
        await Promise.race([exit, sleep(CLOSE_GRACE_MS)]);
      }
      signalGroup(pid, "SIGKILL");
      await Promise.race([exit, sleep(5_000)]);
      for (let i = 0; i < 80 && liveGroupMembers(pid).length > 0; i++) await sleep(25);
      for (const stream of child.stdio) stream?.destroy();
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3 });
    })());

  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the reference Chromium did not listen within ${LAUNCH_TIMEOUT_MS} ms`)), LAUNCH_TIMEOUT_MS);
    });
    const [wsEndpoint] = await Promise.race([Promise.all([endpoint, cdp.call("Browser.getVersion")]), timeout]);
    return {
      id: opts.id,
      pid,
      wsEndpoint,
      port: Number(new URL(wsEndpoint).port),
      cdp,
      get alive() {
        return !exited;
      },
      close,
    };
  } catch (err) {
    signalGroup(pid, "SIGKILL");
    await close();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
