import fs from "node:fs";
import type { Socket } from "node:net";
import path from "node:path";
import type { Logger } from "../../logger.ts";
import { CdpPipe } from "../cdp/pipe/pipe.ts";
import { jailedCommand } from "../jail/jail.ts";
import { handOver, jailUsers, type JailUser } from "../jail/users.ts";
import { GROUP_EXIT_WAIT_MS, BROWSER_ID, readProcStat, isLive, liveGroupMembers, signalGroup, sleep, waitForGroupGone, writePidFile } from "./processes.ts";
import { chromiumArgs, chromiumEnv } from "./command.ts";
import { spawnBrowserProcess } from "./launcher.ts";
import type { ProcessExit, SpawnedProcess } from "./spawned-process.ts";
import type { RelayHost } from "../cdp/relay/host.ts";
import type { BrowserScheduling } from "./scheduling.ts";

/**
 * One Chromium process, launched by us with our flags, in a folder of its own:
 *
 *   <dataRoot>/<id>/pid       JSON { pid, startTime, executablePath }: lets a later run find orphans
 *   <dataRoot>/<id>/profile   --user-data-dir
 *   <dataRoot>/<id>/home      HOME (and cwd); config/, cache/, data/ are XDG_*; tmp/ is TMPDIR
 *
 * Even with --user-data-dir, full Chromium writes `$XDG_CONFIG_HOME/chromium/Crash Reports` and
 * `$XDG_CACHE_HOME/dconf`, and a SIGTERM-ed browser leaves `$TMPDIR/org.chromium.Chromium.*`
 * (research/browser-limits.md, housekeeping). Pointing all of them into the folder means removing
 * the folder removes everything the browser wrote.
 *
 * The process is spawned detached (setsid): it leads its own process group, so one kill(-pid)
 * reaches the zygotes, renderers and utility processes too. It is spawned by the launcher, a small
 * process of its own (launcher.ts), so that the fork does not pause this one.
 */

/** How the main process ended; both null when its launcher died before it and nobody could learn. */
export type ChromiumExit = ProcessExit;

export interface ChromiumProcess {
  /** The folder name under dataRoot. */
  readonly id: string;
  readonly dir: string;
  readonly pid: number;
  /**
   * The browser's only DevTools connection: `--remote-debugging-pipe` (no port is opened), shared
   * by every user of the browser through channels of their own (browser/cdp/pipe/pipe.ts).
   */
  readonly cdp: CdpPipe;
  /** Resolves (never rejects) when the main process has exited, for whatever reason. */
  readonly exited: Promise<ChromiumExit>;
  /** False once the main process has exited or is a zombie. */
  readonly alive: boolean;
  /** Browser.close, then SIGKILL to the group after a grace period; waits; removes the folder. Idempotent. */
  close(): Promise<void>;
}

export interface LaunchOptions {
  executablePath: string;
  dataRoot: string;
  id: string;
  log: Logger;
  /** How long to wait for the browser's first answer on the pipe; default 15 s. */
  launchTimeoutMs?: number;
  /** More flags (the egress proxy's), added before the first page. */
  extraArgs?: string[];
  /**
   * Run the browser in a jail of its own (browser/jail/jail.ts: no view of this machine's files, processes or
   * network), reaching the world only through the egress listener at `egressSocket`.
   */
  jail?: { egressSocket?: string };
  /** How the browser's processes are scheduled next to the node (scheduling.ts); default `normal`. */
  scheduling?: BrowserScheduling;
  /** The process that owns the browser's pipe and relays its CDP clients (browser/cdp/relay/host.ts); unset, this process does. */
  relay?: RelayHost;
}

const LAUNCH_TIMEOUT_MS = 15_000;
/** How long a polite close may take before the group gets SIGKILL. */
const CLOSE_GRACE_MS = 2_000;
const STDERR_TAIL_LINES = 30;

/**
 * Full Chromium puts its process-singleton socket at $TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket
 * and aborts ("Socket path too long") when that exceeds the 107 characters a Unix socket path may
 * have. TMPDIR is <dataRoot>/<id>/tmp, so dataRoot and id must stay short.
 */
const MAX_SOCKET_PATH = 107;
const SINGLETON_SUFFIX = "/org.chromium.Chromium.XXXXXX/SingletonSocket".length;
/** The longest absolute dataRoot that works with ids of `idLength` characters. */
export function maxDataRootLength(idLength: number): number {
  return MAX_SOCKET_PATH - SINGLETON_SUFFIX - "/tmp".length - 1 - idLength;
}

