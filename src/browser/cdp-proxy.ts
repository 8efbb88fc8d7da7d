import type { IncomingMessage, ServerResponse } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { KeyStoreUnavailable } from "../auth/session-tokens.ts";
import { AppError } from "../errors.ts";
import { problemBody } from "../rest/problems.ts";
import type { AppDeps } from "../services/context.ts";
import { CdpFrameFilter } from "./cdp-filter.ts";
import { acceptFor, isWebSocketKey } from "./cdp-upstream.ts";
import type { BrowserLease } from "./pool.ts";

/** `/cdp` is the browser target; `/cdp/devtools/page/<id>` a page target (what /cdp/json/list hands out). */
const pagePath = /^\/cdp\/devtools\/page\/([A-Za-z0-9-]{1,64})$/;

function tokenOf(req: IncomingMessage, url: URL): string | undefined {
  return url.searchParams.get("token") ?? /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
}

/**
 * Which session a CDP request may reach: a valid `cdp` token for a session RUNNING on this node.
 *
 * With the embedded database this process is the only node (PGlite's folder is locked to one
 * process), so every end of a session is recorded here, and the runtime stops offering the
 * session's browser right after the end is committed (closing any socket that attached meanwhile).
 * A session the runtime still offers is therefore RUNNING, and the database read, the costliest
 * step of a connect on PGlite, is skipped; the token's signature already binds the session to its
 * workspace. Anything else (PostgreSQL, where another node may have ended the session; a session
 * not running here) is read from the database, which also words the refusal.
 */
async function authorize(deps: AppDeps, req: IncomingMessage, url: URL) {
  const token = tokenOf(req, url);
  if (!token) throw new AppError("unauthenticated", "Connect with the session's connect_url (its token is the credential).");
  const claims = await deps.tokens.verify(token, "cdp").catch((err: unknown) => {
    if (err instanceof KeyStoreUnavailable) throw new AppError("service-unavailable", "Tokens cannot be checked right now; retry shortly.", {}, { "Retry-After": "2" });
    throw err;
  });
  if (deps.db.kind === "pglite") {
    const running = deps.runtime.endpoint(claims.sessionId);
    if (running) return { token, sessionId: claims.sessionId, lease: running };
  }
  const session = await deps.db.prisma.session.findUnique({ where: { id: claims.sessionId }, select: { status: true, workspaceId: true } });
  if (!session || session.workspaceId !== claims.workspaceId) throw new AppError("not-found", "No such session.");
  if (session.status !== "RUNNING") throw new AppError("gone", `The session has ended (${session.status}).`);
  const lease = deps.runtime.endpoint(claims.sessionId);
  if (!lease) throw new AppError("gone", "The session's browser is no longer running.");
  return { token, sessionId: claims.sessionId, lease };
}

function refuse(deps: AppDeps, socket: Duplex, url: URL, err: unknown): void {
  const error = err instanceof AppError ? err : new AppError("internal-error", "The connection could not be set up.");
  if (!(err instanceof AppError)) deps.log.error({ err }, "cdp proxy: upgrade failed");
  const body = JSON.stringify(problemBody(error, deps.config.publicBaseUrl, url.pathname, ""));
  socket.end(
    `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The handshake Chromium receives: the client's own key, none of its credentials or origin, and no
 * extensions — compression would hide commands from the method policy, and on loopback it only costs.
 */
function upstreamHandshake(req: IncomingMessage, path: string, port: number): string {
  const h = req.headers;
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${h["sec-websocket-key"] ?? ""}`,
    `Sec-WebSocket-Version: ${h["sec-websocket-version"] ?? "13"}`,
  ];
  if (h["sec-websocket-protocol"]) lines.push(`Sec-WebSocket-Protocol: ${h["sec-websocket-protocol"]}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * Relays a CDP WebSocket to the session's Chromium: the handshake is forwarded (Chromium's 101
 * answers the client's own key), then Chromium's frames flow to the client as a byte pipe, and the
 * client's pass the method policy (cdp-filter.ts: a cheap search, a parse only when it finds
 * something) on their way in. No client reaches the browser before its token and the session are
 * checked; the connection the runtime opened as the session started (cdp-upstream.ts) is handed to
 * the first client that passes, which then gets its handshake's answer from this process.
 */
export async function handleCdpUpgrade(deps: AppDeps, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  let target: Awaited<ReturnType<typeof authorize>>;
  try {
    target = await authorize(deps, req, url);
  } catch (err) {
    refuse(deps, socket, url, err);
    return;
  }
  const { lease, sessionId } = target;
  const page = pagePath.exec(url.pathname)?.[1];
  const key = req.headers["sec-websocket-key"];
  // The browser target, asked for plainly, goes over the connection opened as the session started
  // (its first client only; cdp-upstream.ts says why); anything else connects now.
  const parked = !page && !req.headers["sec-websocket-protocol"] && isWebSocketKey(key) && req.headers["sec-websocket-version"] === "13"
    ? await deps.runtime.takeUpstream(sessionId)
    : undefined;
  const upstream = parked ?? net.connect({ host: "127.0.0.1", port: lease.port });
  upstream.setNoDelay(true);
  (socket as net.Socket).setNoDelay?.(true);
  const close = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.once("error", close);
  socket.once("error", close);
  upstream.once("close", close);
  socket.once("close", close);
  // Checked now, attached once Chromium has answered the handshake: a client counts (and its
  // cdp.connected is recorded, runtime.ts's onClient) once it really is connected. A session that
  // ends meanwhile refuses the attach, and the socket closes then.
  if (!deps.runtime.endpoint(sessionId) || socket.destroyed) return close();
  const attach = () => {
    if (!socket.destroyed && !deps.runtime.attach(sessionId, socket)) close();
  };
  if (parked) {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor(key!)}\r\n\r\n`);
    relay(deps, sessionId, lease, socket, upstream, head, close);
    attach();
    return;
  }
  const path = page ? `/devtools/page/${page}` : new URL(lease.wsEndpoint).pathname;
  upstream.once("connect", () => {
    upstream.write(upstreamHandshake(req, path, lease.port));
    relay(deps, sessionId, lease, socket, upstream, head, close);
    // After the pipe's own listener: the answer is on its way to the client when this runs.
    upstream.once("data", attach);
  });
}

