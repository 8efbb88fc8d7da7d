// Membership: this node's row in the node registry (src/services/nodes/nodes.ts), refreshed by a
// heartbeat every `heartbeatSeconds` with its capacity, free slots and whether it drains. Each
// heartbeat renews the node's lease (lease.ts): a node that cannot record one in time stops serving
// its sessions before its peers may end them. Each heartbeat also does the node's share of keeping
// the cluster consistent (reaping.ts): it closes browsers whose session another node ended and ends
// the sessions of nodes that went silent.
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";
import { heartbeat, markStopped, pruneNodes, registerNode, type NodeState } from "../services/nodes/nodes.ts";
import { Lease } from "./lease.ts";
import { closeBrowsersOfEndedSessions, endSessionsLostHere, endSessionsOfDeadNodes } from "./reaping.ts";

/** Rows of nodes silent this long, with no live session, are deleted (pod names come and go). */
const STALE_NODE_RETENTION_DAYS = 7;
const PRUNE_EVERY_MS = 3_600_000;

/** What membership needs of the node it runs on (cluster.ts). */
export interface MembershipSite {
  multiNode: boolean;
  deps: AppDeps;
  log: Logger;
  nodeTimeoutSeconds(): number;
  draining(): boolean;
}

export class Membership {
  readonly #site: MembershipSite;
  #timer: NodeJS.Timeout | undefined;
  #overdue: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  /** When the last heartbeat failed (performance.now()); reaping waits a node timeout after it. */
  #lastFailure = Number.NEGATIVE_INFINITY;
  #lastPrune = Number.NEGATIVE_INFINITY;
  #down = false;
  #joined = false;
  readonly lease: Lease;

  constructor(site: MembershipSite) {
    this.#site = site;
    this.lease = new Lease(site, site.deps.config.cluster.leaseSeconds);
    // Browsers closed by the fence left their sessions live in the database (it could not be
    // reached): once it can, this node ends them itself rather than waiting for a peer.
    this.lease.onRegained = () => {
      void endSessionsLostHere(site.deps, site.log).catch((err: unknown) => site.log.warn({ err }, "could not end the sessions the fence closed"));
    };
  }

  /** The longest a renewal may wait for the database when the lease no longer covers it. */
  #minRenewWaitMs(): number {
    return this.lease.leaseMs / 2;
  }

  /** What this node tells its peers about itself. */
  state(): NodeState {
    const { config, nodeId, browsers } = this.#site.deps;
    const draining = this.#site.draining();
    const pool = browsers.report();
    const free = draining || pool.state !== "ready" ? 0 : Math.max(0, pool.capacity - pool.inUse);
    return { id: nodeId, internalUrl: config.internalUrl, region: config.nodeRegion, capacity: pool.capacity, freeSlots: free, draining };
  }

  /** Registers the node (its row exists from start-up; this refreshes capacity) and starts heartbeats. */
  async join(): Promise<void> {
    if (!this.#site.multiNode) return;
    // At start-up the database may be slow to answer a first connection: the whole lease, at least 5 s.
    await this.lease.renew(() => registerNode(this.#site.deps.db.prisma, this.state()), Math.max(this.lease.leaseMs, 5_000));
    this.#joined = true;
    this.#armOverdueWarning();
    this.#schedule();
  }

  /** Records this node's state now, outside the schedule (a drain starts); a failure waits for the next heartbeat. */
  async announce(): Promise<void> {
    if (this.#site.multiNode) await heartbeat(this.#site.deps.db.prisma, this.state()).catch(() => {});
  }

  /** One heartbeat round now (tests; also run on a schedule). */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  /** Ends the live sessions of dead nodes with node_shutdown. Answers how many this node ended. */
  reapDeadNodes(): Promise<number> {
    return endSessionsOfDeadNodes(this.#site.deps, this.#site.log, this.#site.nodeTimeoutSeconds());
  }

  /** No more heartbeats: resolves once a round under way has finished. */
  stopHeartbeats(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#overdue);
    this.lease.stop();
    return this.#ticking ?? Promise.resolve();
  }

  /** A clean stop: peers stop sending work here at once instead of waiting for the heartbeat to age. */
  async leave(): Promise<void> {
    // Only a node that registered marks itself stopped (never a process that merely shares its id).
    if (this.#site.multiNode && this.#joined) await markStopped(this.#site.deps.db.prisma, this.#site.deps.nodeId).catch(() => {});
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.tick().finally(() => this.#schedule());
    }, this.#site.deps.config.cluster.heartbeatSeconds * 1000);
    this.#timer.unref();
  }

  /**
   * Armed by every recorded heartbeat: when no other is recorded within two heartbeats after the
   * next one was due, that is said at once (the lease may be next). Not tied to one write: a round
   * can also be held up by the statements after its heartbeat (reaping.ts), and then no next
   * heartbeat is even sent.
   */
  #armOverdueWarning(): void {
    clearTimeout(this.#overdue);
    if (!this.#joined || this.#stopped) return;
    const everyMs = this.#site.deps.config.cluster.heartbeatSeconds * 1000;
    const afterMs = Math.max(1_000, 2 * everyMs);
    const recordedAt = performance.now();
    this.#overdue = setTimeout(() => {
      this.#site.log.warn(
        { sinceLastMs: Math.round(performance.now() - recordedAt), leaseLeftMs: Math.round(this.lease.remainingMs()) },
        "the database has not answered a heartbeat yet; this node stops serving its sessions if its lease runs out",
      );
    }, everyMs + afterMs);
    this.#overdue.unref();
  }

  async #tick(): Promise<void> {
    const { deps, log } = this.#site;
    try {
      // Bounded by the lease: a statement stuck in TCP retransmits must not keep this node serving.
      const write = () => heartbeat(deps.db.prisma, this.state());
      // A node that never joined (no browsers: tests drive its heartbeats) holds no lease to lose.
      await (this.#joined ? this.lease.renew(write, this.#minRenewWaitMs()) : write());
      this.#armOverdueWarning();
      if (this.#down) log.info("heartbeats recorded again");
      this.#down = false;
    } catch (err) {
      this.#lastFailure = performance.now();
      if (!this.#down) {
        log.warn(
          { err: (err as Error).message, leaseLeftMs: Math.round(this.lease.remainingMs()) },
          "could not record a heartbeat; the database may be unreachable (this node stops serving its sessions when its lease runs out)",
        );
      }
      this.#down = true;
      return;
    }
    await closeBrowsersOfEndedSessions(deps, log).catch((err: unknown) => log.warn({ err }, "could not compare running browsers with the database"));
    // After an outage every node's heartbeat looks old: wait one node timeout, so that only nodes
    // that stayed silent while this one could write are taken for dead.
    if (performance.now() - this.#lastFailure >= this.#site.nodeTimeoutSeconds() * 1000 && !this.#stopped) {
      await this.reapDeadNodes().catch((err: unknown) => log.warn({ err }, "could not end the sessions of dead nodes"));
    }
    if (performance.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = performance.now();
      await pruneNodes(deps.db.prisma, STALE_NODE_RETENTION_DAYS).catch(() => {});
    }
  }
}
