import type { IncomingMessage } from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { readCookie, type CookiePolicy } from "../auth/cookies.ts";
import { spendCall, type UserAuthenticator } from "../auth/request-auth.ts";
import { authenticateRequest } from "../services/audit/request-audit.ts";
import type { Logger } from "../logger.ts";
import type { ServiceContext } from "../kernel/context.ts";
import type { Principal } from "../auth/principal.ts";
import type { GraphQLContext, HttpExchange } from "./builder.ts";
import { useCallBudget } from "./call-budget.ts";
import { clientErrorStatus, maskError } from "./errors.ts";
import { graphiqlPage } from "./graphiql.ts";
import { useCookieCsrfProtection, useQueryLimits, useResponseCookies, useSignedInIntrospection, useUnexpectedErrorLog } from "./hardening.ts";
import { schema } from "./schema.ts";

export interface ServerContext {
  req: IncomingMessage;
  /** Set by the WebSocket transport, which authenticated the socket from its connection_init. */
  principal?: Principal | null;
}

export type Yoga = YogaServerInstance<ServerContext, GraphQLContext> & {
  /** Authenticates the caller ahead of Yoga (a large body's, before it is read); Yoga's context then reuses the result. */
  authenticate(req: IncomingMessage): Promise<GraphQLContext>;
};

export function createGraphQLServer(options: {
  graphiql: boolean;
  log: Logger;
  context(req: IncomingMessage): ServiceContext;
  users?: UserAuthenticator;
  /** The dashboard's cookies and origins: CSRF checks for cookie-authenticated calls, CORS. */
  dashboard: { cookies: CookiePolicy; origins: string[] };
}): Yoga {
  const pendingCookies = new WeakMap<IncomingMessage, string[]>();
  const http = (req: IncomingMessage): HttpExchange => ({
    cookie: (name) => readCookie(req.headers.cookie, name),
    setCookie: (value) => pendingCookies.set(req, [...(pendingCookies.get(req) ?? []), value]),
    userAgent: req.headers["user-agent"],
  });

  /**
   * Anonymous calls get no principal (services refuse what needs one); credentials are checked and
   * one call of their budget is spent, as for a REST request: it pays for the first root field
   * (call-budget.ts spends the others').
   */
  const contextFor = async (req: IncomingMessage): Promise<GraphQLContext> => {
    const base = options.context(req);
    if (req.headers.authorization) {
      const { principal } = await authenticateRequest(base.deps, req, base.ip ?? "", { acceptUsers: true, users: options.users });
      return { services: { ...base, principal }, http: http(req), calls: { prepaid: 1 } };
    }
    const user = options.users ? await options.users(req) : null;
    if (user) await spendCall(base.deps, user);
    return { services: { ...base, principal: user }, http: http(req), calls: { prepaid: user ? 1 : 0 } };
  };

  /** GraphiQL is for signed-in dashboard users (a browser navigation carries the cookie, never a key). */
  const signedIn = async (req: IncomingMessage | undefined): Promise<boolean> => {
    if (!req || !options.users) return false;
    return (await options.users(req).catch(() => null)) !== null;
  };

  // Callers of a large body are authenticated before it is read (large-body.ts); Yoga then reuses that.
  const early = new WeakMap<IncomingMessage, Promise<GraphQLContext>>();
  const authenticate = (req: IncomingMessage) => {
    const context = contextFor(req);
    early.set(req, context);
    return context;
  };

  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    // Yoga's own GraphiQL page loads its code from a CDN; ours serves the same bundle from this origin.
    graphiql: options.graphiql
      ? async (_request, serverContext) =>
          (await signedIn((serverContext as ServerContext | undefined)?.req)) ? { title: "Vessel GraphQL", subscriptionsProtocol: "WS" } : false
      : false,
    renderGraphiQL: graphiqlPage,
    batching: false,
    // Yoga's default answers any origin with credentials allowed; only the dashboard's own origin may read answers.
    cors: { origin: options.dashboard.origins, credentials: true, methods: ["GET", "POST"] },
    maskedErrors: { maskError },
    plugins: [
      useCookieCsrfProtection(options.dashboard),
      useQueryLimits(),
      useSignedInIntrospection(),
      useCallBudget(),
      useResponseCookies(pendingCookies),
      useUnexpectedErrorLog(),
    ],
    logging: {
      debug: (...args) => options.log.debug(args.map(String).join(" ")),
      info: (...args) => options.log.info(args.map(String).join(" ")),
      warn: (...args) => options.log.warn(args.map(String).join(" ")),
      error: (...args) => {
        const err = args.find((a) => a instanceof Error);
        const status = clientErrorStatus(err);
        if (status !== null)
          options.log.debug({ status, code: (err as Error & { extensions?: { code?: unknown } }).extensions?.code }, `client error: ${(err as Error).message}`);
        else options.log.error({ err }, args.map(String).join(" "));
      },
    },
    context: ({ req, principal }) => (principal !== undefined ? { services: { ...options.context(req), principal } } : (early.get(req) ?? contextFor(req))),
  });
  return Object.assign(yoga, { authenticate });
}
