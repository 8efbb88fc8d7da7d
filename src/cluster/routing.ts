// Routing: a CDP or live-view connection (or CDP discovery) for a session whose browser runs on
// another node is relayed raw to that node (forward.ts), which checks the credential itself. A node
// that lost its lease (lease.ts) refuses these connections at once: it cannot vouch for any session.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Request, Response } from "express";
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";
import { AppError } from "../errors.ts";
import { ownerHoldsLease, ownerOf, type NodeInfo } from "../services/nodes/nodes.ts";
import type { UpgradeHandler } from "../upgrade.ts";
import { closeReason } from "../browser/close-codes.ts";
import { forwardRequest, forwardUpgrade, refuse, type OwnerCheck } from "./forward.ts";
import type { RelayedConnection } from "./relayed-connection.ts";
import { internalHeaders, type InternalAuth } from "../peers/internal-auth.ts";

/** The session a request is for, read from it without checking anything (the owner checks). */
export type SessionOf = (req: IncomingMessage, url: URL) => string | undefined;

/** What routing needs of the node it runs on (cluster.ts). */
export interface RouterSite {
  auth: InternalAuth;
  multiNode: boolean;
  deps: AppDeps;
  log: Logger;
  nodeTimeoutSeconds: () => number;
  /** This node lost its lease: it serves and relays nothing. */
  fenced: () => boolean;
}

const fencedRefusal = () =>
  new AppError("service-unavailable", "This node cannot reach the database right now; retry shortly through the load balancer.", {}, { "Retry-After": "2" });

export class SessionRouter {
  readonly #site: RouterSite;
  /** Connections this node relays for other nodes' sessions (closed when it stops). */
  readonly #relays = new Set<RelayedConnection>();
  /** Whether a peer relayed a request, decided once per request (a signature's nonce verifies only once). */
  readonly #relayed = new WeakMap<IncomingMessage, boolean>();

  constructor(site: RouterSite) {
    this.#site = site;
  }

  /**
   * Closes every relayed connection with `code` (a stop: 1001, going away), a close frame to the
   * client and to the session's node each; resolves once all are closed (or cut, bounded).
   */
  async closeRelays(code: number): Promise<void> {
    const relays = [...this.#relays];
    this.#relays.clear();
    await Promise.all(relays.map((r) => r.close(code, closeReason(code))));
  }

  /**
   * Whether a peer relayed this request (valid signature for this node): it is served here, never
   * relayed again, and its `X-Forwarded-For` names the client (auth/client-address.ts).
   */
  relayedHere(req: IncomingMessage): boolean {
    if (req.headers[internalHeaders.signature] === undefined) return false;
    const known = this.#relayed.get(req);
    if (known !== undefined) return known;
    const check = this.#site.auth.verify(req.headers, req.method ?? "GET", req.url ?? "/");
    if (!check.ok) this.#site.log.warn({ reason: check.reason }, "ignored the relay headers of a request");
    this.#relayed.set(req, check.ok);
    return check.ok;
  }

  /** The node to relay a session's connection to, or undefined to serve it here. */
  async #ownerElsewhere(req: IncomingMessage, sessionId: string | undefined): Promise<NodeInfo | undefined> {
    if (!this.#site.multiNode || !sessionId || this.relayedHere(req) || this.#site.deps.runtime.ids().includes(sessionId)) return undefined;
    const owner = await ownerOf(this.#site.deps.db.prisma, sessionId, this.#site.nodeTimeoutSeconds()).catch(() => null);
    if (!owner || owner.id === this.#site.deps.nodeId || !owner.alive) return undefined;
    return owner;
  }

  /** Wraps an upgrade handler: connections for sessions that run elsewhere are relayed to their node. */
  routeUpgrade(kind: string, sessionOf: SessionOf, local: UpgradeHandler): UpgradeHandler {
    return async (req, socket, head) => {
      if (this.#site.fenced()) return refuse(socket, fencedRefusal());
      const sessionId = sessionOf(req, new URL(req.url ?? "/", "http://localhost"));
      const owner = await this.#ownerElsewhere(req, sessionId);
      if (!owner || !sessionId) return local(req, socket, head);
      this.#site.deps.metrics?.forwarded.inc({ kind });
      const relay = {
        track: (c: RelayedConnection) => this.#track(c, socket),
        check: () => this.#ownerCheck(sessionId, owner.id),
        stallMs: this.#stallMs(),
        connectMs: this.#site.deps.config.cluster.placementTimeoutMs,
      };
      await forwardUpgrade(this.#site.auth, owner, req, this.#site.deps.clientAddress(req), socket, head, relay);
    };
  }

  /** Wraps a GET handler the same way (CDP discovery). */
  routeGet(kind: string, sessionOf: SessionOf, local: (req: Request, res: Response) => unknown) {
    return async (req: Request, res: Response) => {
      if (this.#site.fenced()) throw fencedRefusal();
      const owner = await this.#ownerElsewhere(req, sessionOf(req, new URL(req.url ?? "/", "http://localhost")));
      if (!owner) return local(req, res);
      this.#site.deps.metrics?.forwarded.inc({ kind });
      await forwardRequest(this.#site.auth, owner, req, this.#site.deps.clientAddress(req), res);
    };
  }

  #track(connection: RelayedConnection, socket: Duplex): void {
    this.#relays.add(connection);
    socket.once("close", () => this.#relays.delete(connection));
  }

  /** Silence from the owner this long, with bytes of the client's unanswered, is a stall (forward.ts). */
  #stallMs(): number {
    return Math.max(500, this.#site.deps.config.cluster.heartbeatSeconds * 1000);
  }

  /** After a stall: does the owner still hold its lease on the session? Bounded; a database that does not answer is "unknown". */
  async #ownerCheck(sessionId: string, ownerId: string): Promise<OwnerCheck> {
    const { db, config } = this.#site.deps;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"unknown">((resolve) => (timer = setTimeout(() => resolve("unknown"), config.cluster.placementTimeoutMs)));
    const asked = ownerHoldsLease(db.prisma, sessionId, ownerId, config.cluster.leaseSeconds).then(
      (holds): OwnerCheck => (holds ? "held" : "lost"),
      (): OwnerCheck => "unknown",
    );
    const answer = await Promise.race([asked, late]);
    clearTimeout(timer);
    if (answer !== "held")
      this.#site.log.warn({ sessionId, owner: ownerId, answer }, "a relayed connection stalled and its node's lease could not be confirmed: closed");
    return answer;
  }

  /** Connections relayed through this node for other nodes' sessions. */
  get relays(): number {
    return this.#relays.size;
  }
}
