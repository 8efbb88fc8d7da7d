import type { Logger } from "../../logger.ts";
import { stderrTail, type ChromiumProcess } from "../launch/chromium.ts";
import { BrowserUnavailable, SessionHasBrowser } from "./errors.ts";
import { leaseParts, poolFull, prepareDataRoot, warmUpSpare, warnAboutWeakenedIsolation } from "./pooled-browser.ts";
import { LaunchedBrowsers } from "./launched-browsers.ts";
import { leaseBrowser } from "./lease.ts";
import { RefillWait } from "./refill.ts";
import { SpareDemand } from "./demand.ts";
import { EndingSlots } from "./ending-slots.ts";
import type { Isolation } from "../jail/jail.ts";
import { type BrowserLease, type BrowserPoolOptions, type BrowserPoolReport } from "./types.ts";

type PoolState = "new" | "starting" | "running" | "stopping" | "stopped";

const MAX_REFILL_BACKOFF_MS = 60_000;
/** Spares launched side by side when several are missing (a burst): more only contend for the CPU. */
const SPARE_LAUNCHES = 2;

/**
 * The browsers of this node: one Chromium process per session (design.md), at most `capacity` of
 * them leased at once, plus up to `warm` launched spares so a session rarely waits for a launch.
 *
 * Accounting rules (every one of them is about not leaking a slot):
 * - A slot is taken synchronously, before the first `await`, by a lease or a launch for a session;
 *   it is given back synchronously too (release, crash, failed launch), before awaiting any close.
 * - Spares do not take slots. They are kept to min(target, free slots), so spares and leases together
 *   never exceed `capacity` browsers for long, and a spare simply becomes the session's browser. The
 *   target is `warm`, raised toward `warmMax` by recent demand (demand.ts).
 * - Spares are refilled in the background, up to SPARE_LAUNCHES at a time; an acquire never waits for
 *   that. A spare is offered once warmed up (warm-up.ts), so its first page loads fast.
 */

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
  readonly #ending = new EndingSlots();
  #spareLaunches = 0;
  readonly #demand: SpareDemand;
  #demandTimer: NodeJS.Timeout | undefined;
  /** Browsers whose death while a spare is watched for (once each, however often they are offered). */
  readonly #watched = new Set<ChromiumProcess>();
  /** Every browser launched and not closed yet, and the launches in flight, for stop(). */
  readonly #launched: LaunchedBrowsers;
  #refillFailures = 0;
  #refillTimer: NodeJS.Timeout | undefined;
  /** The wait before the next background launch (#refill). */
  readonly #refillWait: RefillWait;
  #stopping: Promise<void> | undefined;

  constructor(opts: BrowserPoolOptions) {
    this.#opts = opts;
    this.#log = opts.log.child({ component: "browser-pool" });
    this.#launched = new LaunchedBrowsers(opts, this.#log);
    // warm 0 (no spares) stays so; otherwise demand may raise them up to warmMax.
    this.#demand = new SpareDemand({ warm: opts.warm, max: opts.warm > 0 ? (opts.warmMax ?? 0) : 0 });
    this.#refillWait = new RefillWait(opts.quietRefill);
  }

  /** Whether browsers run under the egress and CDP method policy (always, outside benchmarks). */
  get enforcesPolicy(): boolean {
    return this.#opts.egress !== undefined && this.enforcesCdpPolicy;
  }

  /** Whether clients' CDP commands are judged by the method policy (browser/cdp/policy/policy.ts). */
  get enforcesCdpPolicy(): boolean {
    return this.#opts.cdpPolicy !== false;
  }

  /** Whether this node's browsers run jailed (browser/jail/jail.ts), and why not. */
  get isolation(): Isolation {
    return this.#opts.isolation ?? { level: "none", reason: "not configured" };
  }

  /** Kills processes and removes folders left in dataRoot by an earlier run (pid files), then launches the warm spares in the background. */
  async start(): Promise<{ orphansKilled: number; foldersRemoved: number }> {
    if (this.#state !== "new") throw new Error(`the browser pool cannot start twice (state ${this.#state})`);
    this.#state = "starting";
    try {
      const { reaped, binaryFound } = await prepareDataRoot(this.#opts, this.#log);
      this.#binaryFound = binaryFound;
      if (this.#state === "starting") this.#state = "running";
      this.#log.info({ ...reaped, capacity: this.#opts.capacity, warm: this.#opts.warm }, "browser pool started");
      warnAboutWeakenedIsolation(this.#opts, this.isolation.level === "jail", this.#log);
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
      throw new BrowserUnavailable("No browser can be started on this node right now.");
    }
    if (this.#leases.has(sessionId) || this.#launching.has(sessionId)) {
      throw new SessionHasBrowser(sessionId);
    }
    // Full: a session that has ended gives its slot back in a moment (ending-slots.ts).
    const full = () => this.#state === "running" && this.#slotsTaken() >= this.#opts.capacity;
    if (full()) await this.#ending.wait(full);
    if (this.#slotsTaken() >= this.#opts.capacity || this.#state !== "running") throw poolFull(this.#opts);

    const fromSpare = this.acquireSpare(sessionId);
    if (fromSpare) return fromSpare;

    this.#launching.add(sessionId);
    this.#demand.record(); // now, not once launched: a burst's starts are one burst
    let browser: ChromiumProcess;
    try {
      browser = await this.#launched.launch();
    } catch (err) {
      this.#log.error({ err, sessionId }, "could not launch a browser for a session");
      throw new BrowserUnavailable("The browser could not be started. Retry later.");
    } finally {
      this.#launching.delete(sessionId);
    }
    if (this.#state !== "running") {
      await browser.close();
      throw new BrowserUnavailable("The browser pool is shutting down.");
    }
    const lease = this.#lease(sessionId, browser, true);
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
    this.#ending.clear();
    clearTimeout(this.#refillTimer);
    clearTimeout(this.#demandTimer);
    this.#refillWait.cancel();
    // Launches in flight finish first: each sees "stopping" and closes its own browser.
    await this.#launched.settled();
    this.#spares.length = 0;
    this.#leases.clear();
    await this.#launched.closeAll();
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

  #lease(sessionId: string, browser: ChromiumProcess, recorded = false): BrowserLease {
    if (!recorded) this.#demand.record();
    const lease = leaseBrowser(sessionId, browser, leaseParts(this.#launched.partsOf(browser)), {
      holds: (l) => this.#leases.get(sessionId) === l,
      free: () => (this.#leases.delete(sessionId), this.#ending.freed(sessionId)),
      ending: () => this.#ending.mark(sessionId),
      refill: () => this.#refill(),
      giveBack: (b) => (this.#state === "running" && b.alive ? this.#offer(b, true) : void b.close()),
      log: this.#log,
    });
    this.#leases.set(sessionId, lease);
    return lease;
  }

  /** How many browsers this pool has launched (spares and sessions), successful or not. */
  get launches(): number {
    return this.#launched.launches;
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

  /** How many spares to keep: what demand asks for (demand.ts), but never more than the free slots. */
  #spareTarget(): number {
    return Math.max(0, Math.min(this.#demand.target(), this.#opts.capacity - this.#slotsTaken()));
  }

  /** Brings the spares to their target: trims extras now, launches missing ones one at a time, in the background. */
  #refill(): void {
    if (this.#state !== "running" || !this.#binaryFound) return;
    while (this.#spares.length > this.#spareTarget()) void this.#spares.pop()!.close();
    // Raised by demand: looked at again once that demand has left the window, to close the extras.
    if (this.#demand.raised && !this.#demandTimer) {
      this.#demandTimer = setTimeout(() => ((this.#demandTimer = undefined), this.#refill()), 15_000).unref();
    }
    if (this.#spares.length + this.#spareLaunches >= this.#spareTarget()) return;
    // Later, out of the way of the session that just took a spare; while a spare is still ready and
    // no burst is on, nobody waits for this one: it waits for quiet CPUs (refill.ts).
    this.#refillWait.arm(this.#spares.length > 0 && !this.#demand.raised, () => this.#launchSpare());
  }

  #launchSpare(): void {
    if (this.#state !== "running" || this.#refillTimer || this.#spareLaunches >= SPARE_LAUNCHES) return;
    if (this.#spares.length + this.#spareLaunches >= this.#spareTarget()) return;
    const started = performance.now();
    this.#spareLaunches++;
    // Another one beside it when more are missing (a burst).
    queueMicrotask(() => this.#launchSpare());
    void this.#launched.launch().then(
      async (browser) => {
        await warmUpSpare(browser, this.#log);
        this.#spareLaunches--;
        this.#refillFailures = 0;
        this.#demand.launched(performance.now() - started);
        if (this.#state !== "running") return void browser.close();
        this.#log.debug({ browserId: browser.id, browserPid: browser.pid, ms: Math.round(performance.now() - started) }, "spare browser ready");
        this.#offer(browser);
        this.#refill();
      },
      (err: unknown) => {
        this.#spareLaunches--;
        this.#refillFailures++;
        const delay = Math.min(MAX_REFILL_BACKOFF_MS, 500 * 2 ** (this.#refillFailures - 1));
        this.#log.error({ err, retryInMs: delay }, "could not launch a spare browser");
        if (this.#state !== "running") return;
        this.#refillTimer = setTimeout(() => ((this.#refillTimer = undefined), this.#refill()), delay).unref();
      },
    );
  }
}
