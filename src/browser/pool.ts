import { randomBytes } from "node:crypto";
import path from "node:path";
import fs from "node:fs";
import { AppError } from "../kernel/errors.ts";
import type { Logger } from "../logger.ts";
import type { CdpPipe } from "./cdp-pipe.ts";
import { launchChromium, maxDataRootLength, stderrTail, type ChromiumExit, type ChromiumProcess } from "./chromium.ts";
import { reapOrphans } from "./chromium-processes.ts";
import { DownloadGuard, type DownloadNotice } from "./download-guard.ts";
import { openEgressListener } from "./egress-proxy.ts";
import { proxyArgs, type EgressListener, type EgressOptions, type EgressRoute } from "./egress-shared.ts";
import { JAIL_PROXY_PORT, type Isolation } from "./jail.ts";
import { warmUpProfile } from "./warm-up.ts";

/**
 * The browsers of this node: one Chromium process per session (design.md), at most `capacity` of
 * them leased at once, plus up to `warm` launched spares so a session rarely waits for a launch.
 *
 * Accounting rules (every one of them is about not leaking a slot):
 * - A slot is taken synchronously, before the first `await`, by a lease or a launch for a session;
 *   it is given back synchronously too (release, crash, failed launch), before awaiting any close.
 * - Spares do not take slots. They are kept to min(warm, free slots), so spares and leases together
 *   never exceed `capacity` browsers for long (memory is what capacity budgets), and a spare simply
 *   becomes the session's browser.
 * - Spares are refilled one launch at a time in the background; an acquire never waits for that.
 *   A spare is offered once its profile is warmed up (warm-up.ts), so its first page loads as fast
 *   as in a browser that has been running for a while.
 */

export interface BrowserLease {
  /** The browser's id (its folder under dataRoot). */
  id: string;
  sessionId: string;
  /** The browser's pipe: every user (CDP clients, the live view, profiles) opens a channel on it. */
  cdp: CdpPipe;
  pid: number;
  /** Resolves when the browser's main process exits (release, crash, kill). */
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** The session's own folder for downloads (and the only one uploads may come from). */
  downloadsDir: string;
  /** Where the browser's traffic goes (its egress listener's route), when the egress policy is on. */
  egress?: EgressRoute;
  /** The session's downloads, kept in `downloadsDir` and under the cap, when the policy is on. */
  downloads?: DownloadGuard;
  /** Frees the slot at once, then closes the browser and removes its folder. Idempotent. */
  release(): Promise<void>;
  /**
   * Frees the slot and offers the browser as a spare again: for a lease whose session was never
   * started (its creating call turned out to be a replay), so no client has seen the browser.
   */
  unused(): void;
}

export interface BrowserPoolOptions {
  executablePath: string;
  /** A folder owned by this process alone: start() deletes every browser folder in it. */
  dataRoot: string;
  capacity: number;
  warm: number;
  log: Logger;
  /** Sent as Retry-After when the pool is full; default 5. */
  retryAfterSeconds?: number;
  /** Send each browser's traffic through its own egress listener (policy-checked); off only in benchmarks. */
  egress?: Omit<EgressOptions, "log">;
  /** Judge clients' CDP commands by the method policy; default true (off only to test the other isolation layers alone). */
  cdpPolicy?: boolean;
  /** This node's isolation (jail.ts detectIsolation): level "jail" launches every browser jailed. Default none. */
  isolation?: Isolation;
  /** Keep each browser's downloads in its folder and under `maxBytes` (download-guard.ts); with the egress policy. */
  downloads?: { maxBytes: number; onNotice(sessionId: string, notice: DownloadNotice): void };
}

type PoolState = "new" | "starting" | "running" | "stopping" | "stopped";

const MAX_REFILL_BACKOFF_MS = 60_000;
/** Browser ids are 10 hex characters (40 random bits); folders are created exclusively. */
const BROWSER_ID_LENGTH = 10;

/** How long after a spare is taken its replacement starts launching (see #refill). */
const REFILL_DELAY_MS = 250;

/** What the browser pool reports about itself. */
export interface BrowserPoolReport {
  state: "ready" | "unavailable";
  capacity: number;
  inUse: number;
  warm: number;
}

