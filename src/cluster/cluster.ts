import type { IncomingMessage } from "node:http";
import type { Request, Response } from "express";
import type { ProfileDocument } from "../browser/profiles/format.ts";
import { CloseCode } from "../browser/close-codes.ts";
import { BrowserWatchdog } from "../browser/pool/watchdog.ts";
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";
import type { ClusterHooks } from "../services/sessions/ports.ts";
import type { UpgradeHandler } from "../upgrade.ts";
import { Drain } from "./drain.ts";
import { InternalAuth } from "../peers/internal-auth.ts";
import { Membership } from "./membership.ts";
import { PayloadSeal } from "../peers/payload-seal.ts";
import { PlacedCreates } from "../peers/placed-create.ts";
import { SessionRouter, type SessionOf } from "./routing.ts";
import { captureOnOwner, tellOwner, type OwnerSite } from "./session-owner.ts";

/**
 * This node among its peers (PostgreSQL deployments; with the embedded database there is only one
 * node, and all of this reduces to the browser watchdog). Each concern has its file; this class
 * composes them and is what the services (ClusterHooks), the internal API and the app see:
 *
 * - membership (membership.ts): heartbeats record that the node is alive, its room, and whether it
 *   drains; each one also reaps (reaping.ts): browsers of sessions ended elsewhere are closed, and
 *   the live sessions of a node silent past `nodeTimeoutSeconds` are ended;
 * - placement (services/sessions/placement.ts decides): a create that should not run here runs on
 *   a node with room, through the call `peers` makes (src/peers/placed-create.ts);
 * - routing (routing.ts): a connection for a session that runs elsewhere is relayed to its node;
 * - the session's node (session-owner.ts): a release or keepalive made here reaches the node that
 *   runs the browser, and a profile is captured there;
 * - the lease (lease.ts): renewed by each heartbeat; a node that cannot renew it closes its sessions
 *   before any peer may end them, and refuses their connections until it renews it;
 * - drain (drain.ts): after SIGTERM the node is unready, takes no new sessions, lets running ones
 *   finish, and keeps relaying connections to other nodes' sessions until they end or its deadline.
 */
export class Cluster implements ClusterHooks {
  readonly auth: InternalAuth;
  /** Several nodes may share the database (PostgreSQL); with PGlite this process is the only node. */
  readonly multiNode: boolean;
  readonly #deps: AppDeps;
  readonly #log: Logger;
  readonly #seal: PayloadSeal;
  readonly #watchdog: BrowserWatchdog;
  readonly #membership: Membership;
  readonly #drain: Drain;
  readonly #router: SessionRouter;
  readonly peers: PlacedCreates;

  constructor(deps: AppDeps, opts: { serving: boolean } = { serving: true }) {
    this.#deps = deps;
    this.#log = deps.log.child({ component: "cluster" });
    // A maintenance command (not serving) is no node: it neither registers nor acts for one (deps.ts).
    this.multiNode = deps.db.kind === "postgres" && opts.serving;
    this.auth = new InternalAuth(deps.masterKey.key, deps.nodeId);
    this.#seal = new PayloadSeal(deps.masterKey.key);
    this.peers = new PlacedCreates(this.auth, this.#seal);
    const site = { multiNode: this.multiNode, deps, log: this.#log, nodeTimeoutSeconds: () => this.nodeTimeoutSeconds };
    this.#membership = new Membership({ ...site, draining: () => this.draining });
    this.#router = new SessionRouter({ ...site, auth: this.auth, fenced: () => this.fenced });
    this.#drain = new Drain({ deps, log: this.#log, announce: () => this.#membership.announce(), relays: () => this.#router.relays });
    const { pingSeconds, pingTimeoutSeconds } = deps.config.browser;
    this.#watchdog = new BrowserWatchdog({
      sessions: deps.runtime,
      intervalMs: pingSeconds * 1000,
      timeoutMs: pingTimeoutSeconds * 1000,
      log: deps.log.child({ component: "watchdog" }),
    });
  }

  get draining(): boolean {
    return this.#drain.draining;
  }

