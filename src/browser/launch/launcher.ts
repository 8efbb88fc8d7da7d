// Where a browser's process comes from: the launcher (launcher-process.mjs, a small process of its
// own that forks cheaply) spawns it and hands its pipe ends back; without a launcher, this process
// spawns it itself (spawned-process.ts). chromium.ts sees the same thing either way.
import { fork, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Logger } from "../../logger.ts";
import { scheduledCommand } from "./scheduling.ts";
import { spawnDirect, type ProcessExit, type SpawnedProcess, type SpawnRequest } from "./spawned-process.ts";
import { GROUP_EXIT_WAIT_MS, groupLeadersStartedWith, isLive, readProcStat, signalGroup, waitForGroupGone } from "./processes.ts";

const LAUNCHER_SCRIPT = path.join(import.meta.dirname, "launcher-process.mjs");
/** How long the launcher may take to say it is ready before this process spawns without it. */
const LAUNCHER_START_TIMEOUT_MS = 10_000;
/** How often a browser whose launcher died is looked for in /proc (its exit is no longer reported). */
const ORPHAN_POLL_MS = 250;

interface Pending {
  launcher: ChildProcess;
  request: SpawnRequest;
  /** A launch the launcher's death interrupts is made again, once. */
  retry: boolean;
  resolve(spawned: SpawnedProcess): void;
  reject(err: Error): void;
  pid?: number;
  exited?: Promise<ProcessExit>;
  pipes: Partial<Record<2 | 3 | 4, Socket>>;
}

/** A browser the launcher started and has not yet reported gone. */
interface Running {
  launcher: ChildProcess;
  startTime: string | undefined;
  cdpOut?: Readable;
  resolve(exit: ProcessExit): void;
}

type LauncherMessage =
  | { ready: true }
  | { id: number; error: string }
  | { id: number; pid: number }
  | { id: number; fd: 2 | 3 | 4 }
  | { exit: number; code: number | null; signal: string | null };

class BrowserLauncher {
  #child: ChildProcess | undefined;
  #ready: Promise<boolean> | undefined;
  /** Launchers that said they were ready, and have not gone yet. */
  readonly #answering = new WeakSet<ChildProcess>();
  readonly #gone = new WeakSet<ChildProcess>();
  /** The launcher could not start once: every later browser is spawned here, as before it existed. */
  #unusable = false;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #running = new Map<number, Running>();
  /**
   * Per launcher, the launches awaiting its answer and the browsers whose exit it has not reported:
   * while there are any, its channel keeps this process alive (as a spawned child's handle does).
   */
  readonly #waiters = new Map<ChildProcess, number>();

