import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "../../../logger.ts";
import { RelayLink, send } from "../pipe/relay-link.ts";

/**
 * One relay host process, seen from the node (host.ts keeps the node's set of them): a
 * process of its own that owns its browsers' pipes and relays their sessions' CDP clients
 * (host-process.ts). Why: on the node's main thread a client's message waited behind
 * whatever else that thread was doing (the API, GraphQL, the embedded database's statements):
 * under a steady API load a round trip took 10–20× one straight to Chromium
 * (docs/performance.md). In the host nothing else runs.
 *
 * The node keeps everything else: it launches the browsers and hands their pipe ends over as they
 * start; it authorises each client's handshake and hands the socket over unanswered; its own users
 * of a browser (live view, logs, profiles, downloads, recorder, watchdog) speak to the browser
 * over a link to the host that carries the pipe's own protocol, so their CdpPipe is unchanged.
 * A socket crosses with its file descriptor (subprocess.send with a handle): no byte of a client
 * passes through the node after its handshake.
 */

/** How long the host may take to start before browsers stay in the node (VESSEL_CDP_RELAY=inline). */
const START_TIMEOUT_MS = 15_000;
const HOST_SCRIPT = path.join(import.meta.dirname, "host-process.ts");
// tsx's loader for the host's TypeScript (the `.` export of tsx, what `node --import tsx` loads).
const TSX_LOADER = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")).href;

/** The host's folder (`<tmp>/vessel-relay-XXXXXX`, host-process.ts) holding `socketPath`; undefined for a path anywhere else. */
export function relayFolder(socketPath: string): string | undefined {
  const folder = path.dirname(path.resolve(socketPath));
  return path.dirname(folder) === path.resolve(os.tmpdir()) && /^vessel-relay-[A-Za-z0-9]{6}$/.test(path.basename(folder)) ? folder : undefined;
}

export class RelayHostChild {
  #child: ChildProcess | undefined;
  #ready: Promise<{ child: ChildProcess; socketPath: string } | undefined> | undefined;
  /** It could not start: browsers stay in the node (only one warning is logged). */
  #unusableSeen = false;
  #socketPath: string | undefined;

  /** Browsers adopted (or being adopted) and not gone: the node gives the next one to the host with fewest. */
  #browsers = 0;

  constructor(private readonly log: Logger) {}

  get browsers(): number {
    return this.#browsers;
  }

  /** False once it could not start (its browsers would stay in the node). */
  get usable(): boolean {
    return !this.#unusableSeen;
  }

  /**
   * Hands a launched browser's pipe ends (fd 3 into it, fd 4 out of it) to the host and answers the
   * node's link to them; undefined when the host cannot run (the ends stay here, nothing was sent).
   */
  async adopt(cdpIn: net.Socket, cdpOut: net.Socket): Promise<RelayLink | undefined> {
    // Counted before the first await: browsers adopted together spread over the hosts.
    this.#browsers++;
    let link: RelayLink | undefined;
    try {
      link = await this.#adopt(cdpIn, cdpOut);
      return link;
    } finally {
      if (link) link.socket.once("close", () => this.#browsers--);
      else this.#browsers--;
    }
  }

  async #adopt(cdpIn: net.Socket, cdpOut: net.Socket): Promise<RelayLink | undefined> {
    const host = await this.#start();
    if (!host) return undefined;
    const key = randomBytes(32).toString("hex");
    // Nothing may be read here first: what the node read would never reach the host.
    (cdpOut as unknown as { _handle?: { readStop?(): void } })._handle?.readStop?.();
    await send(host.child, { op: "pipe", key, fd: 3 }, cdpIn);
    await send(host.child, { op: "pipe", key, fd: 4 }, cdpOut);
    const socket = net.connect(host.socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    socket.write(JSON.stringify({ vessel: "hello", key }) + "\0");
    return new RelayLink(host.child, key, socket, this.log);
  }

  #start(): Promise<{ child: ChildProcess; socketPath: string } | undefined> {
    this.#ready ??= this.#fork();
    return this.#ready;
  }

  #fork(): Promise<{ child: ChildProcess; socketPath: string } | undefined> {
    let child: ChildProcess;
    try {
      const { NODE_OPTIONS: _, ...env } = process.env;
      child = fork(HOST_SCRIPT, [], { execArgv: ["--import", TSX_LOADER], env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    } catch (err) {
      return Promise.resolve(this.#unusable(err));
    }
    this.#child = child;
    child.unref();
    child.channel?.unref();
    let socketPath: string | undefined;
    const gone = () => {
      // Its folder (the link's socket) goes with it; a host killed outright cannot remove it itself.
      const folder = socketPath && relayFolder(socketPath);
      if (folder) fs.rmSync(folder, { recursive: true, force: true });
      if (this.#child !== child) return;
      this.#child = undefined;
      this.#ready = undefined; // the next browser starts a new host
      this.log.warn(
        { relayPid: child.pid, exitCode: child.exitCode, signal: child.signalCode },
        "the CDP relay host exited; its browsers' sessions end, and the next browser starts a new one",
      );
    };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(this.#unusable(new Error("the relay host did not start in time")));
      }, START_TIMEOUT_MS);
      timer.unref();
      child.on("message", (message: { ready?: boolean; socketPath?: string }) => {
        // Once, and only a socket in a folder of the host's own kind: the node removes that folder
        // when the host goes, and the host (which reads every client's CDP) must not name another.
        if (socketPath || !message?.ready || typeof message.socketPath !== "string" || !relayFolder(message.socketPath)) return;
        socketPath = this.#socketPath = message.socketPath;
        clearTimeout(timer);
        resolve({ child, socketPath: message.socketPath });
      });
      child.on("error", (err) => {
        clearTimeout(timer);
        resolve(this.#unusable(err));
      });
      child.once("exit", () => {
        clearTimeout(timer);
        resolve(undefined);
        gone();
      });
    });
  }

  #unusable(err: unknown): undefined {
    if (!this.#unusableSeen) this.log.warn({ err }, "cannot start the CDP relay host: CDP clients are relayed by the node's main thread");
    this.#unusableSeen = true;
    this.#ready = Promise.resolve(undefined);
    return undefined;
  }

  /** The host's pid while it runs (the benches read its CPU time). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Where the running host listens for the node's links (tests and diagnostics). */
  get socketPath(): string | undefined {
    return this.#child ? this.#socketPath : undefined;
  }

  /** Ends the host (tests; the node's exit ends it anyway). */
  stop(): void {
    this.#child?.kill("SIGKILL");
  }
}