/**
 * The frames of a connected client: Chromium's flow to it as a byte pipe; its own pass the method
 * policy on their way in, straight from the data handler, with the backpressure a pipe would apply.
 */
function relay(deps: AppDeps, sessionId: string, lease: BrowserLease, socket: Duplex, upstream: net.Socket, head: Buffer, close: () => void): void {
  upstream.pipe(socket);
  if (!deps.browsers.enforcesPolicy) {
    if (head.length > 0) upstream.write(head);
    socket.pipe(upstream);
    return;
  }
  const filter = policyFilter(deps, sessionId, lease, (bytes) => {
    if (!upstream.write(bytes)) socket.pause();
  });
  upstream.on("drain", () => socket.resume());
  const feed = (chunk: Buffer) => {
    try {
      filter.feed(chunk);
    } catch {
      close(); // a frame over the size limit
    }
  };
  if (head.length > 0) feed(head);
  socket.on("data", feed);
  socket.once("end", () => upstream.end());
}

function policyFilter(deps: AppDeps, sessionId: string, lease: BrowserLease, emit: (bytes: Buffer) => void): CdpFrameFilter {
  return new CdpFrameFilter({
    downloads: lease.downloadsDir,
    onDownloadBehaviour: (context) => lease.downloads?.clientConfigured(context),
    onRefused: (method, reason) => {
      deps.log.info({ sessionId, method }, "cdp proxy: command refused by policy");
      deps.events.later(sessionId, "cdp.refused", { method, reason });
    },
    onRedirected: (method) => deps.events.later(sessionId, "cdp.refused", { method, reason: "download folder replaced by the session's own" }),
  }, emit);
}

/** `GET /cdp/json/version` and `/cdp/json/list`: Chromium's discovery answers, with addresses that lead back through the proxy. */
export async function handleCdpDiscovery(deps: AppDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  try {
    const { token, lease } = await authorize(deps, req, url);
    const which = url.pathname.replace(/^\/cdp\/json\/?/, "") || "list";
    if (!["version", "list"].includes(which)) throw new AppError("not-found", "Only /cdp/json/version and /cdp/json/list are served.");
    const upstream = await fetch(`http://127.0.0.1:${lease.port}/json/${which}`);
    const body = (await upstream.json()) as Record<string, unknown> | Array<Record<string, unknown>>;
    const wsBase = `${deps.config.publicBaseUrl.replace(/^http/, "ws")}/cdp`;
    const rewrite = (entry: Record<string, unknown>) => {
      const { devtoolsFrontendUrl: _local, ...rest } = entry;
      const debuggerUrl = typeof entry.webSocketDebuggerUrl === "string" ? new URL(entry.webSocketDebuggerUrl).pathname : "";
      const page = /^\/devtools\/page\/([A-Za-z0-9-]+)$/.exec(debuggerUrl)?.[1];
      return { ...rest, webSocketDebuggerUrl: `${wsBase}${page ? `/devtools/page/${page}` : ""}?token=${token}` };
    };
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(Array.isArray(body) ? body.map(rewrite) : rewrite(body)));
  } catch (err) {
    const error = err instanceof AppError ? err : new AppError("internal-error", "The browser did not answer.");
    res.statusCode = error.status;
    res.setHeader("Content-Type", "application/problem+json");
    res.end(JSON.stringify(problemBody(error, deps.config.publicBaseUrl, url.pathname, "")));
  }
}
