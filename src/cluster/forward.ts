import type { IncomingMessage } from "node:http";
import net from "node:net";
import { Readable, type Duplex } from "node:stream";
import { pipeline } from "node:stream/promises";
import tls from "node:tls";
import type { Request, Response } from "express";
import { CloseCode, closeReason } from "../browser/close-codes.ts";
import { AppError } from "../errors.ts";
import type { NodeInfo } from "../services/nodes/nodes.ts";
import type { InternalAuth } from "../peers/internal-auth.ts";
import { isInternalHeader } from "../peers/internal-auth.ts";
import { RelayedConnection } from "./relayed-connection.ts";
import { closeFrame } from "./ws-frames.ts";

/**
 * Forwarding to the node that runs a session. A WebSocket upgrade is relayed raw: the client's own
 * request (line and headers, ours stripped and re-signed) goes to the owner's internal address and
 * from then on bytes flow both ways untouched, so the owner answers the handshake, checks the
 * token (CDP) or the first message (live view) itself, and sees the client's Origin. The relaying
 * node only adds its signature, which tells the owner not to forward again, and `X-Forwarded-For`
 * with one address: the client as this node resolved it (auth/client-address.ts: past the trusted
 * proxies), which the owner believes because the signature verifies. Whatever `X-Forwarded-For`
 * the client sent is dropped, so the owner never has to walk a chain a second time.
 */

/** What the relaying node learned of the owner's lease after a stall (routing.ts asks the database). */
export type OwnerCheck = "held" | "lost" | "unknown";

/** How a relayed upgrade is watched (routing.ts). */
export interface RelayOptions {
  /** Receives the relayed connection, so a stopping node can close the relays it carries (1001). */
  track(connection: RelayedConnection): void;
  /** Whether the owner still holds its lease on the session (bounded). */
  check(): Promise<OwnerCheck>;
  /** Owner silent this long with client bytes unanswered: a stall. */
  stallMs: number;
  /** Bound on connecting to the owner (VESSEL_PLACEMENT_TIMEOUT_MS). */
  connectMs: number;
}

function connect(internalUrl: string): Duplex & net.Socket {
  const url = new URL(internalUrl);
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return url.protocol === "https:" ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
}

