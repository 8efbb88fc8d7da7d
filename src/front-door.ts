import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { commaList } from "./comma-list.ts";
import { AppError } from "./errors.ts";
import { enterClientScope } from "./last-line.ts";
import { safeUrl, type Logger } from "./logger.ts";
import { problemBody } from "./kernel/problems.ts";

/**
 * What every connection meets before any route or WebSocket endpoint reads it. Node's HTTP parser
 * has already refused what is not HTTP; what it lets through is still only bytes a client chose,
 * so everything here is total: a malformed request is answered 4xx with a problem document, never
 * thrown at whoever reads it next.
 */

const ORIGIN = "http://localhost";

/**
 * The request target as a URL, or undefined when it is not one. Total: it never throws.
 *
 * Origin-form (`/path?query`, RFC 9112 §3.2.1) is read as a path, so `//host:99/x` is the path
 * `//host:99/x` (as Express reads it), not a scheme-relative address; absolute-form
 * (`http://host/path`) is read as a URL, and `http://[::1` is not one. The asterisk-form and the
 * authority-form (`OPTIONS *`, `CONNECT host:443`) name no resource this server has.
 */
export function requestUrl(target: string | undefined): URL | undefined {
  if (typeof target !== "string" || target.length === 0) return undefined;
  const text = target.startsWith("/") ? ORIGIN + target : target;
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return undefined;
  return new URL(text);
}

/** A Host header this server can put in a URL: a name, IPv4 or bracketed IPv6 address, and an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{1,5})?$/;

/**
 * Reads a request's target and Host, or says why they cannot be read. An absolute-form target is
 * turned into origin-form in `req.url` (RFC 9112 §3.2.2: the target's own authority wins over
 * Host), so every reader after this one sees a path: Express, GraphQL Yoga (which builds
 * `http://<Host><url>` and answers 500 when that is not a URL) and the cluster's relays.
 * An HTTP/1.1 request without Host is refused, as RFC 9112 §3.2 requires (Node's own check is off,
 * so the refusal is a problem document like every other).
 */
export function readTarget(req: IncomingMessage): URL | AppError {
  const url = requestUrl(req.url);
  if (!url) return new AppError("malformed-request", "The request target is neither a path nor an absolute http(s) URL.");
  const host = req.headers.host;
  // An empty Host is allowed (RFC 9112 §3.2, a target without authority); readers then use the socket's address.
  if (host === undefined ? req.httpVersion === "1.1" : host !== "" && (!HOST.test(host) || !URL.canParse(`http://${host}/`))) {
    return new AppError("malformed-request", "The Host header is missing or is not a host name (or address) with an optional port.");
  }
  if (!req.url!.startsWith("/")) req.url = url.pathname + url.search;
  return url;
}

/** A problem document for a request that never reached Express (no request id; no path when none could be read). */
function problemJson(error: AppError, baseUrl: string, path: string | undefined): string {
  const problem: Record<string, unknown> = problemBody(error, baseUrl, path ?? "", "");
  if (path === undefined) delete problem.instance;
  delete problem.request_id;
  return JSON.stringify(problem);
}

