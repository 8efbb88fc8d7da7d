import type { IncomingMessage } from "node:http";
import net from "node:net";
import { TLSSocket } from "node:tls";
import type { Duplex } from "node:stream";
import { AppError } from "../errors.ts";
import { problemBody, toAppError } from "../kernel/problems.ts";
import type { Logger } from "../logger.ts";
import { CommandLog, type CommandLogSink } from "../browser/cdp/relay/command-log.ts";
import { CdpCallError, CdpPipeClosed, type CdpChannel } from "../browser/cdp/pipe/pipe.ts";
import { clientsOf, relayClient, type RelayOptions } from "../browser/cdp/relay/relay.ts";
import { CloseCode, closeReason } from "../browser/close-codes.ts";
import type { BrowserLease } from "../browser/pool/types.ts";
import type { RelayLink } from "../browser/cdp/pipe/relay-link.ts";
import type { CdpGrant, CdpProxyPorts } from "../services/sessions/cdp-access.ts";

/** `/cdp` is the browser target; `/cdp/devtools/page/<id>` a page target (what /cdp/json/list hands out). */
const pagePath = /^\/cdp\/devtools\/page\/([A-Za-z0-9-]{1,64})$/;

/**
 * A CDP WebSocket of a session's client. No client reaches the browser before its token and the
 * session are checked. The client's WebSocket ends here: it gets a channel of its own on the
 * browser's pipe (browser/cdp/pipe/pipe.ts; the browser has no port to connect to), and its commands pass the
 * method policy on their way (browser/cdp/relay/relay.ts). `/cdp` is the browser target; a page endpoint gets a
 * channel rooted at that page, so the client speaks page-level CDP as with Chromium's own.
 */
export async function handleCdpUpgrade(ports: CdpProxyPorts, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  let grant: CdpGrant;
  let channel: CdpChannel;
  let release: (() => void) | undefined;
  try {
    grant = await ports.authorize(req, url);
    // The socket's slot is taken before anything else is awaited, and given back however it ends.
    const slot = ports.runtime.reserveClient(grant.sessionId, ports.maxSocketsPerSession);
    if (slot === "full") return tooMany(ports, grant.sessionId, { req, socket, head });
    if (!slot) throw new AppError("gone", "The session has ended.");
    release = slot;
    const link = grant.lease.cdp.link;
    if (link && socket instanceof net.Socket && !(socket instanceof TLSSocket)) {
      // A profile going into the browser first (browser/cdp/pipe/pipe.ts held): the host opens channels unheld.
      if (grant.lease.cdp.held) await grant.lease.cdp.held;
      return handOver(ports, grant, link, { req, socket, head, url }, slot);
    }
    // Relayed here, the client's WebSocket lives exactly as long as this socket: its close (a refusal,
    // the client's or our close, an error, the session's teardown, a drain) gives the slot back.
    socket.once("close", slot);
    if (socket.destroyed) slot();
    channel = await attach(ports, grant, url);
  } catch (err) {
    release?.();
    refuse(ports, socket, url, err);
    return;
  }
  relay(ports, grant, channel, { req, socket, head, url });
}

/**
 * The relay host owns the browser's pipe (browser/cdp/relay/host.ts): the handshake, authorised here, is
 * completed and relayed there. What the relay reports comes back as the client's events.
 */
function handOver(
  ports: CdpProxyPorts,
  grant: CdpGrant,
  link: RelayLink,
  upgrade: { req: IncomingMessage; socket: net.Socket; head: Buffer; url: URL },
  slot: () => void,
): void {
  const { sessionId, lease } = grant;
  const { req, socket, head, url } = upgrade;
  if (!ports.runtime.endpoint(sessionId) || socket.destroyed) {
    slot();
    if (!socket.destroyed) refuse(ports, socket, url, new AppError("gone", "The session has ended."));
    return;
  }
  const opts = relayOptions(ports, sessionId, lease);
  // The host keeps the command log (it sees the answers); its entries come back here to the session's logs.
  const commandLog = ports.commandLog?.(sessionId);
  const page = pagePath.exec(url.pathname)?.[1];
  const early = stopReading(socket);
  const client = link.handOver(socket, {
    ...(page ? { page } : {}),
    policy: opts.policy,
    downloads: opts.downloads,
    maxPayload: ports.maxMessageBytes,
    logs: commandLog !== undefined,
    req: { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers },
    head: Buffer.concat([head, early]).toString("base64"),
    refusals: {
      gone: refusal(ports, url, new CdpPipeClosed()),
      notFound: refusal(ports, url, new AppError("not-found", "No such target in this session's browser.")),
      unavailable: refusal(ports, url, new CdpCallError("Target.attachToBrowserTarget", "timed out")),
    },
  });
  // This process's copy of the socket closes once handed over; the client's end is the host's report (or the link's end).
  client.once("close", slot);
  client.on("refused", opts.onRefused);
  client.on("redirected", (method: string) => opts.onRedirected?.(method));
  client.on("downloads", (context: string | null) => opts.onDownloadBehaviour?.(context));
  client.on("browserClose", () => opts.onBrowserClose?.());
  client.on("command", ([method, at, durationMs, refused, run]: Parameters<CommandLogSink>) => commandLog?.(method, at, durationMs, refused, run ?? undefined));
  client.once("open", () => {
    if (!ports.runtime.attach(sessionId, client)) client.close(CloseCode.sessionEnded, closeReason(CloseCode.sessionEnded));
  });
}

