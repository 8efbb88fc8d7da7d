import type { IncomingMessage, ServerResponse } from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { databaseUnavailable, isDatabaseUnavailable } from "../db/errors.ts";
import { AppError } from "../kernel/errors.ts";
import { problemBody } from "../kernel/problems.ts";
import type { Logger } from "../logger.ts";
import { WebSocketServer } from "ws";
import { CdpCallError, CdpPipeClosed, type CdpChannel } from "./cdp-pipe.ts";
import { relayClient, type RelayOptions } from "./cdp-relay.ts";
import { CloseCode, closeReason } from "./close-codes.ts";
import type { BrowserLease } from "./pool-types.ts";
import type { SessionRuntime } from "./runtime.ts";

/** A discovery request waits at most this long for the browser. */
const DISCOVERY_TIMEOUT_MS = 5_000;

/** `/cdp` is the browser target; `/cdp/devtools/page/<id>` a page target (what /cdp/json/list hands out). */
const pagePath = /^\/cdp\/devtools\/page\/([A-Za-z0-9-]{1,64})$/;

/** A client's right to one session's browser, as the sessions domain grants it. */
export interface CdpGrant {
  /** The credential the client presented (discovery hands it back inside the addresses it lists). */
  token: string;
  sessionId: string;
  lease: BrowserLease;
}

/**
 * What the proxy is given by the composition root: it knows browsers and sockets, never sessions'
 * rows, tokens or events (services/sessions/cdp-access.ts builds these).
 */
export interface CdpProxyPorts {
  /** Which session the request may reach; throws the AppError to answer with. */
  authorize(req: IncomingMessage, url: URL): Promise<CdpGrant>;
  runtime: Pick<SessionRuntime, "endpoint" | "takeChannel" | "attach" | "releasedByClient">;
  enforcesPolicy: boolean;
  maxMessageBytes: number;
  publicBaseUrl: string;
  log: Logger;
  /** A command the policy refused (or redirected), for the session's events. */
  recordRefusal(sessionId: string, method: string, reason: string): void;
}

/**
 * The problem a failed handshake answers with. A dependency that does not answer (the database, the
 * browser's pipe) is 503 with Retry-After, as on every other surface: the client should retry, and
 * nothing is wrong with its request.
 */
function handshakeProblem(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (err instanceof CdpPipeClosed) return new AppError("gone", "The session's browser is no longer running.");
  if (err instanceof CdpCallError) return new AppError("service-unavailable", "The session's browser did not answer in time; retry shortly.", {}, { "Retry-After": "1" });
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  return undefined;
}

