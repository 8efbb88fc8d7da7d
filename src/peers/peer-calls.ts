// Calling a peer node, and reading what it answered or why it could not be reached.
import http from "node:http";
import https from "node:https";
import { AppError, isProblemSlug } from "../errors.ts";
import type { InternalAuth } from "./internal-auth.ts";

/** Where a peer node is: its id (the calls are signed for it) and its internal URL. */
export interface PeerAddress {
  id: string;
  internalUrl: string;
}

/** An authenticated JSON call to a peer (POST `path` with `payload`); its JSON answer. */
export async function callPeer(auth: InternalAuth, node: PeerAddress, path: string, payload: unknown, timeoutMs: number): Promise<unknown> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${node.internalUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth.sign(node.id, "POST", path, body) },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return res.json();
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

/** Whether a call never reached its node (so another node may be tried; nothing happened over there). */
export function isConnectFailure(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"].includes(code ?? "");
}

/** Why {@link postWithAck} gave up: never reached the node (nothing happened there), or no word from it in time. */
export class PeerUnreached extends Error {
  constructor(
    readonly stage: "connect" | "ack" | "answer",
    message: string,
  ) {
    super(message);
  }
}

// Kept-alive connections to peers: a placed create at 10 ms between hosts saves a handshake.
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

/**
 * A signed POST to a peer that must be *acknowledged* within `ackMs`: the peer answers `102
 * Processing` as soon as it has the request (internal-api.ts), then its answer within `answerMs`.
 * So a peer cut off by a partition costs a caller `ackMs`, not the full answer deadline, even on a
 * kept-alive connection whose packets now vanish. A connection that could not be opened within
 * `ackMs` is "connect" (the request never left: another node may be tried).
 */
export function postWithAck(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { ackMs: number; answerMs: number },
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const lib = target.protocol === "https:" ? https : http;
    const req = lib.request(target, {
      method: "POST",
      agent: target.protocol === "https:" ? agents.https : agents.http,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    });
    let stage: PeerUnreached["stage"] = "connect";
    let timer = setTimeout(() => fail(new PeerUnreached(stage, `no word from ${target.host} within ${opts.ackMs} ms`)), opts.ackMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const acknowledged = () => {
      if (stage === "answer") return;
      stage = "answer";
      clearTimeout(timer);
      timer = setTimeout(() => fail(new PeerUnreached("answer", `${target.host} did not answer within ${opts.answerMs} ms`)), opts.answerMs);
    };
    req.on("socket", (socket) => {
      // A kept-alive socket is connected already: from here on only the peer's acknowledgement counts.
      if (!socket.connecting) stage = "ack";
      else socket.once("connect", () => (stage = stage === "connect" ? "ack" : stage));
    });
    req.on("information", acknowledged);
    req.on("error", (err) => {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      fail(
        stage === "connect" && ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH"].includes(code) ? new PeerUnreached("connect", err.message) : err,
      );
    });
    req.on("response", (res) => {
      acknowledged();
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", fail);
      res.on("end", () => {
        clearTimeout(timer);
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.end(body);
  });
}
