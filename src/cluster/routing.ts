// Routing: a CDP or live-view connection (or CDP discovery) for a session whose browser runs on
// another node is relayed raw to that node (forward.ts), which checks the credential itself.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Request, Response } from "express";
import type { AppDeps } from "../kernel/context.ts";
import type { Logger } from "../logger.ts";
import { ownerOf, type NodeInfo } from "../services/nodes/nodes.ts";
import type { UpgradeHandler } from "../upgrade.ts";
import { forwardRequest, forwardUpgrade } from "./forward.ts";
import { internalHeaders, type InternalAuth } from "./internal-auth.ts";

/** The session a request is for, read from it without checking anything (the owner checks). */
export type SessionOf = (req: IncomingMessage, url: URL) => string | undefined;

/** What routing needs of the node it runs on (cluster.ts). */
export interface RouterSite {
  auth: InternalAuth;
  multiNode: boolean;
  deps: AppDeps;
  log: Logger;
  nodeTimeoutSeconds: () => number;
}

export class SessionRouter {
  readonly #site: RouterSite;
  /** Connections this node relays for other nodes' sessions (cut when it stops). */
  readonly #relays = new Set<Duplex>();
  /** Whether a peer relayed a request, decided once per request (a signature's nonce verifies only once). */
  readonly #relayed = new WeakMap<IncomingMessage, boolean>();

  constructor(site: RouterSite) {
    this.#site = site;
  }

  cutRelays(): void {
    for (const socket of this.#relays) socket.destroy();
    this.#relays.clear();
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
      const owner = await this.#ownerElsewhere(req, sessionOf(req, new URL(req.url ?? "/", "http://localhost")));
      if (!owner) return local(req, socket, head);
      this.#site.deps.metrics?.forwarded.inc({ kind });
      await forwardUpgrade(this.#site.auth, owner, req, this.#site.deps.clientAddress(req), socket, head, (s) => {
        this.#relays.add(s);
        s.once("close", () => this.#relays.delete(s));
      });
    };
  }

  /** Wraps a GET handler the same way (CDP discovery). */
  routeGet(kind: string, sessionOf: SessionOf, local: (req: Request, res: Response) => unknown) {
    return async (req: Request, res: Response) => {
      const owner = await this.#ownerElsewhere(req, sessionOf(req, new URL(req.url ?? "/", "http://localhost")));
      if (!owner) return local(req, res);
      this.#site.deps.metrics?.forwarded.inc({ kind });
      await forwardRequest(this.#site.auth, owner, req, this.#site.deps.clientAddress(req), res);
    };
  }

  /** Connections relayed through this node for other nodes' sessions. */
  get relays(): number {
    return this.#relays.size;
  }
}
