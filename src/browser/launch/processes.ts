// Chromium as Linux processes: /proc reads, process groups, pid files, and reaping browsers a dead
// process left behind. No CDP here; chromium.ts launches and closes one browser with these.
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../../logger.ts";

/** How long to wait for the processes of a killed group to disappear. */
export const GROUP_EXIT_WAIT_MS = 2_000;

/** Folder names the pool creates, and the only ones it will ever delete. */
export const BROWSER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

// ---------------------------------------------------------------------------------------------
// /proc helpers (Linux): process identity, group membership.

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  /** Clock ticks after boot; with the pid it identifies a process across pid reuse. */
  startTime: string;
  /** Its scheduling policy (0 normal, 3 batch: scheduling.ts). */
  policy: number;
}

export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgrp] = rest;
  const startTime = rest[19];
  if (!state || !ppid || !pgrp || !startTime) return undefined;
  return { pid, state, ppid: Number(ppid), pgrp: Number(pgrp), startTime, policy: Number(rest[38] ?? 0) };
}

/** Zombies (Z) and dead (X) entries hold no memory and run nothing; they only wait to be reaped. */
export function isLive(stat: ProcStat | undefined): stat is ProcStat {
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

/** Every process (zombies included) whose process group is `pgid`. */
export function processGroupMembers(pgid: number): ProcStat[] {
  const members: ProcStat[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return members;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat?.pgrp === pgid) members.push(stat);
  }
  return members;
}

/** Live (non-zombie) members of a process group. */
export function liveGroupMembers(pgid: number): ProcStat[] {
  return processGroupMembers(pgid).filter(isLive);
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is empty
  }
}

/**
 * Live processes that lead their own group and were started with every one of `args` (a launch's
 * arguments name its own folder, so they match that launch alone): a browser whose spawner died
 * before it could report the pid.
 */
export function groupLeadersStartedWith(args: readonly string[]): ProcStat[] {
  if (args.length === 0) return []; // would match every group leader
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const found: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (!isLive(stat) || stat.pgrp !== stat.pid) continue;
    let argv: Set<string>;
    try {
      argv = new Set(fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0"));
    } catch {
      continue; // gone meanwhile
    }
    if (args.every((arg) => argv.has(arg))) found.push(stat);
  }
  return found;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls until no live process is left in the group, or the deadline passes. A scan of the group reads
 * every process's stat file on the machine (most of a browser's close time on this thread when it
 * was done every poll), so the polls read only the members `known` (a scan made by the caller, or
 * one made here) still has. Called after SIGKILL to the group: no member can fork a new one then
 * (Linux aborts a fork that races with a fatal signal), so no later scan is needed.
 */
export async function waitForGroupGone(pgid: number, timeoutMs: number, known: ProcStat[] = liveGroupMembers(pgid)): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let left = known; ; ) {
    left = left.filter((was) => {
      const now = readProcStat(was.pid);
      return isLive(now) && now.pgrp === pgid && now.startTime === was.startTime;
    });
    if (left.length === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
}

// ---------------------------------------------------------------------------------------------

export interface PidFile {
  pid: number;
  startTime: string;
  executablePath: string;
}

export function writePidFile(dir: string, content: PidFile): void {
  fs.writeFileSync(path.join(dir, "pid"), JSON.stringify(content) + "\n", { mode: 0o600 });
}

export function readPidFile(dir: string): PidFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dir, "pid"), "utf8")) as Partial<PidFile>;
    if (Number.isInteger(parsed.pid) && (parsed.pid as number) > 1 && typeof parsed.startTime === "string") {
      return parsed as PidFile;
    }
  } catch {
    // missing or torn: treated as a folder without a process
  }
  return undefined;
}

/**
 * Cleans a dataRoot left by an earlier run: for each browser folder, kills the process group its
 * pid file names (only when the pid still belongs to the same process: same start time), then
 * removes the folder. Entries that do not look like ours (name or layout) are left alone.
 */
export async function reapOrphans(dataRoot: string, log: Logger): Promise<{ orphansKilled: number; foldersRemoved: number }> {
  let orphansKilled = 0;
  let foldersRemoved = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dataRoot, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { orphansKilled, foldersRemoved };
    throw err;
  }
  for (const entry of entries) {
    const dir = path.join(dataRoot, entry.name);
    // A jailed browser's egress socket (browser/pool/pool.ts): no listener is behind it after a crash.
    if (entry.isSocket() && /\.egress\.sock$/.test(entry.name) && BROWSER_ID.test(entry.name.replace(/\.egress\.sock$/, ""))) {
      fs.rmSync(dir, { force: true });
      continue;
    }
    if (!entry.isDirectory() || !BROWSER_ID.test(entry.name)) continue;
    if (!fs.existsSync(path.join(dir, "pid")) && !fs.existsSync(path.join(dir, "profile"))) {
      log.warn({ dir }, "leaving a folder in the browser data root that is not a browser folder");
      continue;
    }
    const pidFile = readPidFile(dir);
    if (pidFile) {
      const leader = readProcStat(pidFile.pid);
      // Same pid and same start time: the very process we launched. No such process: its group
      // may still hold children, and the group id cannot have been reused while they exist.
      // A different start time means the pid now belongs to someone else: leave it alone.
      const ours = leader ? leader.startTime === pidFile.startTime : true;
      if (ours && liveGroupMembers(pidFile.pid).length > 0) {
        signalGroup(pidFile.pid, "SIGKILL");
        orphansKilled++;
        if (!(await waitForGroupGone(pidFile.pid, GROUP_EXIT_WAIT_MS))) {
          log.error({ dir, browserPid: pidFile.pid }, "orphaned Chromium survived SIGKILL");
        }
        log.warn({ dir, browserPid: pidFile.pid }, "killed an orphaned Chromium left by an earlier run");
      }
    }
    await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3 });
    foldersRemoved++;
  }
  return { orphansKilled, foldersRemoved };
}
