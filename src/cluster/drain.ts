// Drain: after SIGTERM the node is unready at once and takes no new sessions (creates go to peers,
// or get 503: services/sessions/placement.ts), while the sessions it runs may go on until they end or a deadline.
// So may the connections it relays to sessions on other nodes (routing.ts): a client reached this
// node through the public address, its session is healthy elsewhere, and cutting the relay would
// cut the client although nothing is wrong with its session. They end with their session (its node
// closes them) or at the deadline.
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";

/** What a drain needs of the node it runs on (cluster.ts). */
export interface DrainSite {
  deps: AppDeps;
  log: Logger;
  /** Tells the peers at once that this node drains (a heartbeat outside the schedule). */
  announce(): Promise<void>;
  /** Connections this node relays to other nodes' sessions. */
  relays(): number;
}

/** How often a drain looks whether the last session has ended. */
const POLL_MS = 250;

export class Drain {
  readonly #site: DrainSite;
  #draining = false;
  #cut: (() => void) | undefined;

  constructor(site: DrainSite) {
    this.#site = site;
  }

  /** True from SIGTERM (or stop) on. */
  get draining(): boolean {
    return this.#draining;
  }

  /** A stop without a drain (the node closes): from now on it takes nothing new either. */
  refuseNew(): void {
    this.#draining = true;
  }

  /**
   * Waits until no session runs here, no connection is relayed through here and the recordings are
   * stored, `deadlineMs` passes or {@link cut} is called.
   */
  async drain(deadlineMs: number): Promise<void> {
    const { runtime } = this.#site.deps;
    if (!this.#draining) {
      this.#draining = true;
      this.#site.log.info(
        { sessions: runtime.ids().length, relayed: this.#site.relays(), deadlineSeconds: deadlineMs / 1000 },
        "draining: no new sessions; running ones, and connections relayed to other nodes' sessions, may finish",
      );
      await this.#site.announce();
    }
    const until = performance.now() + deadlineMs;
    let cut = false;
    const cutPromise = new Promise<void>((resolve) => {
      this.#cut = () => {
        cut = true;
        resolve();
      };
    });
    while ((runtime.ids().length > 0 || this.#site.relays() > 0) && performance.now() < until && !cut) {
      await Promise.race([new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, until - performance.now())))), cutPromise]);
    }
    // The recordings of sessions that ended here are finished after their end: stopping now would lose them.
    const { recordings } = this.#site.deps;
    if (recordings.pending > 0 && !cut) {
      this.#site.log.info({ recordings: recordings.pending }, "draining: storing the recordings of sessions that ended");
      await Promise.race([recordings.settled(until), cutPromise]);
    }
    this.#cut = undefined;
    const left = runtime.ids().length;
    const relayed = this.#site.relays();
    this.#site.log.info(
      { sessionsLeft: left, relayedLeft: relayed },
      left + relayed > 0 ? "drain deadline reached; ending what is left" : "drained: no session left",
    );
  }

  /** Ends a drain in progress now (a second signal). */
  cut(): void {
    this.#cut?.();
  }
}
