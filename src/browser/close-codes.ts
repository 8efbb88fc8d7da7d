import type { EndReason } from "../generated/prisma/client.ts";

/**
 * The close codes of the session sockets (a CDP client's WebSocket, a live viewer's), one meaning
 * each, so a client can tell from the code alone whether coming back can help (docs/sessions.md, "WebSocket
 * close codes"). 1xxx are RFC 6455's; 4xxx mirror the HTTP status a new handshake would get.
 */
export const CloseCode = {
  /** The node is shutting down (SIGTERM drain ended, or a stop): reconnect through the load balancer. */
  goingAway: 1001,
  /**
   * The client broke the protocol (live view: a bad or late first message, too many messages), or
   * asked for more than a session allows (a CDP socket past VESSEL_CDP_MAX_SOCKETS_PER_SESSION:
   * retry once another of the session's sockets has closed).
   */
  policy: 1008,
  /** The session's browser crashed or was killed for not answering: the session has failed. Final. */
  browserCrashed: 1011,
  /** A fault on our side that may pass (the database or the browser briefly unreachable): retry. */
  tryAgain: 1013,
  /** The credential was refused or revoked (live-view link closed by the owner, the session's API key revoked). Final. */
  revoked: 4403,
  /** The credential names no session of its workspace (live view). Final. */
  noSuchSession: 4404,
  /** The session has ended (released, force-stopped, timed out, idle). Final. */
  sessionEnded: 4410,
  /** Too many live viewers on this session right now. */
  full: 4429,
  /**
   * The node running the session lost its lease (cut off from the database, src/cluster/lease.ts):
   * it closed the browser before its peers could end the session (they end it with node_shutdown).
   * Final for this session: create a new one.
   */
  leaseLost: 4503,
} as const;

/** The code a session's sockets close with when the session ends for `reason`. */
export function closeCodeForEnd(reason: EndReason | null | undefined): number {
  switch (reason) {
    case "BROWSER_CRASH":
      return CloseCode.browserCrashed;
    case "NODE_SHUTDOWN":
      return CloseCode.goingAway;
    case "API_KEY_REVOKED":
      return CloseCode.revoked;
    default:
      return CloseCode.sessionEnded;
  }
}

/** The close frame's reason text (at most 123 bytes): the code's meaning, for logs and people. */
export function closeReason(code: number): string {
  switch (code) {
    case CloseCode.goingAway:
      return "the server is shutting down";
    case CloseCode.browserCrashed:
      return "the session's browser crashed";
    case CloseCode.revoked:
      return "the credential was revoked";
    case CloseCode.sessionEnded:
      return "the session has ended";
    case CloseCode.leaseLost:
      return "the session's node lost contact with the database";
    default:
      return "";
  }
}
