// A browser's main process as chromium.ts sees it, whoever spawned it: what is asked for, what comes
// back, and the spawn this process makes itself (without the launcher, or when it cannot start). Kept
// apart from launcher.ts so the launcher holds only its own bookkeeping with the launcher process.
import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../../logger.ts";
import type { JailUser } from "../jail/users.ts";
import { scheduledCommand, type BrowserScheduling } from "./scheduling.ts";

export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export interface SpawnRequest {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Started under this scheduling policy (scheduling.ts); `command` and `args` stay what the process is found by. */
  scheduling?: BrowserScheduling;
  /** Started as this host user (a jail's, browser/jail/users.ts) instead of this process's own. */
  user?: JailUser;
}

/** A browser's main process, spawned detached with stderr and the CDP pipe (fd 3 in, fd 4 out) open to us. */
export interface SpawnedProcess {
  readonly pid: number;
  readonly stderr: Readable;
  readonly cdpIn: Writable;
  readonly cdpOut: Readable;
  /** Resolves (never rejects) when the process has exited. */
  readonly exited: Promise<ProcessExit>;
  /** Its start time from /proc (with the pid, it names this process), when already read. */
  readonly startTime?: string;
}

/** The spawn as this process made it before the launcher: its fork copies this whole process. */
export function spawnDirect(request: SpawnRequest, log: Logger): Promise<SpawnedProcess> {
  const { command, args } = scheduledCommand(request.command, request.args, request.scheduling);
  const child = spawn(command, args, {
    cwd: request.cwd,
    env: request.env,
    ...request.user,
    detached: true,
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
  });
  const exited = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", () => {
      child.off("error", reject);
      // Later errors (a failed kill) must not become uncaught exceptions.
      child.on("error", (err) => log.warn({ err, browserPid: child.pid }, "browser child process error"));
      resolve({ pid: child.pid!, stderr: child.stdio[2]!, cdpIn: child.stdio[3] as Writable, cdpOut: child.stdio[4] as Readable, exited });
    });
  });
}
