import type { IncomingMessage } from "node:http";
import { KeyStoreUnavailable } from "../../auth/signing-keys.ts";
import type { CommandLogSink } from "../../browser/cdp/relay/command-log.ts";
import type { BrowserLease } from "../../browser/pool/types.ts";
import type { SessionRuntime } from "../../browser/runtime/runtime.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";

/** Who may reach a session's browser over CDP, and what the CDP proxy is given to serve them. */

/** A client's right to one session's browser, as the sessions domain grants it. */
export interface CdpGrant {
  /** The credential the client presented (discovery hands it back inside the addresses it lists). */
  token: string;
  sessionId: string;
  lease: BrowserLease;
}

/**
 * What the CDP proxy (a transport, src/cdp-proxy/) is given: it knows browsers and sockets, never
 * sessions' rows, tokens or events (cdpProxyPorts below builds these from the node's parts).
 */
export interface CdpProxyPorts {
  /** Which session the request may reach; throws the AppError to answer with. */
  authorize(req: IncomingMessage, url: URL): Promise<CdpGrant>;
  runtime: Pick<SessionRuntime, "endpoint" | "takeChannel" | "attach" | "releasedByClient" | "reserveClient">;
  enforcesPolicy: boolean;
  maxMessageBytes: number;
  /** Most CDP sockets one session may have open at once (VESSEL_CDP_MAX_SOCKETS_PER_SESSION); one more is closed with 1008. */
  maxSocketsPerSession: number;
  publicBaseUrl: string;
  log: Logger;
  /** A command the policy refused (or redirected), for the session's events. */
  recordRefusal(sessionId: string, method: string, reason: string): void;
  /** Where a connection's CDP methods and their times go when the session's logs are on; undefined when they are off. */
  commandLog?(sessionId: string): CommandLogSink | undefined;
}

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
async function authorizeCdp(deps: AppDeps, req: IncomingMessage, url: URL): Promise<CdpGrant> {
  const token = tokenOf(req, url);
  if (!token) throw new AppError("unauthenticated", "Connect with the session's connect_url (its token is the credential).");
  const claims = await deps.tokens.verify(token, "cdp").catch((err: unknown) => {
    if (err instanceof KeyStoreUnavailable)
      throw new AppError("service-unavailable", "Tokens cannot be checked right now; retry shortly.", {}, { "Retry-After": "2" });
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

/** The ports the CDP proxy (src/cdp-proxy/proxy.ts) works with, built from this node's parts. */
export function cdpProxyPorts(deps: AppDeps): CdpProxyPorts {
  return {
    authorize: (req, url) => authorizeCdp(deps, req, url),
    runtime: deps.runtime,
    enforcesPolicy: deps.browsers.enforcesCdpPolicy,
    maxMessageBytes: deps.config.browser.cdpMaxMessageBytes,
    maxSocketsPerSession: deps.config.browser.cdpMaxSocketsPerSession,
    publicBaseUrl: deps.config.publicBaseUrl,
    log: deps.log,
    recordRefusal: (sessionId, method, reason) => deps.events.later(sessionId, "cdp.refused", { method, reason }),
    commandLog: (sessionId) => deps.sessionLogs.commandLog(sessionId),
  };
}