/** The request head the owner receives: the client's, minus any header of ours, plus who relayed it. */
function requestHead(req: IncomingMessage, client: string, signed: Record<string, string>): string {
  const lines = [`${req.method ?? "GET"} ${req.url ?? "/"} HTTP/1.1`];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (isInternalHeader(name) || name.toLowerCase() === "x-forwarded-for") continue;
    lines.push(`${name}: ${raw[i + 1]}`);
  }
  lines.push(`X-Forwarded-For: ${client}`);
  for (const [name, value] of Object.entries(signed)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** Answers a handshake that could not be relayed (nothing has been sent to the client yet). */
export function refuse(socket: Duplex, error: AppError): void {
  const body = JSON.stringify({ title: error.title, status: error.status, detail: error.detail });
  const headers = Object.entries(error.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/problem+json\r\n${headers}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Relays an upgrade to `target`. Resolves once the relay is set up (or refused); `relay.track`
 * receives the connection so a stopping node can close the relays it carries (relayed-connection.ts). `client` is the
 * caller's address as this node resolved it.
 *
 * The owner's answers flow back untouched. The client's bytes go on untouched too, except after a
 * stall: when the owner has said nothing for `stallMs` while bytes of the client's wait for an
 * answer (a partition, a node that froze), what the client sends next is held until the database
 * confirms that the owner still holds its lease on the session (lease.ts). If it does not, those
 * bytes are dropped and the client's socket closed (4503, or 1013 when the database could not say):
 * commands queued during a partition must never run on a session the cluster has meanwhile ended.
 */
export function forwardUpgrade(
  auth: InternalAuth,
  target: NodeInfo,
  req: IncomingMessage,
  client: string,
  socket: Duplex,
  head: Buffer,
  relay: RelayOptions,
): Promise<void> {
  return new Promise((resolve) => {
    const upstream = connect(target.internalUrl);
    let connected = false;
    let relayed: RelayedConnection | undefined;
    const timer = setTimeout(() => upstream.destroy(new Error("connect timeout")), relay.connectMs);
    const close = () => {
      // A close in progress ends both sides itself, its frames written first.
      if (relayed?.closing) return resolve();
      clearTimeout(timer);
      upstream.destroy();
      socket.destroy();
      resolve();
    };
    socket.once("error", close);
    socket.once("close", close);
    upstream.once("close", close);
    upstream.once("error", () => {
      if (connected) return close();
      clearTimeout(timer);
      upstream.off("close", close); // the refusal below must reach the client before its socket closes
      refuse(socket, new AppError("service-unavailable", "The node running this session cannot be reached; retry shortly.", {}, { "Retry-After": "2" }));
      resolve();
    });
    upstream.once(upstream instanceof tls.TLSSocket ? "secureConnect" : "connect", () => {
      clearTimeout(timer);
      connected = true;
      upstream.setNoDelay(true);
      (socket as net.Socket).setNoDelay?.(true);
      upstream.write(requestHead(req, client, auth.sign(target.id, req.method ?? "GET", req.url ?? "/")));
      relayed = new RelayedConnection(socket, upstream);
      if (head.length > 0) relayed.toOwner(head);
      guardClientBytes(socket, upstream, relayed, relay);
      relay.track(relayed);
      resolve();
    });
  });
}

/** Client → owner, with the lease check after a stall (see forwardUpgrade). */
function guardClientBytes(socket: Duplex, upstream: net.Socket, relayed: RelayedConnection, relay: RelayOptions): void {
  /** When the oldest client bytes the owner has not answered since were sent (undefined: none). */
  let unansweredSince: number | undefined;
  let held: Buffer[] | undefined;
  upstream.on("data", () => {
    unansweredSince = undefined;
  });
  const send = (chunk: Buffer) => {
    unansweredSince ??= performance.now();
    if (!relayed.toOwner(chunk)) {
      socket.pause();
      upstream.once("drain", () => socket.resume());
    }
  };
  socket.on("data", (chunk: Buffer) => {
    if (held) return void held.push(chunk);
    if (unansweredSince === undefined || performance.now() - unansweredSince < relay.stallMs) return send(chunk);
    held = [chunk];
    socket.pause();
    void relay.check().then((answer) => {
      const waiting = held ?? [];
      held = undefined;
      if (answer === "held") {
        unansweredSince = undefined;
        for (const c of waiting) send(c);
        socket.resume();
        return;
      }
      // Nothing of what waited goes on; the owner's half-sent frame, if any, is not finished either
      // (so a close frame can only follow a whole frame: else the client's socket is cut).
      relayed.detachOwner();
      upstream.destroy();
      if (!relayed.clientAtBoundary) return void socket.destroy();
      const code = answer === "lost" ? CloseCode.leaseLost : CloseCode.tryAgain;
      socket.end(closeFrame(code, closeReason(code)));
      setTimeout(() => socket.destroy(), 1000).unref();
    });
  });
}

/** Answer headers a relayed GET passes on (discovery JSON, problem documents, downloaded files). */
const relayedAnswerHeaders = [
  "content-type",
  "content-length",
  "content-disposition",
  "content-security-policy",
  "x-content-type-options",
  "cache-control",
  "referrer-policy",
  "retry-after",
];

/**
 * Relays a plain GET (CDP discovery, a session's downloaded file), or a POST with its body streamed
 * (a file uploaded into the session), to `target` and streams its answer back. The client's
 * credentials go along (the owner authenticates and audits the call); the deadline covers reaching
 * the owner and its headers, not a large file's transfer.
 */
export async function forwardRequest(auth: InternalAuth, target: NodeInfo, req: Request, client: string, res: Response): Promise<void> {
  const path = req.originalUrl;
  const method = req.method === "POST" ? "POST" : "GET";
  const headers: Record<string, string> = { ...auth.sign(target.id, method, path), "x-forwarded-for": client };
  const passed = ["authorization", "cookie", ...(method === "POST" ? ["content-type", "content-length", "sec-fetch-site", "origin"] : [])];
  for (const name of passed) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const body = method === "POST" ? { body: Readable.toWeb(req) as unknown as BodyInit, duplex: "half" } : {};
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), 10_000);
  res.once("close", () => abort.abort()); // the client went away: stop reading from the owner
  let upstream: globalThis.Response;
  try {
    upstream = await fetch(`${target.internalUrl}${path}`, { method, headers, redirect: "manual", signal: abort.signal, ...body } as RequestInit);
  } catch {
    throw new AppError("service-unavailable", "The node running this session cannot be reached; retry shortly.", {}, { "Retry-After": "2" });
  } finally {
    clearTimeout(deadline);
  }
  res.status(upstream.status);
  for (const name of relayedAnswerHeaders) {
    const value = upstream.headers.get(name);
    if (value) res.setHeader(name, value);
  }
  if (!upstream.body) return void res.end();
  await pipeline(Readable.fromWeb(upstream.body as import("node:stream/web").ReadableStream), res).catch(() => res.destroy());
}
