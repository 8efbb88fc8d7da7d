import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Request, Response } from "express";
import { decodeJwt } from "jose";
import { closeCodeForEnd } from "../browser/close-codes.ts";
import { BrowserWatchdog } from "../browser/watchdog.ts";
import { open as openSealed, seal as sealEnvelope } from "../crypto/envelope.ts";
import { AppError, isProblemSlug } from "../kernel/errors.ts";
import { parseProfileDocument } from "../browser/profile-format.ts";
import type { Logger } from "../logger.ts";
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import type { ClusterHooks } from "../services/sessions/ports.ts";
import type { Idempotent } from "../kernel/idempotency.ts";
import {
  endedAmong, heartbeat, markStopped, nodeOfSession, ownerOf, placementCandidates, pruneNodes, regionHasNodes, registerNode,
  sessionsOfDeadNodes, type NodeInfo, type NodeState,
} from "../services/nodes/nodes.ts";
import type { CreateSessionInput } from "../services/sessions/sessions.ts";
import { reviveSessionView, type SessionView } from "../services/sessions/session-view.ts";
import { endSession } from "../services/sessions/sessions.ts";
import type { UpgradeHandler } from "../upgrade.ts";
import { forwardGet, forwardUpgrade } from "./forward.ts";
import { deriveInternalKey, InternalAuth, internalHeaders } from "./internal-auth.ts";

/**
 * This node among its peers (PostgreSQL deployments; with the embedded database there is only one
 * node, and all of this reduces to the browser watchdog):
 *
 * - heartbeats: every `heartbeatSeconds` the node records that it is alive, its capacity and free
 *   slots and whether it drains (src/services/nodes/nodes.ts);
 * - placement: a create that should not run here (full, draining, another region) runs on a node
 *   with room, through an authenticated internal call (internal-api.ts);
 * - forwarding: a CDP or live-view connection for a session that runs elsewhere is relayed raw to
 *   that node (forward.ts), which checks the credential itself;
 * - the owner's browser follows what other nodes record: a release or keepalive made on another
 *   node reaches it by an internal call, and each heartbeat closes any browser whose session the
 *   database says has ended (a missed call costs at most one heartbeat);
 * - crash recovery: a node silent past `nodeTimeoutSeconds` is dead, and a peer ends its live
 *   sessions with node_shutdown (each exactly once: the end is a conditional update);
 * - drain: after SIGTERM the node is unready, takes no new sessions and lets running ones finish
 *   until the drain deadline.
 */

/** Rows of nodes silent this long, with no live session, are deleted (pod names come and go). */
const STALE_NODE_RETENTION_DAYS = 7;
const PRUNE_EVERY_MS = 3_600_000;
const INTERNAL_CALL_TIMEOUT_MS = 5_000;
/** A placed create may have to launch a browser and restore a profile over there. */
const PLACEMENT_TIMEOUT_MS = 45_000;
/** How many nodes a create tries before giving up. */
const PLACEMENT_TRIES = 3;

/** Why a node refused a placed create in a way that another node might not (full, draining, unreachable). */
class TryElsewhere extends Error {
  constructor(readonly error: AppError) {
    super(error.detail);
  }
}

/** The contexts of creates a peer placed here: they run here or fail, never move again. */
const placed = new WeakSet<ServiceContext>();

/** Creates whose peers were all asked already (before trying here): not asked twice. */
const askedPeers = new WeakSet<ServiceContext>();

export function markPlaced(ctx: ServiceContext): void {
  placed.add(ctx);
}

/** The problem a peer answered with, as an AppError (anything unknown is a 500). */
export function problemFromPeer(p: { slug?: unknown; detail?: unknown; extensions?: unknown; headers?: unknown } | undefined): AppError {
  if (!p || typeof p.slug !== "string" || !isProblemSlug(p.slug)) return new AppError("internal-error", "Another node failed to answer.");
  return new AppError(
    p.slug,
    typeof p.detail === "string" ? p.detail : "",
    (p.extensions && typeof p.extensions === "object" ? p.extensions : {}) as Record<string, unknown>,
    (p.headers && typeof p.headers === "object" ? p.headers : {}) as Record<string, string>,
  );
}

/** A SessionView that crossed the wire as JSON: its dates become Dates again. */
function reviveOutcome(outcome: Idempotent<SessionView>): Idempotent<SessionView> {
  return outcome.replayed ? outcome : { replayed: false, result: reviveSessionView(outcome.result) };
}

function isConnectFailure(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"].includes(code ?? "");
}

export class Cluster implements ClusterHooks {
  readonly auth: InternalAuth;
  /** Several nodes may share the database (PostgreSQL); with PGlite this process is the only node. */
  readonly multiNode: boolean;
  readonly #deps: AppDeps;
  readonly #log: Logger;
  readonly #payloadKey: Buffer;
  readonly #watchdog: BrowserWatchdog;
  readonly #relays = new Set<Duplex>();
  /** Whether a peer relayed a request, decided once per request (a signature's nonce verifies only once). */
  readonly #relayed = new WeakMap<IncomingMessage, boolean>();
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
  async #reconcile(): Promise<void> {
    const ended = await endedAmong(this.#deps.db.prisma, this.#deps.runtime.ids());
    for (const { id, reason } of ended) {
      this.#log.info({ sessionId: id }, "closing a browser whose session another node ended");
      void this.#deps.runtime.teardown(id, undefined, closeCodeForEnd(reason)).catch(() => {});
    }
  }

