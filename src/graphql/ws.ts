import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { GraphQLError, type ExecutionArgs } from "graphql";
import { CloseCode } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer, type WebSocket } from "ws";
import type { UserAuthenticator } from "../auth/request-auth.ts";
import { authenticateRequest } from "../services/audit/request-audit.ts";
import { CloseCode as SessionCloseCode } from "../browser/close-codes.ts";
import { AppError } from "../errors.ts";
import { rawProblem } from "../front-door.ts";
import type { AppDeps } from "../kernel/context.ts";
import type { Principal } from "../auth/principal.ts";
import type { Yoga } from "./yoga.ts";

interface Enveloped {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
}

/** A credential that could not be checked (an outage), as opposed to one that was refused (null). */
const unavailable = Symbol("unavailable");

type Extra = {
  socket: WebSocket;
  request: IncomingMessage;
  principal?: Principal;
  recheck?: NodeJS.Timeout;
};

export interface GraphQLWebSocketOptions {
  deps: AppDeps;
  users?: UserAuthenticator;
  /** Browsers may open the socket only from these origins (the dashboard's); clients without Origin are not browsers. */
  allowedOrigins: string[];
  /** How often an open socket's credential is checked again (a revoked key or ended sign-in closes it with 4403; an outage does not). */
  recheckMs?: number;
  /** Without `connection_init` within this long the socket is closed with 4408. */
  initTimeoutMs?: number;
}

/**
 * The credential of a socket comes from `connection_init` only: `{"authorization": "Bearer <API key>"}`,
 * or the dashboard's sign-in (its cookie on the upgrade, or its bearer in the payload). Headers and the
 * URL of the upgrade are never read as credentials, so a token in a WebSocket URL (which ends up in
 * logs and history) is refused.
 */
function credentialRequest(request: IncomingMessage, payload: unknown): IncomingMessage {
  const authorization = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>).authorization : undefined;
  const headers: Record<string, string> = {};
  if (typeof authorization === "string" && authorization.length <= 512) headers.authorization = authorization;
  if (request.headers.cookie) headers.cookie = request.headers.cookie;
  return { headers, socket: request.socket, url: "/graphql", method: "GET" } as unknown as IncomingMessage;
}

/**
 * graphql-ws on a noServer WebSocketServer: the single upgrade dispatcher hands it sockets for
 * /graphql. Hardened per security.md G40–G42: Origin checked at the handshake (403), the credential
 * in `connection_init` (4403 when missing or wrong, 4408 when it never comes, 4429 for a second one,
 * 4401 for a subscribe before the ack — graphql-ws's own codes), checked again while the socket
 * lives, and every operation runs as that principal through Yoga's envelop (masking, audit, scope).
 */
export function createGraphQLWebSocket(yoga: Yoga, options: GraphQLWebSocketOptions) {
  const { deps, users } = options;
  const recheckMs = options.recheckMs ?? 30_000;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  /**
   * The socket's principal; null when the credential is refused (missing, wrong, revoked, expired);
   * `unavailable` when it could not be checked (the database or Redis did not answer). An outage is
   * not a revocation: clients treat 4403 as final, so it is never the answer to one.
   */
  const authenticate = async (request: IncomingMessage, payload: unknown, spend: boolean): Promise<Principal | null | typeof unavailable> => {
    const req = credentialRequest(request, payload);
    const ip = deps.clientAddress(request);
    try {
      if (spend) return (await authenticateRequest(deps, req, ip, { acceptUsers: true, users })).principal;
      // A re-check costs no request of the key's budget.
      if (/^Bearer +vs_/i.test(req.headers.authorization ?? "")) return (await deps.auth.authenticate(req.headers.authorization, ip)).principal;
      return users ? await users(req) : null;
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return null;
      const credential = /^Bearer +vs_/i.test(req.headers.authorization ?? "") ? "api key" : "dashboard sign-in";
      deps.log.warn({ err: (err as Error)?.message, credential }, "graphql-ws: a credential could not be checked; the socket is kept");
      return unavailable;
    }
  };

  const server = useServer<Record<string, unknown> | undefined, Extra>(
    {
      connectionInitWaitTimeout: options.initTimeoutMs ?? 3_000,
      onConnect: async (ctx) => {
        const principal = await authenticate(ctx.extra.request, ctx.connectionParams, true);
        if (principal === unavailable) {
          // 1013 (try again later): graphql-ws clients retry it, where 4403 would end them.
          ctx.extra.socket.close(SessionCloseCode.tryAgain, "Try again later: the credential could not be checked");
          return false;
        }
        if (!principal) return false;
        ctx.extra.principal = principal;
        const recheck = setInterval(async () => {
          const still = await authenticate(ctx.extra.request, ctx.connectionParams, false);
          // Unavailable: kept open, checked again next round.
          if (still === null) ctx.extra.socket.close(CloseCode.Forbidden, "Forbidden: the credential is no longer valid");
        }, recheckMs);
        recheck.unref();
        ctx.extra.recheck = recheck;
        return true;
      },
      onClose: (ctx) => clearInterval(ctx.extra.recheck),
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          req: ctx.extra.request,
          principal: ctx.extra.principal ?? null,
          params: payload,
        });
        let document: ExecutionArgs["document"];
        try {
          document = parse(payload.query);
        } catch (err) {
          // A query that does not parse is the client's error (an `error` message), not the server's (4500).
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        const args: ExecutionArgs = {
          schema,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe } satisfies Enveloped,
        };
        const errors = validate(args.schema, args.document);
        return errors.length > 0 ? errors : args;
      },
    },
    wss,
  );

  return {
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const origin = req.headers.origin;
      if (origin !== undefined && !options.allowedOrigins.includes(origin)) {
        // Cross-site WebSocket hijacking: a page elsewhere riding the dashboard's cookie.
        socket.end(rawProblem(new AppError("forbidden", "This origin is not allowed to open the GraphQL socket."), deps.config.publicBaseUrl, "/graphql"));
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        wss.emit("connection", ws, req);
        // graphql-ws meets any socket error with console.error and a 4500 close. A malformed frame
        // (ws's WS_ERR_* errors) is the client's fault, and ws has closed it already with the code
        // that says so (1002, 1007, 1009): logged at debug, and nothing more.
        const theirs = ws.listeners("error") as Array<(err: Error) => void>;
        ws.removeAllListeners("error");
        ws.on("error", (err: Error & { code?: string }) => {
          if (err.code?.startsWith("WS_ERR_")) return deps.log.debug({ code: err.code }, "graphql-ws: a malformed frame closed the socket");
          for (const listener of theirs) listener.call(ws, err);
        });
      });
    },
    async close(): Promise<void> {
      await server.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
