import type { IncomingMessage } from "node:http";
import type { Request, Response } from "express";
import { BrowserWatchdog } from "../browser/watchdog.ts";
import { open as openSealed, seal as sealEnvelope } from "../crypto/envelope.ts";
import { AppError } from "../kernel/errors.ts";
import { parseProfileDocument } from "../browser/profile-format.ts";
import type { Logger } from "../logger.ts";
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import type { ClusterHooks } from "../services/sessions/ports.ts";
import type { Idempotent } from "../kernel/idempotency.ts";
import { heartbeat, markStopped, nodeOfSession, pruneNodes, registerNode, type NodeInfo, type NodeState } from "../services/nodes/nodes.ts";
import type { CreateSessionInput } from "../services/sessions/sessions.ts";
import { type SessionView } from "../services/sessions/session-view.ts";
import type { UpgradeHandler } from "../upgrade.ts";
import { problemFromPeer } from "./peers.ts";
import { placeCreate, type PlacementSite } from "./placement.ts";
import { closeBrowsersOfEndedSessions, endSessionsOfDeadNodes } from "./reaping.ts";
import { SessionRouter, type SessionOf } from "./routing.ts";
import { deriveInternalKey, InternalAuth } from "./internal-auth.ts";

/**
 * This node among its peers (PostgreSQL deployments; with the embedded database there is only one
 * node, and all of this reduces to the browser watchdog):
 *
 * - heartbeats: every `heartbeatSeconds` the node records that it is alive, its capacity and free
 *   slots and whether it drains (src/services/nodes/nodes.ts);
 * - placement (placement.ts): a create that should not run here runs on a node with room;
 * - routing (routing.ts): a connection for a session that runs elsewhere is relayed to its node;
 * - the owner's browser follows what other nodes record: a release or keepalive made on another
 *   node reaches it by an internal call, and each heartbeat closes any browser whose session the
 *   database says has ended (a missed call costs at most one heartbeat);
 * - crash recovery (reaping.ts): a peer ends the live sessions of a node silent past `nodeTimeoutSeconds`;
 * - drain: after SIGTERM the node is unready, takes no new sessions, lets running ones finish.
 */

/** Rows of nodes silent this long, with no live session, are deleted (pod names come and go). */
const STALE_NODE_RETENTION_DAYS = 7;
const PRUNE_EVERY_MS = 3_600_000;
const INTERNAL_CALL_TIMEOUT_MS = 5_000;

export class Cluster implements ClusterHooks {
  readonly auth: InternalAuth;
  /** Several nodes may share the database (PostgreSQL); with PGlite this process is the only node. */
  readonly multiNode: boolean;
  readonly #deps: AppDeps;
  readonly #log: Logger;
  readonly #payloadKey: Buffer;
  readonly #watchdog: BrowserWatchdog;
  readonly #router: SessionRouter;
  #draining = false;
  #drainCut: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  /** When the last heartbeat failed (performance.now()); reaping waits a node timeout after it. */
  #lastFailure = Number.NEGATIVE_INFINITY;
  #lastPrune = Number.NEGATIVE_INFINITY;
  #down = false;