export class BrowserPool {
  readonly #opts: BrowserPoolOptions;
  readonly #log: Logger;
  #state: PoolState = "new";
  #binaryFound = false;
  /** Ready spares, oldest first. */
  readonly #spares: ChromiumProcess[] = [];
  /** Leases by session id. */
  readonly #leases = new Map<string, BrowserLease>();
  /** Session ids whose browser is being launched (each holds a slot). */
  readonly #launching = new Set<string>();
  #spareLaunch: Promise<unknown> | undefined;
  /** Browsers whose death while a spare is watched for (once each, however often they are offered). */
  readonly #watched = new Set<ChromiumProcess>();
  /** Every browser the pool launched and has not closed yet, for stop(). */
  readonly #browsers = new Set<ChromiumProcess>();
  /** Each browser's egress listener (closed after the browser). */
  readonly #egress = new Map<ChromiumProcess, EgressListener>();
  /** Each browser's download guard. */
  readonly #guards = new Map<ChromiumProcess, DownloadGuard>();
  /** Launches in flight (sessions and spares), for stop(). */
  readonly #inflight = new Set<Promise<unknown>>();
  #refillFailures = 0;
  #launches = 0;
  #refillTimer: NodeJS.Timeout | undefined;
  #refillDeferred: NodeJS.Timeout | undefined;
  #stopping: Promise<void> | undefined;

  constructor(opts: BrowserPoolOptions) {
    this.#opts = opts;
    this.#log = opts.log.child({ component: "browser-pool" });
  }

  /** Whether browsers run under the egress and CDP method policy (always, outside benchmarks). */
  get enforcesPolicy(): boolean {
    return this.#opts.egress !== undefined && this.enforcesCdpPolicy;
  }

  /** Whether clients' CDP commands are judged by the method policy (cdp-policy.ts). */
  get enforcesCdpPolicy(): boolean {
    return this.#opts.cdpPolicy !== false;
  }

  /** Whether this node's browsers run jailed (jail.ts), and why not. */
  get isolation(): Isolation {
    return this.#opts.isolation ?? { level: "none", reason: "not configured" };
  }

