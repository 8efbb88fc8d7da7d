import os from "node:os";

/**
 * How many warm spares the pool keeps: `warm` always, and more while recent demand needs them, so a
 * burst of creates, or a steady stream faster than one launch at a time can refill, does not wait
 * for launches (issue 24, goal 3).
 *
 * Demand is the most sessions started within any stretch of one spare's launch time (measured,
 * `launchMs`, at least 2 s) over the last `windowMs`: that many spares would have served them all with no create
 * waiting while replacements launch. The target is that peak, at least `warm`, at most `max`, and
 * beyond `warm` only while the machine keeps `reserveBytes` available after `spareBytes` per extra
 * spare (a spare is a whole Chromium). When demand stops, the target falls back to `warm` once the
 * window has passed (the pool closes the extra spares then).
 */
export interface SpareDemandOptions {
  warm: number;
  /** Most spares kept under demand (VESSEL_WARM_POOL_MAX); no more than `warm` when lower. */
  max: number;
  /** How long a start counts as recent demand. Default 3 min: longer than refilling a burst's spares takes on a busy node. */
  windowMs?: number;
  /** Memory one spare takes (default 256 MiB, measured ~150–250 MiB for the headless shell). */
  spareBytes?: number;
  /** Memory left available to everything else whatever the demand (default 1 GiB). */
  reserveBytes?: number;
  availableBytes?: () => number;
  now?: () => number;
}

const DEFAULT_LAUNCH_MS = 1_000;
/**
 * The shortest stretch that counts as one burst: starts sent together reach the pool spread out by
 * the node's own work (each launch's fork holds its thread), and a fast spare launch must not split them.
 */
const MIN_BURST_MS = 2_000;

export class SpareDemand {
  readonly #opts: Required<SpareDemandOptions>;
  /** Start times, oldest first, within the window. */
  readonly #starts: number[] = [];
  #launchMs = DEFAULT_LAUNCH_MS;

  constructor(opts: SpareDemandOptions) {
    this.#opts = {
      windowMs: 180_000,
      spareBytes: 256 * 1024 * 1024,
      reserveBytes: 1024 * 1024 * 1024,
      availableBytes: () => os.freemem(),
      now: () => performance.now(),
      ...opts,
    };
  }

  /** A session took a browser (a spare or a launch). */
  record(): void {
    this.#starts.push(this.#opts.now());
    this.#prune();
  }

  /** A spare took `ms` from launch to ready: the stretch within which starts add up (a moving average). */
  launched(ms: number): void {
    if (Number.isFinite(ms) && ms > 0) this.#launchMs = Math.round(this.#launchMs * 0.7 + ms * 0.3);
  }

  get launchMs(): number {
    return this.#launchMs;
  }

  /** Whether demand is above `warm` now (the pool re-checks the target when the window has passed). */
  get raised(): boolean {
    return this.target() > this.#opts.warm;
  }

  /** Spares to keep now (before the pool's own cap of free slots). */
  target(): number {
    const { warm, max } = this.#opts;
    if (max <= warm) return warm;
    this.#prune();
    const want = Math.min(max, Math.max(warm, this.peak()));
    if (want <= warm) return warm;
    const room = Math.floor((this.#opts.availableBytes() - this.#opts.reserveBytes) / this.#opts.spareBytes);
    return warm + Math.max(0, Math.min(want - warm, room));
  }

  /** The most starts within any stretch of one launch time (at least MIN_BURST_MS), in the window. */
  peak(): number {
    const starts = this.#starts;
    const stretch = Math.max(MIN_BURST_MS, this.#launchMs);
    let best = 0;
    for (let i = 0, j = 0; j < starts.length; j++) {
      while (starts[j]! - starts[i]! >= stretch) i++;
      best = Math.max(best, j - i + 1);
    }
    return best;
  }

  #prune(): void {
    const since = this.#opts.now() - this.#opts.windowMs;
    let n = 0;
    while (n < this.#starts.length && this.#starts[n]! < since) n++;
    if (n > 0) this.#starts.splice(0, n);
  }
}