/** A whole HTTP answer carrying a problem document, for sockets that never became an Express response. */
export function rawProblem(error: AppError, baseUrl: string, path: string | undefined): string {
  const body = problemJson(error, baseUrl, path);
  const headers = Object.entries(error.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/problem+json\r\n${headers}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const SUBPROTOCOLS = new RegExp(`^${TOKEN}(?:[ \\t]*,[ \\t]*${TOKEN})*$`);

/**
 * Why a WebSocket handshake would be refused, before any endpoint sees it; undefined when it is a
 * handshake the `ws` library accepts (the same checks, in its order). Checked first so that every
 * endpoint answers a problem document rather than ws's bare text, and so that none opens anything
 * (a CDP channel on the browser's pipe, a database read) for a handshake that cannot complete.
 */
export function handshakeProblem(req: IncomingMessage): AppError | undefined {
  const bad = (detail: string, headers: Record<string, string> = {}) => new AppError("malformed-request", detail, {}, headers);
  if (req.method !== "GET") return new AppError("method-not-allowed", "A WebSocket handshake is a GET.", {}, { Allow: "GET" });
  if (req.headers.upgrade?.toLowerCase() !== "websocket") return bad("The Upgrade header must be websocket.");
  if (!/^[+/0-9A-Za-z]{22}==$/.test(req.headers["sec-websocket-key"] ?? ""))
    return bad("The Sec-WebSocket-Key header is missing or is not 16 bytes in base64.");
  const version = req.headers["sec-websocket-version"];
  if (version !== "13" && version !== "8") return bad("The Sec-WebSocket-Version header must be 13.", { "Sec-WebSocket-Version": "13, 8" });
  const protocols = req.headers["sec-websocket-protocol"];
  if (protocols !== undefined) {
    const names = commaList(protocols);
    if (!SUBPROTOCOLS.test(protocols) || new Set(names).size !== names.length)
      return bad("The Sec-WebSocket-Protocol header is not a list of distinct tokens.");
  }
  return undefined;
}

/** What Node's parser reports (`err.code`) → the problem answered before closing, as Node's own default picks the status. */
function clientErrorProblem(err: NodeJS.ErrnoException): AppError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return new AppError("headers-too-large", "The request's headers are larger than this server reads.");
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new AppError("payload-too-large", "The request's chunk extensions are larger than this server reads.");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new AppError("request-timeout", "The request did not arrive whole in time.");
    default:
      return new AppError("malformed-request", "The request is not valid HTTP/1.1 (its request line, a header, or its body framing).");
  }
}

export interface FrontDoorOptions {
  baseUrl: string;
  log: Logger;
}

/**
 * The HTTP server, with its front door:
 *
 * - every request and upgrade enters its client's scope (src/last-line.ts) before anything else
 *   runs, so whatever its handling starts is known to be that client's;
 * - a request whose target or Host is not a URL's is answered 400 here (readTarget): Express
 *   would answer it with its own HTML 404 before any middleware runs, and code after it throws;
 * - what Node's parser refuses is answered with a problem document (the status Node's default
 *   picks, with a body that says why), unless an answer on the connection is already under way.
 */
export function createFrontDoor(handler: (req: IncomingMessage, res: ServerResponse) => void, options: FrontDoorOptions): Server {
  // Node's own Host check answers a bare 400 before any listener runs; readTarget does it instead.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    enterClientScope({
      kind: "request",
      method: String(req.method),
      url: safeUrl(String(req.url)),
      // A response already sent is over: its keep-alive connection may carry the next request.
      cut: () => {
        if (!res.writableFinished) req.socket.destroy();
      },
    });
    const target = readTarget(req);
    if (!(target instanceof AppError)) return handler(req, res);
    const body = problemJson(target, options.baseUrl, undefined);
    res.shouldKeepAlive = false;
    res.writeHead(400, { "Content-Type": "application/problem+json", "Content-Length": Buffer.byteLength(body), "X-Content-Type-Options": "nosniff" });
    res.end(body);
  });
  server.prependListener("upgrade", (req: IncomingMessage, socket: Duplex) => {
    enterClientScope({ kind: "upgrade", method: String(req.method), url: safeUrl(String(req.url)), cut: () => socket.destroy() });
  });
  // Node's own answers to these are bare (417 without a body; CONNECT just cut): ours say why.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const body = problemJson(new AppError("expectation-failed", "Only Expect: 100-continue is supported."), options.baseUrl, undefined);
    res.shouldKeepAlive = false;
    res.writeHead(417, { "Content-Type": "application/problem+json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
    req.resume();
  });
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => {});
    socket.end(
      rawProblem(
        new AppError("method-not-allowed", "This server is not a proxy: CONNECT is not served.", {}, { Allow: "GET, HEAD, POST, PUT, PATCH, DELETE" }),
        options.baseUrl,
        undefined,
      ),
    );
  });
  server.on("clientError", (err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => {
    options.log.debug({ code: err.code, reason: err.reason }, "refused a request Node's parser could not read");
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent && err.code !== "ECONNRESET") {
      socket.end(rawProblem(clientErrorProblem(err), options.baseUrl, undefined));
    }
    socket.destroy();
  });
  return server;
}