class Chromium implements ChromiumProcess {
  readonly exited: Promise<ChromiumExit>;
  /** Answered the first call on the pipe: launched, and worth a polite Browser.close. */
  ready = false;
  #exit: ChromiumExit | undefined;
  #closing: Promise<void> | undefined;
  readonly #stderrTail: string[] = [];
  #partialLine = "";

  constructor(
    readonly id: string,
    readonly dir: string,
    readonly pid: number,
    readonly child: SpawnedProcess,
    readonly cdp: CdpPipe,
    readonly log: Logger,
    /** The host user its jail runs as, given back once its processes are gone. */
    readonly user?: JailUser,
  ) {
    this.exited = child.exited.then((exit) => (this.#exit = exit));
  }

  get alive(): boolean {
    if (this.#exit) return false;
    return isLive(readProcStat(this.pid));
  }

  /** Keeps the last lines of stderr (for launch errors and crash reports). */
  onStderr(chunk: string): void {
    const lines = (this.#partialLine + chunk).split("\n");
    this.#partialLine = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      this.#stderrTail.push(line);
      if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift();
    }
  }

  stderrTail(): string {
    return [...this.#stderrTail, this.#partialLine].filter(Boolean).join("\n");
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const started = Date.now();
    if (!this.#exit) {
      // Browser.close on the pipe (the browser then exits on its own); SIGTERM when the pipe is gone,
      // or when the browser has not gone halfway through the grace period (it may not read its pipe).
      const asked = this.ready && this.cdp.write(JSON.stringify({ id: 0, method: "Browser.close" }));
      if (!asked) signalGroup(this.pid, "SIGTERM");
      const exited = this.exited.then(() => true);
      if (asked && !(await Promise.race([exited, sleep(CLOSE_GRACE_MS / 2).then(() => false)]))) signalGroup(this.pid, "SIGTERM");
      const grace = Math.max(0, CLOSE_GRACE_MS - (Date.now() - started));
      const polite = await Promise.race([exited, sleep(grace).then(() => false)]);
      if (!polite) {
        this.log.warn({ browserId: this.id, browserPid: this.pid }, "Chromium did not close within the grace period; killing its process group");
        signalGroup(this.pid, "SIGKILL");
        await Promise.race([this.exited, sleep(5_000)]);
      }
    }
    // Children (zygotes, renderers) can outlive the main process for a moment; the group id stays
    // reserved while any of them (even a zombie) exists, so killing it cannot hit a stranger.
    const members = liveGroupMembers(this.pid);
    let gone = true;
    if (members.length > 0) {
      signalGroup(this.pid, "SIGKILL");
      if (!(await waitForGroupGone(this.pid, GROUP_EXIT_WAIT_MS, members))) {
        gone = false;
        this.log.error({ browserId: this.id, browserPid: this.pid }, "Chromium processes survived SIGKILL");
      }
    }
    for (const stream of [this.child.stderr, this.child.cdpIn, this.child.cdpOut]) stream.destroy();
    await fs.promises.rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
    // Never given to another browser while a process of this one may still run as it.
    if (gone) jailUsers().release(this.user);
    this.log.debug({ browserId: this.id, browserPid: this.pid, ms: Date.now() - started }, "Chromium closed");
  }
}

/**
 * Starts one Chromium and resolves once it answers on its pipe. On any failure (no such binary,
 * early exit, no answer within the timeout) the process group is killed, the folder is removed,
 * and the promise rejects.
 */
export async function launchChromium(opts: LaunchOptions): Promise<ChromiumProcess> {
  const { executablePath, dataRoot, id, log } = opts;
  if (!BROWSER_ID.test(id)) throw new Error(`invalid browser id ${JSON.stringify(id)}`);
  const dir = path.join(path.resolve(dataRoot), id);
  if (path.resolve(dataRoot).length > maxDataRootLength(id.length)) {
    throw new Error(
      `browser data root ${path.resolve(dataRoot)} is too long: Chromium's singleton socket path would exceed ${MAX_SOCKET_PATH} characters (use at most ${maxDataRootLength(id.length)})`,
    );
  }
  const started = performance.now();

  // A jailed browser runs as a host user of its own where this process may switch users (browser/jail/users.ts).
  const user = opts.jail ? jailUsers().take() : undefined;
  if (opts.jail && jailUsers().switching && !user) throw new Error("every host uid of the jail users' range is in use (VESSEL_BROWSER_UID)");
  try {
    makeFolder(dir, user, opts.jail?.egressSocket);
  } catch (err) {
    jailUsers().release(user);
    throw err;
  }

  const args = chromiumArgs(executablePath, path.join(dir, "profile"), opts.extraArgs);
  const command = opts.jail ? jailedCommand({ executablePath, args, dir, ...opts.jail }) : { command: executablePath, args };
  // fd 3 carries commands into the browser, fd 4 its answers and events (--remote-debugging-pipe).
  let child: SpawnedProcess;
  try {
    child = await spawnBrowserProcess(
      { ...command, cwd: path.join(dir, "home"), env: chromiumEnv(dir), scheduling: opts.scheduling, ...(user ? { user } : {}) },
      log,
    );
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    jailUsers().release(user);
    throw new Error(`cannot start Chromium at ${executablePath}: ${(err as Error).message}`, { cause: err });
  }

  // With the relay host, the pipe's ends go there, and this process reads and writes its link instead.
  const link = opts.relay
    ? await opts.relay.adopt(child.cdpIn as Socket, child.cdpOut as Socket).catch((err: unknown) => {
        signalGroup(child.pid, "SIGKILL");
        fs.rmSync(dir, { recursive: true, force: true });
        throw new Error(`cannot hand Chromium's pipe to the relay host: ${(err as Error).message}`, { cause: err });
      })
    : undefined;
  const pipe = link ? new CdpPipe(link.socket, link.socket) : new CdpPipe(child.cdpIn, child.cdpOut);
  link?.bind(pipe);
  const browser = new Chromium(id, dir, child.pid, link ? { ...child, cdpIn: link.socket, cdpOut: link.socket } : child, pipe, log, user);
  const startTime = child.startTime ?? readProcStat(child.pid)?.startTime ?? ""; // the launcher read it already
  writePidFile(dir, { pid: child.pid, startTime, executablePath });

  // stderr is drained for the browser's whole life: a full pipe would block Chromium.
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => browser.onStderr(chunk));

  const timeoutMs = opts.launchTimeoutMs ?? LAUNCH_TIMEOUT_MS;
  try {
    const exitedEarly = new Promise<never>((_, reject) => {
      void browser.exited.then(({ code, signal }) => reject(new Error(`Chromium exited during launch (code ${code}, signal ${signal})`)));
    });
    exitedEarly.catch(() => {}); // once launched, an exit is the pool's business
    await Promise.race([
      pipe.call("Browser.getVersion", {}, timeoutMs).catch((err: Error) => {
        throw new Error(`Chromium did not answer on its pipe within ${timeoutMs} ms (${err.message})`);
      }),
      exitedEarly,
    ]);
    browser.ready = true;
  } catch (err) {
    signalGroup(browser.pid, "SIGKILL");
    await browser.close();
    const tail = browser.stderrTail();
    throw new Error(`${(err as Error).message}${tail ? `\n--- Chromium stderr (last lines) ---\n${tail}` : ""}`, { cause: err });
  }
  log.debug({ browserId: id, browserPid: browser.pid, ms: Math.round(performance.now() - started) }, "Chromium launched");
  return browser;
}

/** What Chromium writes to: its own when it runs as a user of its own. */
const BROWSER_WRITES = ["profile", "home", "config", "cache", "data", "tmp", "downloads"];
/**
 * Written by this process alone, read by the browser: uploaded files (browser/jail/jail.ts binds them read-only)
 * and extensions. Owned by this process, so a browser's user can neither write into them nor swap
 * them for links while this process writes there.
 */
const NODE_WRITES = ["uploads", "extensions"];

/**
 * The browser's folder, made fresh (it fails if it exists: never share a folder). With a user of its
 * own: the folder itself and what the node writes stay this process's (0711: the browser's user may
 * pass, not list or rename), what Chromium writes is that user's alone (0700), and so is the socket
 * of its egress listener. Without one, all is this process's, 0700.
 */
function makeFolder(dir: string, user: JailUser | undefined, egressSocket: string | undefined): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  fs.mkdirSync(dir, { mode: user ? 0o711 : 0o700 });
  try {
    for (const sub of BROWSER_WRITES) fs.mkdirSync(path.join(dir, sub), { mode: 0o700 });
    for (const sub of NODE_WRITES) fs.mkdirSync(path.join(dir, sub), { mode: user ? 0o711 : 0o700 });
    handOver([...BROWSER_WRITES.map((sub) => path.join(dir, sub)), ...(egressSocket ? [egressSocket] : [])], user);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The last lines Chromium wrote to stderr (for crash reports). */
export function stderrTail(browser: ChromiumProcess): string {
  return browser instanceof Chromium ? browser.stderrTail() : "";
}
