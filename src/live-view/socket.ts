import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer, type RawData } from "ws";
import { AppError } from "../errors.ts";
import { problemBody } from "../kernel/problems.ts";
import type { AppDeps } from "../kernel/context.ts";
import { authorizeLiveView } from "../services/sessions/live-view.ts";
import {
  AUTH_TIMEOUT_MS,
  AuthMessage,
  CLOSE_ENDED,
  CLOSE_FULL,
  CLOSE_GOING_AWAY,
  CLOSE_NO_SESSION,
  CLOSE_POLICY,
  CLOSE_RETRY,
  CLOSE_REVOKED,
  ClientMessage,
  MAX_MESSAGE_BYTES,
  MAX_VIEWERS_PER_SESSION,
  parseMessage,
} from "./protocol.ts";
import { startViewerRecheck } from "./recheck.ts";
import { Viewer } from "./viewer.ts";

export const viewerSocketPath = "/live-view/socket";

/** Messages a page may send while its viewer is being set up (it should wait for `hello`; a few early ones are kept). */
const MAX_EARLY_MESSAGES = 32;
/** How long closing sockets get to finish their handshake when the server stops. */
const SHUTDOWN_GRACE_MS = 1_000;

/**
 * The viewer's WebSocket. The token never travels in the socket's URL (access logs, proxies): the
 * page sends it as its first message, which must come within AUTH_TIMEOUT_MS. The handshake itself
 * is refused unless it comes from a page of our own origin (the browser sets Origin; a page
 * elsewhere cannot forge it), so another site cannot open a viewer with a token it got hold of.
 */
export function createViewerSockets(deps: AppDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
  const origin = new URL(deps.config.publicBaseUrl).origin;
  const viewers = new Set<Viewer>();
  // Revocation holds even if its pub/sub message is lost: this node re-reads the generations itself.
  const stopRecheck = startViewerRecheck(deps, () => viewers, deps.log.child({ component: "live-view" }));

  function refuse(socket: Duplex, error: AppError): void {
    const body = JSON.stringify(problemBody(error, deps.config.publicBaseUrl, viewerSocketPath, ""));
    socket.end(
      `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (req.headers.origin !== origin) {
      return refuse(socket, new AppError("forbidden", "The live view only opens from its own page."));
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req));
  }

  function accept(ws: WebSocket, req: IncomingMessage): void {
    ws.on("error", (err) => deps.log.debug({ err }, "live view: socket error"));
    const early: RawData[] = [];
    let viewer: Viewer | undefined;
    let authenticated = false;
    const timer = setTimeout(
      () => finish(ws, CLOSE_POLICY, "unauthenticated", "The live view did not identify itself in time. Reload the page."),
      AUTH_TIMEOUT_MS,
    );

    ws.on("message", (data, isBinary) => {
      if (!authenticated) {
        authenticated = true;
        clearTimeout(timer);
        const auth = isBinary ? undefined : parseMessage(AuthMessage, data.toString());
        if (!auth) return finish(ws, CLOSE_POLICY, "protocol", "The live view sent an unexpected first message. Reload the page.");
        void open(ws, req, auth, (v) => {
          // The viewer takes messages from now on (it ignores input until its picture is up).
          viewer = v;
          for (const m of early.splice(0)) deliver(v, m, false);
        });
        return;
      }
      if (viewer) return deliver(viewer, data, isBinary);
      if (early.length >= MAX_EARLY_MESSAGES) return finish(ws, CLOSE_POLICY, "protocol", "Too many messages before the live view started.");
      if (!isBinary) early.push(data);
    });
    ws.on("close", () => {
      clearTimeout(timer);
      if (viewer) viewers.delete(viewer);
    });
  }

  function deliver(viewer: Viewer, data: RawData, isBinary: boolean): void {
    const msg = isBinary ? undefined : parseMessage(ClientMessage, data.toString());
    if (!msg) return viewer.end("protocol", "The live view sent a message the server does not accept.", CLOSE_POLICY);
    viewer.handle(msg);
  }

  async function open(ws: WebSocket, req: IncomingMessage, auth: AuthMessage, joined: (viewer: Viewer) => void): Promise<void> {
    let authorized: Awaited<ReturnType<typeof authorizeLiveView>>;
    try {
      authorized = await authorizeLiveView(deps, auth.token);
    } catch (err) {
      const error = err instanceof AppError ? err : undefined;
      if (!error) deps.log.error({ err }, "live view: could not check a token");
      if (!error || error.status >= 500) {
        // An outage (database, token keys) is not a refusal: the page retries.
        finish(ws, CLOSE_RETRY, "unavailable", error?.detail ?? "The live view cannot start right now; retrying shortly.");
      } else if (error.status === 410) {
        finish(ws, CLOSE_ENDED, "session_ended", error.detail);
      } else {
        finish(ws, error.status === 404 ? CLOSE_NO_SESSION : CLOSE_REVOKED, "refused", error.detail);
      }
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    const { session, claims } = authorized;
    const lease = deps.runtime.endpoint(session.id);
    if (!lease) {
      finish(ws, CLOSE_ENDED, "session_ended", "The session's browser is no longer running.");
      return;
    }
    if (deps.runtime.viewerCount(session.id) >= MAX_VIEWERS_PER_SESSION) {
      finish(ws, CLOSE_FULL, "full", `Already ${MAX_VIEWERS_PER_SESSION} people are watching this session. Try again later.`);
      return;
    }
    const viewer = new Viewer({
      deps,
      ws,
      session,
      claims,
      lease,
      userAgent: String(req.headers["user-agent"] ?? ""),
      viewport: { w: auth.w, h: auth.h, dpr: auth.dpr },
    });
    viewers.add(viewer);
    // start() joins the session before its first await, so the viewer is ready for messages right after.
    const started = viewer.start();
    joined(viewer);
    if (!(await started)) {
      viewers.delete(viewer);
      finish(ws, CLOSE_ENDED, "session_ended", "The session has ended.");
    }
  }

  /** A refusal before any viewer exists: the reason as the last message, then the close. */
  function finish(ws: WebSocket, code: number, reason: string, message: string): void {
    if (ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify({ t: "end", reason, message }));
      ws.close(code, reason);
    }
  }

  return {
    handleUpgrade,
    /**
     * Server shutdown: anyone still connected is told (sessions end first, with their own message),
     * and sockets that do not finish their closing handshake promptly are cut, so the server can stop.
     */
    async close(): Promise<void> {
      stopRecheck();
      for (const viewer of viewers) viewer.end("server_stopping", "The server is stopping.", CLOSE_GOING_AWAY);
      for (const ws of wss.clients) finish(ws, CLOSE_GOING_AWAY, "server_stopping", "The server is stopping.");
      const closing = [...wss.clients].map((ws) => new Promise<void>((resolve) => ws.once("close", () => resolve())));
      await Promise.race([Promise.all(closing), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