/** How long a refused client gets to answer our close frame before its socket is cut. */
const REFUSED_CLOSE_GRACE_MS = 2_000;

/**
 * One socket more than the session may have: the handshake completes only so the client can be
 * told why, with 1008 (policy violation) and a reason; it never reaches the browser.
 */
function tooMany(ports: CdpProxyPorts, sessionId: string, upgrade: { req: IncomingMessage; socket: Duplex; head: Buffer }): void {
  ports.log.info({ sessionId, max: ports.maxSocketsPerSession }, "cdp proxy: socket refused, the session has as many as it may");
  clientsOf(ports.maxMessageBytes).handleUpgrade(upgrade.req, upgrade.socket, upgrade.head, (client) => {
    client.on("error", () => client.terminate());
    client.close(CloseCode.policy, `a session may have at most ${ports.maxSocketsPerSession} CDP sockets open (VESSEL_CDP_MAX_SOCKETS_PER_SESSION)`);
    setTimeout(() => client.terminate(), REFUSED_CLOSE_GRACE_MS).unref();
  });
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
    const commandLog = ports.commandLog?.(sessionId);
    relayClient(client, channel, { ...relayOptions(ports, sessionId, lease), ...(commandLog ? { commands: new CommandLog(commandLog) } : {}) });
    // Counted (and its cdp.connected recorded, browser/runtime/runtime.ts's onClient) once it really is connected;
    // the runtime closes it with the code that says why its session ended. A session that ends
    // meanwhile refuses the attach: the client is told so at once.
    if (!ports.runtime.attach(sessionId, client)) client.close(CloseCode.sessionEnded, closeReason(CloseCode.sessionEnded));
  });
}

/**
 * Stops this process reading a socket about to be handed over, and answers what it read already.
 * Until the handover completes, both processes hold the socket; whatever this one read would be
 * lost (a client sends its first command as soon as it reads the 101 the host writes).
 */
function stopReading(socket: net.Socket): Buffer {
  socket.pause();
  const read: Buffer[] = [];
  for (let chunk: Buffer | null = socket.read(); chunk !== null; chunk = socket.read()) read.push(chunk);
  // After the reads above (which may start the handle reading again); nothing is read before the
  // event loop polls, and from here on nothing will be.
  (socket as unknown as { _handle?: { readStop?(): void } })._handle?.readStop?.();
  return Buffer.concat(read);
}

/** What the relay reports back: refusals to the session's events, a client's Browser.close to the runtime. */
function relayOptions(ports: CdpProxyPorts, sessionId: string, lease: BrowserLease): Omit<RelayOptions, "commands"> {
  return {
    policy: ports.enforcesPolicy,
    downloads: lease.downloadsDir,
    onDownloadBehaviour: (context) => lease.downloads?.clientConfigured(context),
    onRefused: (method, reason) => {
      ports.log.info({ sessionId, method }, "cdp proxy: command refused by policy");
      ports.recordRefusal(sessionId, method, reason);
    },
    // Not a refusal: the command went through, into the session's download folder (Playwright sets a
    // folder of its own on every connect). A cdp.refused event here showed every connect as refused.
    onRedirected: (method) => ports.log.debug({ sessionId, method }, "cdp proxy: download folder set to the session's own"),
    onBrowserClose: () => ports.runtime.releasedByClient(sessionId),
    browserAlive: () => lease.cdp.isOpen,
  };
}

/** Answers a handshake that cannot go on with its problem document, on the raw socket (no WebSocket yet). */
function refuse(ports: CdpProxyPorts, socket: Duplex, url: URL, err: unknown): void {
  socket.end(refusal(ports, url, err));
}

/** The HTTP response that refuses a handshake with `err`'s problem document. */
function refusal(ports: CdpProxyPorts, url: URL, err: unknown): string {
  const known = handshakeProblem(err);
  if (!known) ports.log.error({ err }, "cdp proxy: upgrade failed");
  const error = known ?? new AppError("internal-error", "The connection could not be set up.");
  const body = JSON.stringify(problemBody(error, ports.publicBaseUrl, url.pathname, ""));
  const headers = Object.entries(error.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/problem+json\r\n${headers}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * The problem a failed handshake (or discovery request) answers with; undefined for a fault nobody
 * expected. A dependency that does not answer (the browser's pipe here; the database the authorize
 * port reads, mapped by the kernel as on every surface) is 503 with Retry-After: the client should
 * retry, and nothing is wrong with its request.
 */
export function handshakeProblem(err: unknown): AppError | undefined {
  if (err instanceof CdpPipeClosed) return new AppError("gone", "The session's browser is no longer running.");
  if (err instanceof CdpCallError)
    return new AppError("service-unavailable", "The session's browser did not answer in time; retry shortly.", {}, { "Retry-After": "1" });
  const { error, unexpected } = toAppError(err);
  return unexpected ? undefined : error;
}