  async spawn(request: SpawnRequest, log: Logger, retry = true): Promise<SpawnedProcess> {
    if (!this.#unusable && !this.#child) this.#ready = this.#start(log);
    const child = this.#child;
    if (this.#unusable || !child) return spawnDirect(request, log);
    this.#waiting(child, +1);
    try {
      if (!(await this.#ready)) return await spawnDirect(request, log);
      return await this.#ask(child, request, log, retry);
    } finally {
      this.#waiting(child, -1);
    }
  }

  #ask(child: ChildProcess, request: SpawnRequest, log: Logger, retry: boolean): Promise<SpawnedProcess> {
    const id = this.#nextId++;
    return new Promise<SpawnedProcess>((resolve, reject) => {
      this.#pending.set(id, { launcher: child, request, retry, resolve, reject, pipes: {} });
      // Not delivered: the launcher has gone, and this process may not have heard yet. Its going
      // makes this launch again, with a new launcher (or, if that one fails as well, this process).
      const { command, args } = scheduledCommand(request.command, request.args, request.scheduling);
      child.send({ id, ...request, command, args }, (err) => {
        if (err) this.#onGone(child, log);
      });
    });
  }

  #waiting(child: ChildProcess, change: number): void {
    const count = (this.#waiters.get(child) ?? 0) + change;
    if (count > 0) {
      this.#waiters.set(child, count);
      child.channel?.ref();
    } else {
      this.#waiters.delete(child);
      child.channel?.unref();
    }
  }

  #start(log: Logger): Promise<boolean> {
    let child: ChildProcess;
    try {
      // No execArgv and no NODE_OPTIONS: this process's TypeScript loader would make the launcher
      // as slow to start and as large as what it is there to avoid forking.
      const { NODE_OPTIONS: _, ...env } = process.env;
      child = fork(LAUNCHER_SCRIPT, [], { execArgv: [], env, stdio: ["ignore", "ignore", "inherit", "ipc"] });
    } catch (err) {
      return Promise.resolve(this.#cannotStart(log, err));
    }
    this.#child = child;
    child.unref();
    child.channel?.unref();
    child.on("message", (message: LauncherMessage, handle?: Socket) => this.#onMessage(child, message, handle));
    const ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(false);
      }, LAUNCHER_START_TIMEOUT_MS).unref();
      child.on("message", (message: LauncherMessage) => {
        if (!("ready" in message)) return;
        clearTimeout(timer);
        this.#answering.add(child);
        resolve(true);
      });
      // Its spawn failed, or a kill did: never an uncaught exception.
      child.on("error", (err) => (clearTimeout(timer), resolve(false), log.warn({ err }, "browser launcher error")));
      // Its channel's end may come first, and the loop may have nothing else to wait for.
      for (const end of ["exit", "disconnect"]) child.once(end, () => (clearTimeout(timer), resolve(false)));
    });
    child.once("disconnect", () => this.#onGone(child, log));
    child.once("exit", () => this.#onGone(child, log));
    return ready.then((ok) => ok || this.#cannotStart(log, new Error("the launcher exited or did not answer before it was ready")));
  }

  #cannotStart(log: Logger, err: unknown): false {
    if (!this.#unusable)
      log.warn({ err }, "cannot start the browser launcher: browsers are spawned from this process (each spawn pauses it while the fork copies it)");
    this.#unusable = true;
    this.#child = undefined;
    return false;
  }

  #onMessage(child: ChildProcess, message: LauncherMessage, handle: Socket | undefined): void {
    if ("exit" in message) {
      const running = this.#running.get(message.exit);
      if (running?.launcher !== child) return;
      this.#running.delete(message.exit);
      this.#waiting(child, -1);
      running.resolve({ code: message.code, signal: message.signal });
      return;
    }
    if (!("id" in message)) return;
    const pending = this.#pending.get(message.id);
    if (!pending) {
      handle?.destroy();
      return;
    }
    if ("error" in message) {
      this.#pending.delete(message.id);
      pending.reject(new Error(message.error));
    } else if ("pid" in message) {
      const pid = message.pid;
      pending.pid = pid;
      this.#waiting(child, +1);
      // Read now, while the launcher has not reaped it: with the pid it tells this browser from a later process given the same pid.
      const startTime = readProcStat(pid)?.startTime;
      pending.exited = new Promise((resolve) => this.#running.set(pid, { launcher: child, startTime, resolve }));
    } else if (handle) {
      pending.pipes[message.fd] = handle;
      const { 2: stderr, 3: cdpIn, 4: cdpOut } = pending.pipes;
      if (!stderr || !cdpIn || !cdpOut || pending.pid === undefined || !pending.exited) return;
      this.#pending.delete(message.id);
      const running = this.#running.get(pending.pid);
      if (running) running.cdpOut = cdpOut;
      pending.resolve({ pid: pending.pid, stderr, cdpIn, cdpOut, exited: pending.exited, ...(running?.startTime ? { startTime: running.startTime } : {}) });
    }
  }

  /**
   * The launcher has gone (killed, crashed). The next launch starts a new one. A launch it was in the
   * middle of fails (its browser, if it got a pid, is killed). The browsers it started keep running,
   * detached; their exits are no longer reported, so each is watched: its pipe's end, and /proc.
   */
  #onGone(child: ChildProcess, log: Logger): void {
    if (this.#gone.has(child)) return; // told twice: by its exit and by its channel's end
    this.#gone.add(child);
    this.#waiters.delete(child);
    if (this.#child === child) {
      this.#child = undefined;
      this.#ready = undefined;
    }
    if (this.#answering.delete(child)) {
      log.warn(
        { launcherPid: child.pid, exitCode: child.exitCode, signal: child.signalCode },
        "the browser launcher exited; a new one starts for the next launch",
      );
    }
    for (const [id, pending] of this.#pending) {
      if (pending.launcher !== child) continue;
      for (const pipe of Object.values(pending.pipes)) pipe.destroy();
      this.#pending.delete(id);
      if (pending.pid !== undefined) {
        signalGroup(pending.pid, "SIGKILL");
        pending.reject(new Error("the browser launcher exited during the launch"));
      } else {
        // No pid came back: the request may never have reached it (its end of the channel can be
        // read before the failed send is reported), or it spawned the browser and died before saying
        // so. That browser would hold this launch's folder, so it goes before the launch is made again.
        void this.#relaunch(pending, log).then(pending.resolve, pending.reject);
      }
    }
    for (const [pid, running] of this.#running) {
      if (running.launcher === child) this.#watchOrphan(pid, running);
    }
  }

  async #relaunch({ request, retry }: Pending, log: Logger): Promise<SpawnedProcess> {
    const strays = groupLeadersStartedWith(request.args);
    for (const stray of strays) signalGroup(stray.pid, "SIGKILL");
    await Promise.all(strays.map((stray) => waitForGroupGone(stray.pid, GROUP_EXIT_WAIT_MS)));
    return retry ? this.spawn(request, log, false) : spawnDirect(request, log);
  }

  #watchOrphan(pid: number, running: Running): void {
    const gone = () => {
      const stat = readProcStat(pid);
      return !isLive(stat) || (running.startTime !== undefined && stat.startTime !== running.startTime);
    };
    const check = () => {
      if (!gone()) return;
      clearInterval(timer);
      if (this.#running.get(pid) === running) this.#running.delete(pid);
      running.resolve({ code: null, signal: null }); // its parent, who alone could know, is gone
    };
    // Not unref()'d: until the exit is seen this process stays up for it, as it did for a child of its own.
    const timer = setInterval(check, ORPHAN_POLL_MS);
    running.cdpOut?.once("close", check);
    check();
  }
}

let launcher: BrowserLauncher | undefined;

/**
 * Spawns a browser's main process detached (its own session and process group), with stderr and fds
 * 3 and 4 piped: through the launcher process, started on first use, or here when it cannot start.
 * Rejects when the process cannot be started.
 */
export function spawnBrowserProcess(request: SpawnRequest, log: Logger): Promise<SpawnedProcess> {
  launcher ??= new BrowserLauncher();
  return launcher.spawn(request, log);
}