  /** Ends the live sessions of dead nodes with node_shutdown. Answers how many this node ended. */
  async reapDeadNodes(): Promise<number> {
    const orphans = await sessionsOfDeadNodes(this.#deps.db.prisma, this.#deps.nodeId, this.nodeTimeoutSeconds);
    let ended = 0;
    for (const { id, nodeId } of orphans) {
      // Conditional on the session still being live: when several peers notice, one of them ends it.
      if (await endSession(this.#deps, id, { status: "FAILED", reason: "NODE_SHUTDOWN" })) {
        ended++;
        this.#log.warn({ sessionId: id, deadNode: nodeId }, "ended a session of a node that stopped answering");
      }
    }
    return ended;
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
    for (const socket of this.#relays) socket.destroy();
    this.#relays.clear();
    if (this.multiNode) await markStopped(this.#deps.db.prisma, this.#deps.nodeId).catch(() => {});
  }

  // -----------------------------------------------------------------------------------------------
  // What the services ask (ClusterHooks)

  async placeCreate(
    ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string, opts: { failure?: unknown; workspace?: string } = {},
  ): Promise<Idempotent<SessionView> | undefined> {
    if (!this.multiNode) return undefined;
    const { failure, workspace } = opts;
    if (placed.has(ctx)) {
      // Placed here by a peer: never moved again (the peer tries the next node itself).
      if (this.#draining && failure === undefined) throw new AppError("service-unavailable", "This node is shutting down.", {}, { "Retry-After": "2" });
      return undefined;
    }
    const { config, browsers, db, nodeId } = this.#deps;
    if (failure !== undefined) {
      if (askedPeers.has(ctx)) return undefined;
      // Only a lack of room here is worth another node's try (a database outage is everyone's).
      const roomProblem = failure instanceof AppError && (failure.slug === "insufficient-capacity" || (failure.slug === "service-unavailable" && browsers.report().state !== "ready"));
      if (!roomProblem) return undefined;
    }
    const pool = browsers.report();
    const roomHere = !this.#draining && pool.state === "ready" && pool.inUse < pool.capacity;
    const ownRegion = input.region === config.nodeRegion || !(await regionHasNodes(db.prisma, input.region, this.nodeTimeoutSeconds));
    if (failure === undefined && roomHere && ownRegion) return undefined;
    const candidates = await placementCandidates(db.prisma, input.region, nodeId, this.nodeTimeoutSeconds);
    if (candidates.length === 0) {
      if (this.#draining) throw new AppError("service-unavailable", "This node is shutting down and no other node has room right now; retry shortly.", {}, { "Retry-After": "2" });
      if (!ownRegion) {
        throw new AppError("insufficient-capacity", `No node of region ${input.region} has a free browser right now.`, {}, { "Retry-After": "5" });
      }
      return undefined; // full here and everywhere: the pool answers insufficient-capacity
    }
    let last: AppError | undefined;
    for (const node of candidates.slice(0, PLACEMENT_TRIES)) {
      try {
        return await this.#createOn(node, ctx, input, idempotencyKey, workspace);
      } catch (err) {
        if (!(err instanceof TryElsewhere)) throw err;
        last = err.error;
        this.#log.info({ node: node.id, reason: err.error.detail }, "a peer could not take a placed session; trying the next");
      }
    }
    askedPeers.add(ctx);
    if (this.#draining) throw new AppError("service-unavailable", "This node is shutting down and no other node could take the session; retry shortly.", {}, { "Retry-After": "2" });
    if (!ownRegion) throw last ?? new AppError("insufficient-capacity", `No node of region ${input.region} has a free browser right now.`, {}, { "Retry-After": "5" });
    if (failure !== undefined) throw failure;
    return undefined; // no peer could: this node tries (a slot may have freed; else the pool answers 503)
  }

  async #createOn(node: NodeInfo, ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string, workspace?: string): Promise<Idempotent<SessionView>> {
    const path = "/internal/v1/sessions";
    // Sealed both ways: the request may carry a proxy password, the answer carries session tokens.
    const body = JSON.stringify({
      sealed: this.sealJson(path, {
        principal: ctx.principal,
        requestId: ctx.requestId,
        clientRequestId: ctx.clientRequestId ?? null,
        ip: ctx.ip,
        audit: ctx.audit ? { action: ctx.audit.action, successStatus: ctx.audit.successStatus, workspaceId: ctx.audit.workspaceId ?? null } : null,
        input,
        idempotencyKey,
        workspace: workspace ?? null,
      }),
    });
    let answer: { ok: boolean; outcome?: Idempotent<SessionView>; auditWritten?: boolean; problem?: Record<string, unknown>; tryElsewhere?: boolean };
    try {
      const res = await fetch(`${node.internalUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...this.auth.sign(node.id, "POST", path, body) },
        body,
        signal: AbortSignal.timeout(PLACEMENT_TIMEOUT_MS),
      });
      const raw = (await res.json()) as { sealed?: string; problem?: unknown };
      if (!res.ok || typeof raw.sealed !== "string") {
        ctx.log.error({ node: node.id, status: res.status, problem: raw.problem ?? raw }, "a peer refused a placed create");
        answer = { ok: false, problem: raw.problem as Record<string, unknown> | undefined };
      } else {
        answer = this.openJson(`answer:${path}`, raw.sealed) as typeof answer;
      }
    } catch (err) {
      if (isConnectFailure(err)) throw new TryElsewhere(new AppError("service-unavailable", `Node ${node.id} cannot be reached.`));
      // The request may have reached the node: a retry with the same key replays what it did.
      ctx.log.warn({ err: (err as Error).message, node: node.id }, "a placed create got no answer");
      throw new AppError("service-unavailable", "The session's node did not answer in time; retry with the same Idempotency-Key.", {}, { "Retry-After": "1" });
    }
    if (!answer.ok || !answer.outcome) {
      const error = problemFromPeer(answer.problem);
      if (answer.tryElsewhere) throw new TryElsewhere(error);
      throw error;
    }
    const outcome = reviveOutcome(answer.outcome);
    if (ctx.audit && answer.auditWritten && !outcome.replayed) {
      // The peer wrote this call's entry in the transaction that created the session.
      ctx.audit.written = true;
      ctx.audit.target = outcome.result.session.id;
    }
    ctx.log.info({ node: node.id, sessionId: outcome.replayed ? undefined : outcome.result.session.id }, "session placed on another node");
    return outcome;
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

  /**
   * Whether a peer relayed this request (valid signature for this node): it is served here, never
   * relayed again, and its `X-Forwarded-For` names the client (auth/client-address.ts).
   */
  relayedHere(req: IncomingMessage): boolean {
    if (req.headers[internalHeaders.signature] === undefined) return false;
    const known = this.#relayed.get(req);
    if (known !== undefined) return known;
    const check = this.auth.verify(req.headers, req.method ?? "GET", req.url ?? "/");
    if (!check.ok) this.#log.warn({ reason: check.reason }, "ignored the relay headers of a request");
    this.#relayed.set(req, check.ok);
    return check.ok;
  }

  /** The node to relay a session's connection to, or undefined to serve it here. */
  async #ownerElsewhere(req: IncomingMessage, sessionId: string | undefined): Promise<NodeInfo | undefined> {
    if (!this.multiNode || !sessionId || this.relayedHere(req) || this.#deps.runtime.ids().includes(sessionId)) return undefined;
    const owner = await ownerOf(this.#deps.db.prisma, sessionId, this.nodeTimeoutSeconds).catch(() => null);
    if (!owner || owner.id === this.#deps.nodeId || !owner.alive) return undefined;
    return owner;
  }

  /** Wraps an upgrade handler: connections for sessions that run elsewhere are relayed to their node. */
  routeUpgrade(kind: string, sessionOf: (req: IncomingMessage, url: URL) => string | undefined, local: UpgradeHandler): UpgradeHandler {
    return async (req, socket, head) => {
      const owner = await this.#ownerElsewhere(req, sessionOf(req, new URL(req.url ?? "/", "http://localhost")));
      if (!owner) return local(req, socket, head);
      this.#deps.metrics?.forwarded.inc({ kind });
      await forwardUpgrade(this.auth, owner, req, this.#deps.clientAddress(req), socket, head, (s) => {
        this.#relays.add(s);
        s.once("close", () => this.#relays.delete(s));
      });
    };
  }

  /** Wraps a GET handler the same way (CDP discovery). */
  routeGet(kind: string, sessionOf: (req: IncomingMessage, url: URL) => string | undefined, local: (req: Request, res: Response) => unknown) {
    return async (req: Request, res: Response) => {
      const owner = await this.#ownerElsewhere(req, sessionOf(req, new URL(req.url ?? "/", "http://localhost")));
      if (!owner) return local(req, res);
      this.#deps.metrics?.forwarded.inc({ kind });
      await forwardGet(this.auth, owner, req, this.#deps.clientAddress(req), res);
    };
  }

  /** Connections relayed through this node for other nodes' sessions. */
  get relays(): number {
    return this.#relays.size;
  }
}

/** The session a CDP request names: the `sub` of its token, read without checking it (the owner checks it). */
export function cdpSessionOf(req: IncomingMessage, url: URL): string | undefined {
  const token = url.searchParams.get("token") ?? /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  if (!token) return undefined;
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === "string" && sub.length <= 64 ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** The session a live-view socket names (`?session=`, a routing hint; the token comes as its first message). */
export function liveViewSessionOf(_req: IncomingMessage, url: URL): string | undefined {
  const id = url.searchParams.get("session");
  return id && /^ses_[0-9A-Za-z]{1,40}$/.test(id) ? id : undefined;
}
