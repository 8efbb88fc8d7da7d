import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { AppError } from "./errors.ts";
import { handshakeProblem, rawProblem, readTarget } from "./front-door.ts";
import type { Logger } from "./logger.ts";

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

/**
 * The one `upgrade` listener on the HTTP server. WebSocket endpoints (GraphQL, the CDP proxy, the live
 * view) register by path, so no library attaches a listener of its own and fights the others.
 */
export class UpgradeDispatcher {
  private readonly handlers = new Map<string, UpgradeHandler>();
  private readonly prefixes: Array<[string, UpgradeHandler]> = [];

  constructor(private readonly log: Logger) {}

  register(path: string, handler: UpgradeHandler): void {
    this.handlers.set(path, handler);
  }

  /** Every path that starts with `prefix` (for example `/cdp/devtools/`). */
  registerPrefix(prefix: string, handler: UpgradeHandler): void {
    this.prefixes.push([prefix, handler]);
  }

  /**
   * Listens for upgrades. Nothing a client sends may throw out of here (an exception in an
   * `upgrade` listener is uncaught): the address is parsed totally (400 for one that is not a
   * URL, such as `GET http://[::1`), a handshake the endpoint would refuse is refused here first
   * (front-door.ts), and a handler that throws, at once or later, costs only its own socket.
   */
  attach(server: Server, baseUrl: string): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", (err) => this.log.debug({ err }, "upgrade socket error"));
      const url = readTarget(req);
      if (url instanceof AppError) {
        socket.end(rawProblem(url, baseUrl, undefined));
        return;
      }
      const path = url.pathname;
      const handler = this.handlers.get(path) ?? this.prefixes.find(([prefix]) => path.startsWith(prefix))?.[1];
      if (!handler) {
        socket.end(rawProblem(new AppError("not-found", "No WebSocket endpoint lives at this path."), baseUrl, path));
        return;
      }
      const refused = handshakeProblem(req);
      if (refused) {
        socket.end(rawProblem(refused, baseUrl, path));
        return;
      }
      // Inside a promise chain, so a handler that throws synchronously is caught like one that rejects.
      Promise.resolve()
        .then(() => handler(req, socket, head))
        .catch((err: unknown) => {
          this.log.warn({ err, path }, "upgrade failed");
          socket.destroy();
        });
    });
  }
}
