import type { Logger } from "../../logger.ts";
import type { BrowserLease } from "./types.ts";

/**
 * Finds browsers that still run but no longer answer (a wedged main thread, a stopped process):
 * such a browser never exits, so the crash handling never sees it, and its session would hang until
 * its hard end. Every `intervalMs` each session's browser gets `Browser.getVersion` on its pipe
 * (outside every client's channel: clients see nothing of it). A browser that has sent nothing on
 * its pipe for `timeoutMs` while a ping waits is killed with its whole process group; its exit then fails the session with `browser_crash` like any crash, so a
 * hung browser costs its session at most about interval + timeout.
 */

export interface WatchdogOptions {
  /** The sessions to watch: their ids and their browsers (the node's SessionRuntime). */
  sessions: { ids(): string[]; endpoint(id: string): BrowserLease | undefined };
  intervalMs: number;
  timeoutMs: number;
  log: Logger;
  /** How an unresponsive browser is ended; default SIGKILL to its process group. */
  kill?: (lease: BrowserLease) => void;
}

class Probe {
  readonly #lease: BrowserLease;
  #askedAt: number | undefined;

  constructor(lease: BrowserLease) {
    this.#lease = lease;
  }

  get lease(): BrowserLease {
    return this.#lease;
  }

  /**
   * Sends one ping (when the last one was answered) and answers how long the browser has been
   * silent: since the pipe last carried anything from it, or since the unanswered ping was sent.
   */
  ping(): number {
    const pipe = this.#lease.cdp;
    const now = performance.now();
    if (this.#askedAt === undefined) {
      this.#askedAt = now;
      pipe.call("Browser.getVersion", {}, 24 * 3600_000).then(
        () => (this.#askedAt = undefined),
        () => {}, // the pipe closed: the browser's exit ends the session
      );
    }
    return now - Math.max(pipe.lastMessageAt, this.#askedAt);
  }

  close(): void {}
}

export class BrowserWatchdog {
  readonly #opts: WatchdogOptions;
  readonly #probes = new Map<string, Probe>();
  #timer: NodeJS.Timeout | undefined;
  #lastCheck = performance.now();

  constructor(opts: WatchdogOptions) {
    this.#opts = opts;
  }

  start(): void {
    if (this.#timer || this.#opts.intervalMs <= 0) return;
    this.#timer = setInterval(() => this.check(), this.#opts.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const probe of this.#probes.values()) probe.close();
    this.#probes.clear();
  }

  /** One round: pings every running session's browser and kills those silent for too long. */
  check(): void {
    // After this process itself stalled, answers may be waiting unread: judge no one this round.
    const now = performance.now();
    const judge = now - this.#lastCheck < 2 * this.#opts.intervalMs + 1_000;
    this.#lastCheck = now;
    const ids = new Set(this.#opts.sessions.ids());
    for (const [id, probe] of this.#probes) {
      if (!ids.has(id) || this.#opts.sessions.endpoint(id) !== probe.lease) {
        probe.close();
        this.#probes.delete(id);
      }
    }
    for (const id of ids) {
      const lease = this.#opts.sessions.endpoint(id);
      if (!lease) continue;
      let probe = this.#probes.get(id);
      if (!probe) {
        probe = new Probe(lease);
        this.#probes.set(id, probe);
      }
      const silentMs = probe.ping();
      if (judge && silentMs > this.#opts.timeoutMs) {
        this.#opts.log.error(
          { sessionId: id, browserPid: lease.pid, silentMs: Math.round(silentMs) },
          "a browser stopped answering; killing it (its session fails with browser_crash)",
        );
        probe.close();
        this.#probes.delete(id);
        (this.#opts.kill ?? killGroup)(lease);
      }
    }
  }
}

function killGroup(lease: BrowserLease): void {
  try {
    process.kill(-lease.pid, "SIGKILL");
  } catch {
    try {
      process.kill(lease.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
