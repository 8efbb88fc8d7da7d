import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launchChromium, type ChromiumProcess } from "../../src/browser/launch/chromium.ts";
import { findChromium } from "../../src/browser/launch/command.ts";
import { groupLeadersStartedWith, isLive, liveGroupMembers, readProcStat, signalGroup } from "../../src/browser/launch/processes.ts";
import { spawnBrowserProcess } from "../../src/browser/launch/launcher.ts";
import { createLogger } from "../../src/logger.ts";

// Real Chromium, spawned by the launcher process (src/browser/launch/launcher.ts): the browsers are its
// children, not this process's; a dead launcher is replaced and its browsers' exits are still seen;
// a node that goes takes its launcher with it.

const executablePath = findChromium(process.env.VESSEL_CHROMIUM_PATH)!;
const log = createLogger("silent");
const root = path.resolve(import.meta.dirname, "../..");

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vl-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function killGroupAfterwards(pid: number): void {
  const startTime = readProcStat(pid)?.startTime;
  cleanups.push(() => {
    if (readProcStat(pid)?.startTime === startTime && liveGroupMembers(pid).length > 0) process.kill(-pid, "SIGKILL");
  });
}

async function launch(dataRoot: string, id: string): Promise<ChromiumProcess> {
  const browser = await launchChromium({ executablePath, dataRoot, id, log });
  killGroupAfterwards(browser.pid);
  cleanups.push(() => browser.close());
  return browser;
}

const parentOf = (pid: number) => readProcStat(pid)!.ppid;
const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
const running = (pid: number) => isLive(readProcStat(pid));

async function until(what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !cond(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
  }
}

