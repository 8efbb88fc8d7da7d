import type net from "node:net";
import type WebSocket from "ws";
import { CommandLog } from "./command-log.ts";
import type { CdpChannel } from "../pipe/channel.ts";
import { CdpPipeClosed } from "../pipe/wire.ts";
import { clientsOf, relayClient, type RelayOptions } from "./relay.ts";
import type { ClientHandOver } from "../pipe/relay-link.ts";
import type { Control, PipeMux } from "./mux.ts";

class NoSuchPage extends Error {}

/**
 * The relay host's CDP clients: each handed-over handshake completed on a channel of its own on
 * the browser's pipe and relayed there (relay.ts, exactly as in the node); what the node must
 * know of it (connected, closed, a refusal, its commands for the session's logs) goes back on the
 * browser's link as control messages, and the node's orders (close it, open a channel ahead) come
 * the same way.
 */
export class HostClients {
  readonly #sockets = new Map<string, WebSocket>();
  /** Per browser: a channel opened ahead, for its session's first client. */
  readonly #ahead = new Map<string, CdpChannel>();

  constructor(private readonly muxOf: (key: string) => PipeMux | undefined) {}

  async handOver(m: ClientHandOver, socket: net.Socket): Promise<void> {
    socket.on("error", () => socket.destroy());
    const mux = this.muxOf(m.key);
    if (!mux || !mux.pipe.isOpen) return void socket.end(m.refusals.gone);
    // A socket that ends before its WebSocket opens (the client went away mid-handshake, a handshake
    // ws refuses) is over for the node too: it holds one of the session's socket slots until told.
    let opened = false;
    socket.once("close", () => {
      if (!opened) mux.tell({ vessel: "closed", client: m.client });
    });
    // A handshake refused here is over for the node too (it forgets the client).
    const refuse = (refusal: string) => {
      socket.end(refusal);
      mux.tell({ vessel: "closed", client: m.client });
    };
    let channel: CdpChannel;
    try {
      channel = m.page
        ? await mux.pipe.openTarget(m.page).catch(() => {
            throw new NoSuchPage();
          })
        : (this.#takeAhead(m.key) ?? (await mux.pipe.open()));
    } catch (err) {
      return refuse(err instanceof NoSuchPage ? m.refusals.notFound : err instanceof CdpPipeClosed ? m.refusals.gone : m.refusals.unavailable);
    }
    if (socket.destroyed || !channel.isOpen) {
      channel.close();
      return refuse(m.refusals.gone);
    }
    socket.setNoDelay(true);
    // ws reads only the method and headers of the request it completes.
    const req = m.req as unknown as Parameters<ReturnType<typeof clientsOf>["handleUpgrade"]>[0];
    clientsOf(m.maxPayload).handleUpgrade(req, socket, Buffer.from(m.head, "base64"), (client) => {
      opened = true;
      relayClient(client, channel, this.#options(m, mux));
      this.#sockets.set(m.client, client);
      mux.tell({ vessel: "open", client: m.client });
      client.once("close", () => {
        this.#sockets.delete(m.client);
        mux.tell({ vessel: "closed", client: m.client });
      });
    });
  }

  /** A control message from the node about one of its browsers. */
  control(key: string, message: Control): void {
    if (message.vessel === "ahead") return this.#openAhead(key);
    if (message.vessel === "withholdPostData" && typeof message.until === "number") {
      const mux = this.muxOf(key);
      if (mux) mux.pipe.withholdPostDataUntil = Math.max(mux.pipe.withholdPostDataUntil, message.until);
      return;
    }
    const client = typeof message.client === "string" ? this.#sockets.get(message.client) : undefined;
    if (!client) return;
    try {
      if (message.vessel === "close" && typeof message.code === "number") client.close(message.code, typeof message.reason === "string" ? message.reason : "");
      else if (message.vessel === "terminate") client.terminate();
    } catch {
      client.terminate(); // a code or reason ws refuses: the client is cut instead
    }
  }

  /** The browser's link has gone (the browser closed): its clients went with its pipe. */
  browserGone(key: string): void {
    this.#ahead.get(key)?.close();
    this.#ahead.delete(key);
  }

  #openAhead(key: string): void {
    const mux = this.muxOf(key);
    if (!mux || this.#ahead.has(key)) return;
    mux.pipe.open().then(
      (channel) => {
        if (this.#ahead.has(key) || this.muxOf(key) !== mux) channel.close();
        else this.#ahead.set(key, channel);
      },
      () => {}, // the browser is gone: the node learns it from the link's end
    );
  }

  #takeAhead(key: string): CdpChannel | undefined {
    const channel = this.#ahead.get(key);
    this.#ahead.delete(key);
    return channel?.isOpen ? channel : undefined;
  }

  /** What the relay reports goes to the node, tagged with the client it concerns. */
  #options(m: ClientHandOver, mux: PipeMux): RelayOptions {
    const client = m.client;
    return {
      ...(m.logs
        ? {
            commands: new CommandLog((method, at, durationMs, refused, run) =>
              mux.tell({ vessel: "command", client, entry: [method, at, durationMs, refused, run ?? null] }),
            ),
          }
        : {}),
      policy: m.policy,
      downloads: m.downloads,
      onRefused: (method, reason) => mux.tell({ vessel: "refused", client, method, reason }),
      onRedirected: (method) => mux.tell({ vessel: "redirected", client, method }),
      onDownloadBehaviour: (context) => mux.tell({ vessel: "downloads", client, context }),
      onBrowserClose: () => mux.tell({ vessel: "browserClose", client }),
      browserAlive: () => mux.pipe.isOpen,
    };
  }
}
