import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type net from "node:net";
import type { Logger } from "../../../logger.ts";

// The node's side of a browser whose pipe the relay host owns (host.ts says why), and what
// the node hands the host with a client's socket.

/**
 * A client's handshake as the node hands it over: authorised by the node, answered by the host
 * (host-clients.ts). The node writes the refusals (whole HTTP responses) because only it
 * knows the problem documents.
 */
export interface ClientHandOver {
  key: string;
  client: string;
  /** A page endpoint's target; undefined for the browser endpoint. */
  page?: string;
  policy: boolean;
  downloads: string;
  maxPayload: number;
  /** The session's logs are on: the client's commands are reported (`command`). */
  logs: boolean;
  req: { method: string; url: string; headers: Record<string, string | string[] | undefined> };
  /** The bytes that came after the handshake's headers, base64. */
  head: string;
  refusals: { gone: string; notFound: string; unavailable: string };
}

/** What a link needs of the node's pipe over it (CdpPipe; named here so the two files do not import each other). */
export interface LinkedPipe {
  link: RelayLink | undefined;
  onControl: ((message: Record<string, unknown>) => void) | undefined;
  fronted(targetId: string): void;
  readonly closed: Promise<void>;
}

/** Sends `message` with `handle` to the host; resolves once sent. */
export function send(child: ChildProcess, message: object, handle: net.Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!child.connected) return reject(new Error("the relay host has gone"));
    child.send(message, handle, {}, (err) => (err ? reject(err) : resolve()));
  });
}

/** A client whose handshake went to the host: what the session's runtime tracks and may close. */
export class RemoteClient extends EventEmitter {
  #closed = false;

  constructor(
    readonly id: string,
    private readonly link: RelayLink,
  ) {
    super();
  }

  close(code: number, reason: string): void {
    if (!this.#closed) this.link.tell({ vessel: "close", client: this.id, code, reason });
  }

  terminate(): void {
    if (!this.#closed) this.link.tell({ vessel: "terminate", client: this.id });
  }

  /** @internal the host reported something of this client. */
  report(message: Record<string, unknown>): void {
    switch (message.vessel) {
      case "open":
        return void this.emit("open");
      case "closed":
        return this.ended();
      case "refused":
        return void this.emit("refused", String(message.method), String(message.reason));
      case "redirected":
        return void this.emit("redirected", String(message.method));
      case "downloads":
        return void this.emit("downloads", typeof message.context === "string" ? message.context : null);
      case "browserClose":
        return void this.emit("browserClose");
      case "command":
        if (Array.isArray(message.entry)) this.emit("command", message.entry);
    }
  }

  /** @internal closed, or its browser's link gone. */
  ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.emit("close");
  }
}

/** The node's side of one browser whose pipe the host owns: its control messages and clients. */
export class RelayLink {
  readonly #clients = new Map<string, RemoteClient>();

  constructor(
    private readonly child: ChildProcess,
    readonly key: string,
    /** The link itself: the node's CdpPipe for this browser reads and writes it. */
    readonly socket: net.Socket,
    private readonly log: Logger,
  ) {}

  /** Joins the node's pipe over this link: the host's reports reach it in order with the browser's messages. */
  bind(pipe: LinkedPipe): void {
    pipe.link = this;
    pipe.onControl = (message) => {
      if (message.vessel === "front" && typeof message.targetId === "string") return pipe.fronted(message.targetId);
      const client = typeof message.client === "string" ? this.#clients.get(message.client) : undefined;
      client?.report(message);
      if (message.vessel === "closed") this.#clients.delete(String(message.client));
    };
    void pipe.closed.then(() => {
      for (const client of this.#clients.values()) client.ended();
      this.#clients.clear();
    });
  }

  /** Asks the host to open a channel now for the session's first client (browser/runtime/runtime.ts says why). */
  openAhead(): void {
    this.tell({ vessel: "ahead" });
  }

  /** Hands a client's authorised, unanswered handshake to the host; the client reports `open` once relayed. */
  handOver(socket: net.Socket, handshake: Omit<ClientHandOver, "key" | "client">): RemoteClient {
    const client = new RemoteClient(randomBytes(12).toString("hex"), this);
    this.#clients.set(client.id, client);
    send(this.child, { op: "client", key: this.key, client: client.id, ...handshake }, socket).catch((err: unknown) => {
      this.log.warn({ err }, "could not hand a CDP client to the relay host");
      socket.destroy();
      this.#clients.delete(client.id);
      client.ended();
    });
    return client;
  }

  /** @internal a control message to the host, in order with the node's CDP traffic. */
  tell(message: Record<string, unknown>): void {
    if (this.socket.writable) this.socket.write(JSON.stringify(message) + "\0");
  }
}
