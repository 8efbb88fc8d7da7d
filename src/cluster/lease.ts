// The lease: a node's right to run sessions, for a bounded time, renewed by each heartbeat that the
// database records. A node that cannot renew it before it runs out fences itself: it closes the
// sockets of its sessions (CloseCode.leaseLost, 4503) and kills their browsers, and refuses new CDP
// and live-view connections, until a renewal succeeds again. Peers take a node for dead only after
// `nodeTimeoutSeconds` without a heartbeat, which the configuration requires to exceed the lease
// plus `clockSkewSeconds` (config.ts), so the fenced node has stopped before its sessions are ended
// elsewhere: no session ever runs on two sides of a partition.
//
// Why it holds across clocks: a renewal is timed from the moment it was *sent* on this node's
// monotonic clock, and the database stamps the heartbeat when it *runs* the statement, which is
// later; peers compare that stamp with the database's own clock. So the lease this node believes
// in ends no later than the stamp + lease, and peers wait the stamp + node timeout. The skew margin
// covers what is left: a timer that fires late on a busy node, clocks running at slightly different
// rates, and the time the fence takes to close the browsers.
import { CloseCode } from "../browser/close-codes.ts";
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";

/** What a lease needs of the node it runs on (membership.ts). */
export interface LeaseSite {
  deps: AppDeps;
  log: Logger;
}

/** What a fenced node's clients read (close frame reason, refused handshakes). */
export const fencedMessage = "The node running this session lost contact with the database: its browser was closed and the session is ending.";

export class Lease {
  readonly #site: LeaseSite;
  readonly #leaseMs: number;
  /** performance.now() until which this node may serve (0: never held; no session may run yet). */
  #until = 0;
  #timer: NodeJS.Timeout | undefined;
  #fenced = false;
  /** Called once each time the lease is held again after a fence (the node ends what it left behind). */
  onRegained: (() => void) | undefined;

  constructor(site: LeaseSite, leaseSeconds: number) {
    this.#site = site;
    this.#leaseMs = leaseSeconds * 1000;
  }

  get leaseMs(): number {
    return this.#leaseMs;
  }

  /** Whether this node may serve its sessions now. */
  get held(): boolean {
    return !this.#fenced && performance.now() < this.#until;
  }

  /** True from the lease running out until a renewal succeeds again. */
  get fenced(): boolean {
    return this.#fenced;
  }

  /** How long the lease still holds (ms; 0 when it does not). */
  remainingMs(): number {
    return this.held ? Math.max(0, this.#until - performance.now()) : 0;
  }

  /**
   * Runs a renewal (a heartbeat) that was about to be sent: when it succeeds, the lease holds until
   * `sentAt + lease`. The wait is bounded by what is left of the lease (at least `minWaitMs`), so a
   * statement stuck in TCP retransmits cannot keep the node serving past its lease. Throws when the
   * renewal failed or ran out of time (the lease is then left to run out).
   */
  async renew(write: () => Promise<void>, minWaitMs: number): Promise<void> {
    const sentAt = performance.now();
    const budget = Math.max(minWaitMs, this.#until - sentAt);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not record the heartbeat within ${Math.round(budget)} ms`)), budget);
    });
    try {
      await Promise.race([write(), late]);
    } finally {
      clearTimeout(timer);
    }
    this.#until = sentAt + this.#leaseMs;
    this.#arm();
    if (this.#fenced) {
      this.#fenced = false;
      this.#site.log.warn("lease renewed: this node serves sessions again");
      this.onRegained?.();
    }
  }

  /** Stops watching the lease (the node stops; its sessions end through the usual stop). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#expire(), Math.max(1, Math.ceil(this.#until - performance.now())));
    this.#timer.unref();
  }

  #expire(): void {
    if (this.#fenced) return;
    // Timers run on the event loop's millisecond clock and may fire a hair before `#until`: look again then.
    if (performance.now() < this.#until) return this.#arm();
    this.#fenced = true;
    const { runtime } = this.#site.deps;
    const ids = runtime.ids();
    this.#site.log.error(
      { sessions: ids.length, leaseSeconds: this.#leaseMs / 1000 },
      "lease lost: the database has not recorded a heartbeat in time; closing this node's sessions before peers end them",
    );
    for (const id of ids) void runtime.teardown(id, fencedMessage, CloseCode.leaseLost).catch(() => {});
  }
}