function refuse(ports: CdpProxyPorts, socket: Duplex, url: URL, err: unknown): void {
  const error = handshakeProblem(err) ?? new AppError("internal-error", "The connection could not be set up.");
  if (!handshakeProblem(err)) ports.log.error({ err }, "cdp proxy: upgrade failed");
  const body = JSON.stringify(problemBody(error, ports.publicBaseUrl, url.pathname, ""));
  const headers = Object.entries(error.headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(
    `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/problem+json\r\n${headers}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The WebSocket server for clients whose messages may be up to `maxPayload` bytes
 * (`VESSEL_CDP_MAX_MESSAGE_BYTES`): ws closes a client that sends more with 1009 as soon as the
 * frame header announces it, before buffering it. One per size (in practice one per process).
 */
const clientServers = new Map<number, WebSocketServer>();
function clientsOf(maxPayload: number): WebSocketServer {
  let server = clientServers.get(maxPayload);
  if (!server) clientServers.set(maxPayload, (server = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload })));
  return server;
}

/**
 * A CDP WebSocket of a session's client. No client reaches the browser before its token and the
 * session are checked. The client's WebSocket ends here: it gets a channel of its own on the
 * browser's pipe (cdp-pipe.ts; the browser has no port to connect to), and its commands pass the
 * method policy on their way (cdp-relay.ts). `/cdp` is the browser target; a page endpoint gets a
 * channel rooted at that page, so the client speaks page-level CDP as with Chromium's own.
 */
export async function handleCdpUpgrade(ports: CdpProxyPorts, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  let grant: CdpGrant;
  let channel: CdpChannel;
  try {
    grant = await ports.authorize(req, url);
    channel = await attach(ports, grant, url);
  } catch (err) {
    refuse(ports, socket, url, err);
    return;
  }
  relay(ports, grant, channel, { req, socket, head, url });
}

/** A channel of its own on the browser's pipe: rooted at the page a page endpoint names, else the browser. */
async function attach(ports: CdpProxyPorts, grant: CdpGrant, url: URL): Promise<CdpChannel> {
  const page = pagePath.exec(url.pathname)?.[1];
  if (page) {
    return grant.lease.cdp.openTarget(page).catch(() => {
      throw new AppError("not-found", "No such target in this session's browser.");
    });
  }
  // The channel opened as the session started, for its first client; else a new one.
  return ports.runtime.takeChannel(grant.sessionId) ?? (await grant.lease.cdp.open());
}

/** Completes the handshake and relays the client's WebSocket to its channel until either side ends. */
function relay(ports: CdpProxyPorts, grant: CdpGrant, channel: CdpChannel, upgrade: { req: IncomingMessage; socket: Duplex; head: Buffer; url: URL }): void {
  const { sessionId, lease } = grant;
  const { req, socket, head, url } = upgrade;
  // A session that ended meanwhile: nothing to relay to (410, as a new handshake would get).
  if (!ports.runtime.endpoint(sessionId) || socket.destroyed || !channel.isOpen) {
    channel.close();
    if (!socket.destroyed) refuse(ports, socket, url, new AppError("gone", "The session has ended."));
    return;
  }
  (socket as net.Socket).setNoDelay?.(true);
  clientsOf(ports.maxMessageBytes).handleUpgrade(req, socket, head, (client) => {
    relayClient(client, channel, relayOptions(ports, sessionId, lease));
    // Counted (and its cdp.connected recorded, runtime.ts's onClient) once it really is connected;
    // the runtime closes it with the code that says why its session ended. A session that ends
    // meanwhile refuses the attach: the client is told so at once.
    if (!ports.runtime.attach(sessionId, client)) client.close(CloseCode.sessionEnded, closeReason(CloseCode.sessionEnded));
  });
}

function relayOptions(ports: CdpProxyPorts, sessionId: string, lease: BrowserLease): RelayOptions {
  return {
    policy: ports.enforcesPolicy,
    downloads: lease.downloadsDir,
    onDownloadBehaviour: (context) => lease.downloads?.clientConfigured(context),
    onRefused: (method, reason) => {
      ports.log.info({ sessionId, method }, "cdp proxy: command refused by policy");
      ports.recordRefusal(sessionId, method, reason);
    },
    onRedirected: (method) => ports.recordRefusal(sessionId, method, "download folder replaced by the session's own"),
    onBrowserClose: () => ports.runtime.releasedByClient(sessionId),
    browserAlive: () => lease.cdp.isOpen,
  };
}

/** `GET /cdp/json/version` and `/cdp/json/list`: Chromium's discovery answers, with addresses that lead back through the proxy. */
export async function handleCdpDiscovery(ports: CdpProxyPorts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  try {
    const { token, lease } = await ports.authorize(req, url);
    const which = url.pathname.replace(/^\/cdp\/json\/?/, "") || "list";
    if (!["version", "list"].includes(which)) throw new AppError("not-found", "Only /cdp/json/version and /cdp/json/list are served.");
    const wsBase = `${ports.publicBaseUrl.replace(/^http/, "ws")}/cdp`;
    const body = which === "version" ? await versionEntry(lease, `${wsBase}?token=${token}`) : await targetEntries(lease, (id) => `${wsBase}/devtools/page/${id}?token=${token}`);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(body));
  } catch (err) {
    const error = handshakeProblem(err) ?? new AppError("service-unavailable", "The browser did not answer; retry shortly.", {}, { "Retry-After": "1" });
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.statusCode = error.status;
    res.setHeader("Content-Type", "application/problem+json");
    res.end(JSON.stringify(problemBody(error, ports.publicBaseUrl, url.pathname, "")));
  }
}

/** What Chromium's own `/json/version` says, from the pipe (the browser serves no HTTP). */
async function versionEntry(lease: BrowserLease, webSocketDebuggerUrl: string) {
  const v = await lease.cdp.call<{ protocolVersion: string; product: string; revision: string; userAgent: string; jsVersion: string }>("Browser.getVersion", {}, DISCOVERY_TIMEOUT_MS);
  return { Browser: v.product, "Protocol-Version": v.protocolVersion, "User-Agent": v.userAgent, "V8-Version": v.jsVersion, "WebKit-Version": `537.36 (${v.revision})`, webSocketDebuggerUrl };
}

/** What Chromium's own `/json/list` says: every target but the browser, each with its endpoint through the proxy. */
async function targetEntries(lease: BrowserLease, endpoint: (targetId: string) => string) {
  const { targetInfos } = await lease.cdp.call<{ targetInfos: Array<{ targetId: string; type: string; title: string; url: string }> }>("Target.getTargets", {}, DISCOVERY_TIMEOUT_MS);
  return targetInfos
    .filter((t) => t.type !== "browser" && t.type !== "tab")
    .map((t) => ({ description: "", id: t.targetId, title: t.title, type: t.type, url: t.url, webSocketDebuggerUrl: endpoint(t.targetId) }));
}
