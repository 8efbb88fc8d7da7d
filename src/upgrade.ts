import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "./logger.ts";

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

/**
 * The one `upgrade` listener on the HTTP server. WebSocket endpoints (GraphQL now; CDP and live
 * view later) register by path, so no library attaches a listener of its own and fights the others.
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

  attach(server: Server): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", (err) => this.log.debug({ err }, "upgrade socket error"));
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      const handler = this.handlers.get(path) ?? this.prefixes.find(([prefix]) => path.startsWith(prefix))?.[1];
      if (!handler) {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      Promise.resolve(handler(req, socket, head)).catch((err: unknown) => {
        this.log.warn({ err, path }, "upgrade failed");
        socket.destroy();
      });
    });
  }
}
