// Every node's part of the admission queue: it takes the next session in the fair order whenever its
// own pool has a free browser, and sweeps the queue for timeouts and claims left behind.
import type { AppDeps, ServiceContext } from "../../../kernel/context.ts";
import { executeStatement } from "../../../kernel/support.ts";
import { endSession } from "../sessions.ts";
import { startClaimed } from "./queue-start.ts";
import { claimNext, dropEndedEntries, expiredQueued, queueWork, requeueStatement } from "./queue-sql.ts";

/** Pub/sub channel: someone was queued (on any node); nodes with a free browser look. */
export const queueWakeChannel = "queue:wake";

/** How often this node looks at its own pool while sessions wait (in memory: no database work). */
const POLL_MS = 100;
/** How often this node reads the queue itself: timeouts, claims left behind, and any wake-up that was lost. */
const SWEEP_MS = 1000;
/** A claim older than this has lost its node (a start takes seconds at most, a launch with extensions included). */
const STALE_CLAIM_MS = 120_000;

/**
 * No wake-up is lost (docs/decisions/0300): `waiting` is this node's belief that someone waits. An
 * enqueue anywhere says so (pub/sub), and so does every sweep that finds someone; only a claim that
 * finds nothing it may start clears it. While it holds, a browser freeing here (its pool polled in
 * memory) is taken at once.
 */
export class AdmissionQueue {
  #waiting = true;
  /** The take under way, if any (one at a time). */
  #taking: Promise<void> | undefined;
  #timers: NodeJS.Timeout[] = [];
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  #sweeping: Promise<void> | undefined;

  constructor(private readonly deps: AppDeps) {}

  /**
   * Claims this node left mid-start (it stopped or crashed) go back to waiting, keeping their places:
   * before the node ends the sessions it left behind (endOrphans), which would end them too.
   */
  async recover(): Promise<void> {
    await executeStatement(this.deps.db, requeueStatement({ nodeId: this.deps.nodeId }));
  }

  /** Listens for wake-ups, polls its pool and sweeps. */
  start(): void {
    this.#unsubscribe = this.deps.pubsub.subscribe(queueWakeChannel, () => this.#wake());
    this.#timers.push(setInterval(() => this.#poll(), POLL_MS).unref());
    this.#timers.push(setInterval(() => void this.sweep(), SWEEP_MS).unref());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    this.#unsubscribe?.();
    await this.#sweeping;
  }

  /** Someone was queued: every node hears it. */
  wake(): void {
    this.#wake();
    void this.deps.pubsub.publish(queueWakeChannel, "1");
  }

  #wake(): void {
    this.#waiting = true;
    this.#poll();
  }

  #freeHere(): boolean {
    const { browsers, cluster } = this.deps;
    const r = browsers.report();
    return !this.#stopped && !cluster?.draining && r.state === "ready" && r.inUse < r.capacity;
  }

  #poll(): void {
    if (this.#waiting && !this.#taking && this.#freeHere())
      this.#taking = this.#take().finally(() => {
        this.#taking = undefined;
      });
  }

  /**
   * Waiters first (docs/decisions/0300): a create about to take a browser here lets this node start
   * whoever it may start from the queue first, so a create that did not wait in line cannot take the
   * browser a waiting session is owed. Resolves once this node has no free browser or no one it may
   * start (the claim says: region, deadline, workspace cap); costs nothing while no one waits. True
   * when someone may still wait and no browser is free: the create must not wait for one to free (the
   * pool hands an ending session's slot to whoever waits in acquire), it is theirs.
   */
  async waitersFirst(): Promise<boolean> {
    for (let turn = 0; turn < 2 && this.#waiting && this.#freeHere(); turn++) {
      this.#poll();
      await this.#taking;
    }
    return this.#waiting && !this.#freeHere();
  }

  /** Takes and starts sessions while this node has a free browser and someone it may start waits. */
  async #take(): Promise<void> {
    const { deps } = this;
    const ctx: ServiceContext = { deps, requestId: "admission-queue", log: deps.log.child({ component: "queue" }), principal: null, ip: null };
    try {
      while (this.#freeHere()) {
        const id = await claimNext(deps.db, {
          id: deps.nodeId,
          regions: [deps.config.nodeRegion],
          defaultCap: deps.config.workspaceMaxSessions ?? null,
          now: deps.now(),
        });
        if (!id) {
          this.#waiting = false;
          break;
        }
        // Started one after the other: each takes its browser before the next claim counts the pool.
        const outcome = await startClaimed(deps, ctx, id);
        if (outcome === "no-browser") break;
      }
    } catch (err) {
      deps.log.warn({ err }, "the admission queue could not start a session; the next sweep retries");
    }
  }

  /** Timeouts, claims left behind, entries of ended sessions; and whether anyone waits (a lost wake-up found). */
  sweep(): Promise<void> {
    if (this.#stopped || this.#sweeping) return this.#sweeping ?? Promise.resolve();
    this.#sweeping = this.#sweep()
      .catch((err: unknown) => this.deps.log.warn({ err }, "admission queue sweep failed"))
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS);
    const work = await queueWork(deps.db, now, staleBefore);
    if (work.expired > 0) {
      for (const id of await expiredQueued(deps.db, now)) await endSession(deps, id, { status: "TIMED_OUT", reason: "QUEUE_TIMEOUT" });
    }
    if (work.stale > 0) await executeStatement(deps.db, requeueStatement({ before: staleBefore }));
    if (work.waiting > 0) await executeStatement(deps.db, dropEndedEntries);
    if (work.waiting > work.expired || work.stale > 0) this.#wake();
  }
}