describe("the browser launcher (real Chromium)", () => {
  it("spawns browsers as its children, not this process's, and reports a killed browser's exit", async () => {
    const dataRoot = tempDir();
    const [one, two] = [await launch(dataRoot, "one"), await launch(dataRoot, "two")];
    const launcher = parentOf(one.pid);
    expect(launcher).not.toBe(process.pid);
    expect(parentOf(launcher)).toBe(process.pid);
    expect(cmdline(launcher)).toContain("launcher-process.mjs");
    expect(parentOf(two.pid)).toBe(launcher); // one launcher for every browser

    process.kill(-one.pid, "SIGKILL");
    expect(await one.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(one.alive).toBe(false);
    expect(two.alive).toBe(true);
  }, 60_000);

  // The launcher's channel to the node carries launch requests and pipe ends: a browser holding it (a
  // tenant's browser is assumed hostile) could ask for processes of its own.
  it("leaves nothing of its channel to the node in the browsers: neither its descriptor nor NODE_CHANNEL_FD", async () => {
    const browser = await launch(tempDir(), "one");
    const launcher = parentOf(browser.pid);
    const environ = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    const channelFd = environ(launcher)
      .find((v) => v.startsWith("NODE_CHANNEL_FD="))
      ?.split("=")[1];
    expect(channelFd).toMatch(/^\d+$/);
    const channel = fs.readlinkSync(`/proc/${launcher}/fd/${channelFd}`);
    expect(channel).toMatch(/^socket:\[\d+\]$/);
    const members = liveGroupMembers(browser.pid).map((m) => m.pid);
    expect(members).toContain(browser.pid);
    for (const pid of members) {
      expect(
        environ(pid).filter((v) => v.startsWith("NODE_")),
        `process ${pid}`,
      ).toEqual([]);
      const held = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return ""; // closed meanwhile
        }
      });
      expect(held, `process ${pid}`).not.toContain(channel);
    }
  }, 60_000);

  it("replaces a launcher killed with SIGKILL, and still sees the exit of a browser it had started", async () => {
    const dataRoot = tempDir();
    const before = await launch(dataRoot, "before");
    const launcher = parentOf(before.pid);
    process.kill(launcher, "SIGKILL");
    await until("the launcher is gone", () => !running(launcher));
    expect(before.alive).toBe(true); // detached: its launcher's death is not its own

    const after = await launch(dataRoot, "after");
    expect(parentOf(after.pid)).not.toBe(launcher);
    expect(cmdline(parentOf(after.pid))).toContain("launcher-process.mjs");
    expect(await after.cdp.call("Browser.getVersion", {})).toHaveProperty("product");

    // Nobody is left to report this exit: it is seen all the same (its pipe's end, /proc).
    process.kill(-before.pid, "SIGKILL");
    expect(await before.exited).toEqual({ code: null, signal: null });
    expect(before.alive).toBe(false);
    await before.close();
    expect(fs.existsSync(before.dir)).toBe(false);
  }, 60_000);

  // The launch is asked of the dead launcher before this process has seen it die: the end of its
  // channel may be read before the failed send is reported. Either way the launch is made again.
  it("makes a launch asked of a launcher that was killed a moment before", async () => {
    const cwd = tempDir();
    const spawnOne = async (marker: string) => {
      const request = { command: process.execPath, args: ["-e", "setTimeout(() => {}, 30000)", marker], cwd, env: {} };
      const spawned = await spawnBrowserProcess(request, log);
      cleanups.push(() => signalGroup(spawned.pid, "SIGKILL"));
      return spawned;
    };
    for (let i = 0; i < 5; i++) {
      const launcher = parentOf((await spawnOne(`before${i}`)).pid);
      process.kill(launcher, "SIGKILL");
      for (const deadline = Date.now() + 5_000; running(launcher) && Date.now() < deadline; ); // no turn of the loop
      const after = await spawnOne(`after${i}`); // asked in this same turn
      expect(parentOf(after.pid)).not.toBe(launcher);
      expect(cmdline(after.pid)).toContain(`after${i}`);
    }
  }, 60_000);

  it("finds a browser by its launch's arguments when nobody reported its pid, and only that one", async () => {
    const marker = `vessel-test-${process.pid}-${Date.now()}`;
    const start = (args: string[], detached: boolean) => {
      const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)", ...args], { detached, stdio: "ignore" });
      cleanups.push(() => child.kill("SIGKILL"));
      return child.pid!;
    };
    const leader = start([marker, "other"], true);
    start([marker], true); // lacks one of the arguments
    start([marker, "other"], false); // in this process's group: not a browser's own
    await until("the processes have their arguments", () => groupLeadersStartedWith([marker]).length === 2);
    expect(groupLeadersStartedWith([marker, "other"]).map((p) => p.pid)).toEqual([leader]);
    expect(groupLeadersStartedWith([`${marker}-not`])).toEqual([]);
    expect(groupLeadersStartedWith([])).toEqual([]); // not every group leader on the machine
  }, 30_000);

  it.each(["close", "wait"])(
    "leaves no launcher behind when its node goes (%s)",
    async (mode) => {
      const dataRoot = tempDir();
      const node = spawn(process.execPath, ["--import", "tsx", "test/fixtures/launch-one-browser.ts", dataRoot, mode], {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"],
      });
      cleanups.push(() => node.kill("SIGKILL"));
      const exited = new Promise((resolve) => node.once("exit", resolve));
      const line = await new Promise<string>((resolve, reject) => {
        node.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString()));
        void exited.then((code) => reject(new Error(`the node exited (${code}) before its browser answered`)));
      });
      const { browser, launcher, launcherParent, holder } = JSON.parse(line) as { browser: number; launcher: number; launcherParent: number; holder?: number };
      if (holder) cleanups.push(() => killIfRunning(holder));
      expect(launcherParent).toBe(node.pid);
      if (mode === "close") {
        await exited; // ended on its own: the launcher does not keep its node alive
      } else {
        killGroupAfterwards(browser);
        node.kill("SIGKILL");
        await exited;
      }
      await until("the launcher has exited", () => !running(launcher));
      // The launcher does not take the browsers with it; a node's shutdown or its next start does.
      // (The fixture's holder keeps the browser's pipe open: Chromium would end itself on its end.)
      if (mode === "wait") expect(running(browser)).toBe(true);
    },
    60_000,
  );
});

function killIfRunning(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already
  }
}