  /** Kills processes and removes folders left in dataRoot by an earlier run (pid files), then launches the warm spares in the background. */
  async start(): Promise<{ orphansKilled: number; foldersRemoved: number }> {
    if (this.#state !== "new") throw new Error(`the browser pool cannot start twice (state ${this.#state})`);
    this.#state = "starting";
    try {
      const root = path.resolve(this.#opts.dataRoot);
      if (root.length > maxDataRootLength(BROWSER_ID_LENGTH)) {
        throw new Error(`browser data root ${root} is too long for Chromium's socket paths (at most ${maxDataRootLength(BROWSER_ID_LENGTH)} characters)`);
      }
      fs.mkdirSync(this.#opts.dataRoot, { recursive: true, mode: 0o700 });
      const reaped = await reapOrphans(this.#opts.dataRoot, this.#log);
      try {
        fs.accessSync(this.#opts.executablePath, fs.constants.X_OK);
        this.#binaryFound = true;
      } catch {
        this.#log.error({ executablePath: this.#opts.executablePath }, "no Chromium binary: sessions cannot start");
      }
      if (this.#state === "starting") this.#state = "running";
      this.#log.info({ ...reaped, capacity: this.#opts.capacity, warm: this.#opts.warm }, "browser pool started");
      if (process.getuid?.() === 0 && this.isolation.level !== "jail") {
        // Chromium refuses to run as root with its sandbox (a jailed one runs as a plain user inside): say so plainly every start.
        this.#log.warn("running as root: Chromium runs WITHOUT its sandbox; run Vessel as a non-root user in production (README: Browser security)");
      }
      if (!this.#opts.egress) this.#log.warn("the browser policy is off: sessions can reach this machine and its networks");
      if (this.#opts.cdpPolicy === false) this.#log.error("the CDP method policy is OFF: clients may send any command to their browsers (for isolation tests only)");
      this.#refill();
      return reaped;
    } catch (err) {
      if (this.#state === "starting") this.#state = "new";
      throw err;
    }
  }

  /** A browser for a session: a warm spare when there is one (refilled in the background), else a fresh launch. */
  async acquire(sessionId: string): Promise<BrowserLease> {
    if (this.#state !== "running" || !this.#binaryFound) {
      throw new AppError("service-unavailable", "No browser can be started on this node right now.");
    }
    if (this.#leases.has(sessionId) || this.#launching.has(sessionId)) {
      throw new AppError("conflict", `Session ${sessionId} already has a browser.`);
    }
    if (this.#slotsTaken() >= this.#opts.capacity) {
      throw new AppError(
        "insufficient-capacity",
        `All ${this.#opts.capacity} browsers of this node are in use.`,
        {},
        { "Retry-After": String(this.#opts.retryAfterSeconds ?? 5) },
      );
    }

    const fromSpare = this.acquireSpare(sessionId);
    if (fromSpare) return fromSpare;

    this.#launching.add(sessionId);
    let browser: ChromiumProcess;
    try {
      browser = await this.#launch();
    } catch (err) {
      this.#log.error({ err, sessionId }, "could not launch a browser for a session");
      throw new AppError("service-unavailable", "The browser could not be started. Retry later.");
    } finally {
      this.#launching.delete(sessionId);
    }
    if (this.#state !== "running") {
      await browser.close();
      throw new AppError("service-unavailable", "The browser pool is shutting down.");
    }
    const lease = this.#lease(sessionId, browser);
    this.#refill();
    return lease;
  }

  /**
   * A warm spare for a session, or undefined when none is ready or no slot is free: for a caller
   * that has a slower way to go then (acquire's launch, its refusals) and would rather take that.
   */
  acquireSpare(sessionId: string): BrowserLease | undefined {
    if (this.#state !== "running" || this.#leases.has(sessionId) || this.#launching.has(sessionId)) return undefined;
    if (this.#slotsTaken() >= this.#opts.capacity) return undefined;
    const spare = this.#takeSpare();
    if (!spare) return undefined;
    const lease = this.#lease(sessionId, spare);
    this.#refill();
    return lease;
  }

  report(): BrowserPoolReport {
    return {
      state: this.#state === "running" && this.#binaryFound ? "ready" : "unavailable",
      capacity: this.#opts.capacity,
      inUse: this.#slotsTaken(),
      warm: this.#spares.length,
    };
  }

  /** Ends every browser (spares and leases) and waits for them. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#state = "stopping";
    clearTimeout(this.#refillTimer);
    if (this.#refillDeferred) clearTimeout(this.#refillDeferred);
    // Launches in flight finish first: each sees "stopping" and closes its own browser.
    await Promise.allSettled([...this.#inflight]);
    this.#spares.length = 0;
    this.#leases.clear();
    await Promise.allSettled([...this.#browsers].map((b) => b.close()));
    this.#state = "stopped";
    this.#log.info("browser pool stopped");
  }

  #slotsTaken(): number {
    return this.#leases.size + this.#launching.size;
  }

  /** The oldest live spare; dead ones (the exit event may not have arrived yet) are discarded. */
  #takeSpare(): ChromiumProcess | undefined {
    for (let spare = this.#spares.shift(); spare; spare = this.#spares.shift()) {
      if (spare.alive) return spare;
      this.#log.warn({ browserId: spare.id, browserPid: spare.pid }, "discarding a spare browser that died while idle");
      void spare.close();
    }
    return undefined;
  }

  #lease(sessionId: string, browser: ChromiumProcess): BrowserLease {
    const release = (): Promise<void> => {
      // Evict before any await: the slot is free the moment release() is called.
      if (this.#leases.get(sessionId) === lease) {
        this.#leases.delete(sessionId);
        this.#refill();
      }
      return browser.close();
    };
    const unused = (): void => {
      if (this.#leases.get(sessionId) !== lease) return;
      this.#leases.delete(sessionId);
      if (egress) {
        egress.sessionId = undefined;
        egress.upstream = undefined;
      }
      if (downloads) downloads.sessionId = undefined;
      if (this.#state === "running" && browser.alive) this.#offer(browser, true);
      else void browser.close();
      this.#refill();
    };
    const egress = this.#egress.get(browser)?.route;
    if (egress) egress.sessionId = sessionId;
    const downloads = this.#guards.get(browser);
    if (downloads) downloads.sessionId = sessionId;
    const lease: BrowserLease = {
      id: browser.id,
      sessionId,
      cdp: browser.cdp,
      pid: browser.pid,
      exited: browser.exited,
      downloadsDir: path.join(browser.dir, "downloads"),
      ...(egress ? { egress } : {}),
      ...(downloads ? { downloads } : {}),
      release,
      unused,
    };
    this.#leases.set(sessionId, lease);
    void browser.exited.then((exit: ChromiumExit) => {
      if (this.#leases.get(sessionId) !== lease) return; // released: expected
      this.#leases.delete(sessionId);
      this.#log.warn(
        { sessionId, browserId: browser.id, browserPid: browser.pid, ...exit, stderr: stderrTail(browser) },
        "a leased browser exited on its own",
      );
      this.#refill();
    });
    return lease;
  }

  /** How many browsers this pool has launched (spares and sessions), successful or not. */
  get launches(): number {
    return this.#launches;
  }

  /** Launches one browser, tracked so stop() can wait for it and close it. */
  #launch(): Promise<ChromiumProcess> {
    this.#launches++;
    const egressOptions = this.#opts.egress;
    const downloadOptions = this.#opts.downloads;
    const launch = (async () => {
      const id = randomBytes(BROWSER_ID_LENGTH / 2).toString("hex"); // short: see maxDataRootLength
      const jailed = this.#opts.isolation?.level === "jail";
      // A jailed browser has no route to this machine's loopback: its listener is a Unix socket next to
      // its folder (bound into the jail, jail.ts), reached at JAIL_PROXY_PORT on the jail's own loopback.
      const socketPath = jailed ? path.join(path.resolve(this.#opts.dataRoot), `${id}.egress.sock`) : undefined;
      const listener = egressOptions ? await openEgressListener({ ...egressOptions, log: this.#log, ...(socketPath ? { socketPath } : {}) }) : undefined;
      let browser: ChromiumProcess;
      try {
        browser = await launchChromium({
          executablePath: this.#opts.executablePath,
          dataRoot: this.#opts.dataRoot,
          id,
          log: this.#log,
          extraArgs: listener ? proxyArgs(jailed ? JAIL_PROXY_PORT : listener.port) : [],
          // Without an egress listener a jailed browser has no network at all.
          jail: jailed ? { egressSocket: listener?.socketPath } : undefined,
        });
      } catch (err) {
        await listener?.close();
        throw err;
      }
      this.#browsers.add(browser);
      if (listener) this.#egress.set(browser, listener);
      if (downloadOptions) {
        // Before the browser is offered: no client may see it without its download policy.
        try {
          const guard = await DownloadGuard.open(browser.cdp, path.join(browser.dir, "downloads"), downloadOptions.maxBytes, this.#log);
          guard.onNotice = downloadOptions.onNotice;
          this.#guards.set(browser, guard);
        } catch (err) {
          await browser.close();
          await listener?.close();
          this.#browsers.delete(browser);
          this.#egress.delete(browser);
          throw err;
        }
      }
      // Whatever ends the main process (release, crash, kill), the rest of the group and the
      // folder go too; close() is idempotent, so a release racing with this is fine.
      void browser.exited
        .then(() => browser.close())
        .then(() => listener?.close())
        .finally(() => {
          this.#guards.get(browser)?.close();
          this.#guards.delete(browser);
          this.#browsers.delete(browser);
          this.#egress.delete(browser);
        });
      return browser;
    })();
    this.#inflight.add(launch);
    void launch.then(
      () => this.#inflight.delete(launch),
      () => this.#inflight.delete(launch),
    );
    return launch;
  }

  /** Makes a ready browser a spare (the oldest first: one given back goes to the front), watched while it waits. */
  #offer(browser: ChromiumProcess, front = false): void {
    if (front) this.#spares.unshift(browser);
    else this.#spares.push(browser);
    if (this.#watched.has(browser)) return;
    this.#watched.add(browser);
    void browser.exited.then(() => {
      this.#watched.delete(browser);
      const index = this.#spares.indexOf(browser);
      if (index === -1) return; // leased or closed on purpose
      this.#spares.splice(index, 1);
      this.#log.warn({ browserId: browser.id, browserPid: browser.pid, stderr: stderrTail(browser) }, "a spare browser died while idle");
      this.#refill();
    });
  }

  /** How many spares to keep: the configured number, but never more than the free slots. */
  #spareTarget(): number {
    return Math.max(0, Math.min(this.#opts.warm, this.#opts.capacity - this.#slotsTaken()));
  }

  /** Brings the spares to their target: trims extras now, launches missing ones one at a time, in the background. */
  #refill(): void {
    if (this.#state !== "running" || !this.#binaryFound) return;
    while (this.#spares.length > this.#spareTarget()) {
      const extra = this.#spares.pop()!;
      void extra.close();
    }
    // The launch starts a little later: spawn() forks this whole process synchronously (20–45 ms
    // at a few hundred MB), and the session that just took a spare should get its answer and its
    // client's connection through before that freeze.
    this.#refillDeferred ??= setTimeout(() => {
      this.#refillDeferred = undefined;
      this.#launchSpare();
    }, REFILL_DELAY_MS);
  }

  #launchSpare(): void {
    if (this.#state !== "running" || this.#spareLaunch || this.#refillTimer) return;
    if (this.#spares.length >= this.#spareTarget()) return;
    const started = performance.now();
    this.#spareLaunch = this.#launch().then(
      async (browser) => {
        // Before it is offered: a session must not get a browser whose profile is half set up.
        await warmUpProfile(browser.cdp).catch((err: unknown) => {
          if (browser.alive) this.#log.warn({ err, browserId: browser.id }, "could not warm up a spare browser; offering it as it is");
        });
        this.#spareLaunch = undefined;
        this.#refillFailures = 0;
        if (this.#state !== "running") {
          void browser.close();
          return;
        }
        this.#log.debug({ browserId: browser.id, browserPid: browser.pid, ms: Math.round(performance.now() - started) }, "spare browser ready");
        this.#offer(browser);
        this.#refill();
      },
      (err: unknown) => {
        this.#spareLaunch = undefined;
        this.#refillFailures++;
        const delay = Math.min(MAX_REFILL_BACKOFF_MS, 500 * 2 ** (this.#refillFailures - 1));
        this.#log.error({ err, retryInMs: delay }, "could not launch a spare browser");
        if (this.#state !== "running") return;
        this.#refillTimer = setTimeout(() => {
          this.#refillTimer = undefined;
          this.#refill();
        }, delay);
        this.#refillTimer.unref();
      },
    );
  }
}