  /** This node's lease ran out and has not been renewed since (lease.ts): it serves no session. */
  get fenced(): boolean {
    return this.#membership.lease.fenced;
  }

  get nodeTimeoutSeconds(): number {
    return this.#deps.config.cluster.nodeTimeoutSeconds;
  }

  // -----------------------------------------------------------------------------------------------
  // Sealed payloads (the internal API opens what placement sealed, and seals its answers)

  /** Key that seals what nodes hand each other (captured profiles). */
  get payloadKey(): Buffer {
    return this.#seal.key;
  }

  /** A value sealed for another node (AES-256-GCM under the payload key, bound to `purpose`). */
  sealJson(purpose: string, value: unknown): string {
    return this.#seal.sealJson(purpose, value);
  }

  openJson(purpose: string, sealed: string): unknown {
    return this.#seal.openJson(purpose, sealed);
  }

  // -----------------------------------------------------------------------------------------------
  // Life cycle: start, heartbeats, drain, stop

  /** Registers the node (its row exists from start-up; this refreshes capacity) and starts heartbeats and the watchdog. */
  async start(): Promise<void> {
    await this.#membership.join();
    this.#watchdog.start();
  }

  /** One heartbeat round now (tests; also run on a schedule). */
  tick(): Promise<void> {
    return this.#membership.tick();
  }

  /** Ends the live sessions of dead nodes with node_shutdown. Answers how many this node ended. */
  reapDeadNodes(): Promise<number> {
    return this.#membership.reapDeadNodes();
  }

  /**
   * SIGTERM: unready at once, no new sessions here (creates go to peers, or get 503), and running
   * sessions may go on until they end or `deadlineMs` passes (or {@link cutDrain} is called).
   */
  drain(deadlineMs: number): Promise<void> {
    return this.#drain.drain(deadlineMs);
  }

  /** Ends a drain in progress now (a second signal). */
  cutDrain(): void {
    this.#drain.cut();
  }

  /**
   * Stops heartbeats and the watchdog, closes the relays this node carries (1001, going away, as the
   * session's own node closes the sockets it serves), and tells peers it stopped.
   */
  async stop(): Promise<void> {
    const heartbeatsStopped = this.#membership.stopHeartbeats();
    this.#drain.refuseNew();
    this.#watchdog.stop();
    const relaysClosed = this.#router.closeRelays(CloseCode.goingAway);
    await heartbeatsStopped;
    await relaysClosed;
    await this.#membership.leave();
  }

  // -----------------------------------------------------------------------------------------------
  // What the services ask (ClusterHooks)

  sessionEnded(sessionId: string, message: string): void {
    void tellOwner(this.#ownerSite(), sessionId, "end", { message });
  }

  touch(sessionId: string): void {
    void tellOwner(this.#ownerSite(), sessionId, "touch", {});
  }

  captureElsewhere(sessionId: string, workspaceId: string, baseProfileId: string | null): Promise<{ document: ProfileDocument }> {
    return captureOnOwner(this.#ownerSite(), sessionId, workspaceId, baseProfileId);
  }

  #ownerSite(): OwnerSite {
    return { multiNode: this.multiNode, deps: this.#deps, log: this.#log, auth: this.auth, seal: this.#seal, nodeTimeoutSeconds: this.nodeTimeoutSeconds };
  }

  // -----------------------------------------------------------------------------------------------
  // Connections that landed on the wrong node (routing.ts)

  relayedHere(req: IncomingMessage): boolean {
    return this.#router.relayedHere(req);
  }

  /** Wraps an upgrade handler: connections for sessions that run elsewhere are relayed to their node. */
  routeUpgrade(kind: string, sessionOf: SessionOf, local: UpgradeHandler): UpgradeHandler {
    return this.#router.routeUpgrade(kind, sessionOf, local);
  }

  /** Wraps an HTTP handler the same way (CDP discovery, a session's downloaded file, a file uploaded into it). */
  routeGet(kind: string, sessionOf: SessionOf, local: (req: Request, res: Response) => unknown) {
    return this.#router.routeGet(kind, sessionOf, local);
  }

  /** Connections relayed through this node for other nodes' sessions. */
  get relays(): number {
    return this.#router.relays;
  }
}