  constructor(deps: AppDeps) {
    this.#deps = deps;
    this.#log = deps.log.child({ component: "cluster" });
    this.multiNode = deps.db.kind === "postgres";
    this.auth = new InternalAuth(deps.masterKey.key, deps.nodeId);
    this.#payloadKey = deriveInternalKey(deps.masterKey.key, "payloads");
    this.#router = new SessionRouter({ auth: this.auth, multiNode: this.multiNode, deps, log: this.#log, nodeTimeoutSeconds: () => this.nodeTimeoutSeconds });
    const { pingSeconds, pingTimeoutSeconds } = deps.config.browser;
    this.#watchdog = new BrowserWatchdog({
      sessions: deps.runtime,
      intervalMs: pingSeconds * 1000,
      timeoutMs: pingTimeoutSeconds * 1000,
      log: deps.log.child({ component: "watchdog" }),
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  get nodeTimeoutSeconds(): number {
    return this.#deps.config.cluster.nodeTimeoutSeconds;
  }

  /** Key that seals what nodes hand each other (captured profiles). */
  get payloadKey(): Buffer {
    return this.#payloadKey;
  }

  /** A value sealed for another node (AES-256-GCM under the payload key, bound to `purpose`). */
  sealJson(purpose: string, value: unknown): string {
    return sealEnvelope(this.#payloadKey, Buffer.from(JSON.stringify(value)), purpose).toString("base64");
  }

  openJson(purpose: string, sealed: string): unknown {
    return JSON.parse(openSealed(this.#payloadKey, Buffer.from(sealed, "base64"), purpose).toString("utf8"));
  }

  /** What this node tells its peers about itself. */
  state(): NodeState {
    const { config, nodeId, browsers } = this.#deps;
    const pool = browsers.report();
    const free = this.#draining || pool.state !== "ready" ? 0 : Math.max(0, pool.capacity - pool.inUse);
    return { id: nodeId, internalUrl: config.internalUrl, region: config.nodeRegion, capacity: pool.capacity, freeSlots: free, draining: this.#draining };
  }

  /** Registers the node (its row exists from start-up; this refreshes capacity) and starts heartbeats and the watchdog. */
  async start(): Promise<void> {
    if (this.multiNode) {
      await registerNode(this.#deps.db.prisma, this.state());
      this.#schedule();
    }
    this.#watchdog.start();
  }

  /** One heartbeat round now (tests; also run on a schedule). */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.tick().finally(() => this.#schedule());
    }, this.#deps.config.cluster.heartbeatSeconds * 1000);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const { db } = this.#deps;
    try {
      await heartbeat(db.prisma, this.state());
      if (this.#down) this.#log.info("heartbeats recorded again");
      this.#down = false;
    } catch (err) {
      this.#lastFailure = performance.now();
      if (!this.#down) this.#log.warn({ err: (err as Error).message }, "could not record a heartbeat; the database may be unreachable");
      this.#down = true;
      return;
    }
    await this.#reconcile().catch((err: unknown) => this.#log.warn({ err }, "could not compare running browsers with the database"));
    // After an outage every node's heartbeat looks old: wait one node timeout, so that only nodes
    // that stayed silent while this one could write are taken for dead.
    if (performance.now() - this.#lastFailure >= this.nodeTimeoutSeconds * 1000 && !this.#stopped) {
      await this.reapDeadNodes().catch((err: unknown) => this.#log.warn({ err }, "could not end the sessions of dead nodes"));
    }
    if (performance.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = performance.now();
      await pruneNodes(db.prisma, STALE_NODE_RETENTION_DAYS).catch(() => {});
    }
  }

  /** Browsers running here whose session has ended in the database (recorded by another node) are closed. */
  #reconcile(): Promise<void> {
    return closeBrowsersOfEndedSessions(this.#deps, this.#log);
  }


  /** Ends the live sessions of dead nodes with node_shutdown. Answers how many this node ended. */
  reapDeadNodes(): Promise<number> {
    return endSessionsOfDeadNodes(this.#deps, this.#log, this.nodeTimeoutSeconds);
  }


  // -----------------------------------------------------------------------------------------------
  // Drain and stop

  /**
   * SIGTERM: unready at once, no new sessions here (creates go to peers, or get 503), and running
   * sessions may go on until they end or `deadlineMs` passes (or {@link cutDrain} is called).
   */
  async drain(deadlineMs: number): Promise<void> {
    if (!this.#draining) {
      this.#draining = true;
      this.#log.info({ sessions: this.#deps.runtime.ids().length, deadlineSeconds: deadlineMs / 1000 }, "draining: no new sessions; running ones may finish");
      if (this.multiNode) await heartbeat(this.#deps.db.prisma, this.state()).catch(() => {});
    }
    const until = performance.now() + deadlineMs;
    let cut = false;
    const cutPromise = new Promise<void>((resolve) => {
      this.#drainCut = () => {
        cut = true;
        resolve();
      };
    });
    while (this.#deps.runtime.ids().length > 0 && performance.now() < until && !cut) {
      await Promise.race([new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, until - performance.now())))), cutPromise]);
    }
    this.#drainCut = undefined;
    const left = this.#deps.runtime.ids().length;
    this.#log.info({ sessionsLeft: left }, left > 0 ? "drain deadline reached; ending what is left" : "drained: no session left");
  }

  /** Ends a drain in progress now (a second signal). */
  cutDrain(): void {
    this.#drainCut?.();
  }

  /** Stops heartbeats and the watchdog, cuts the relays this node carries, and tells peers it stopped. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#draining = true;
    clearTimeout(this.#timer);
    this.#watchdog.stop();
    await this.#ticking;
    this.#router.cutRelays();
    if (this.multiNode) await markStopped(this.#deps.db.prisma, this.#deps.nodeId).catch(() => {});
  }

  // -----------------------------------------------------------------------------------------------
  // What the services ask (ClusterHooks)

  placeCreate(
    ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string, opts: { failure?: unknown; workspace?: string } = {},
  ): Promise<Idempotent<SessionView> | undefined> {
    return placeCreate(this.#placementSite(), ctx, input, idempotencyKey, opts);
  }

  /** What placement (placement.ts) needs of this node. */
  #placementSite(): PlacementSite {
    return {
      multiNode: this.multiNode, draining: this.#draining, nodeTimeoutSeconds: this.nodeTimeoutSeconds, deps: this.#deps, log: this.#log,
      auth: this.auth, sealJson: (purpose, value) => this.sealJson(purpose, value), openJson: (purpose, sealed) => this.openJson(purpose, sealed),
    };
  }

  sessionEnded(sessionId: string, message: string): void {
    if (!this.multiNode || this.#deps.runtime.ids().includes(sessionId)) return;
    void this.#tellOwner(sessionId, "end", { message });
  }

  touch(sessionId: string): void {
    if (!this.multiNode || this.#deps.runtime.ids().includes(sessionId)) return;
    void this.#tellOwner(sessionId, "touch", {});
  }

  /** Best effort (the heartbeat's reconcile closes what a lost call leaves running). */
  async #tellOwner(sessionId: string, what: "end" | "touch", payload: Record<string, unknown>): Promise<void> {
    try {
      const node = await nodeOfSession(this.#deps.db.prisma, sessionId, this.nodeTimeoutSeconds);
      if (!node || node.id === this.#deps.nodeId || !node.alive) return;
      await this.#call(node, `/internal/v1/sessions/${encodeURIComponent(sessionId)}/${what}`, payload, INTERNAL_CALL_TIMEOUT_MS);
    } catch (err) {
      this.#log.debug({ err: (err as Error).message, sessionId, what }, "could not tell a session's node");
    }
  }

  async captureElsewhere(sessionId: string, workspaceId: string, baseProfileId: string | null): Promise<{ document: ReturnType<typeof parseProfileDocument> }> {
    const node = this.multiNode ? await nodeOfSession(this.#deps.db.prisma, sessionId, this.nodeTimeoutSeconds) : null;
    if (!node || node.id === this.#deps.nodeId || !node.alive) {
      throw new AppError("conflict", "The session's browser is not running (it may be ending).");
    }
    const answer = (await this.#call(node, `/internal/v1/sessions/${encodeURIComponent(sessionId)}/capture`, { workspaceId, baseProfileId }, 60_000).catch(() => {
      throw new AppError("conflict", "The node running the session could not be reached; retry shortly.");
    })) as { ok: boolean; sealed?: string; problem?: Record<string, unknown> };
    if (!answer.ok || !answer.sealed) throw problemFromPeer(answer.problem);
    const plaintext = openSealed(this.#payloadKey, Buffer.from(answer.sealed, "base64"), `capture:${sessionId}`);
    try {
      return { document: parseProfileDocument(JSON.parse(plaintext.toString("utf8"))) };
    } finally {
      plaintext.fill(0);
    }
  }

  /** An authenticated JSON call to a peer. */
  async #call(node: NodeInfo, path: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    const body = JSON.stringify(payload);
    const res = await fetch(`${node.internalUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...this.auth.sign(node.id, "POST", path, body) },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return res.json();
  }

  // -----------------------------------------------------------------------------------------------
  // Connections that landed on the wrong node

  relayedHere(req: IncomingMessage): boolean {
    return this.#router.relayedHere(req);
  }

  /** Wraps an upgrade handler: connections for sessions that run elsewhere are relayed to their node. */
  routeUpgrade(kind: string, sessionOf: SessionOf, local: UpgradeHandler): UpgradeHandler {
    return this.#router.routeUpgrade(kind, sessionOf, local);
  }

  /** Wraps a GET handler the same way (CDP discovery). */
  routeGet(kind: string, sessionOf: SessionOf, local: (req: Request, res: Response) => unknown) {
    return this.#router.routeGet(kind, sessionOf, local);
  }

  /** Connections relayed through this node for other nodes' sessions. */
  get relays(): number {
    return this.#router.relays;
  }
}
