import type { IncomingMessage } from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { authenticateRequest, type UserAuthenticator } from "../auth/request-auth.ts";
import type { Logger } from "../logger.ts";
import type { Principal, ServiceContext } from "../services/context.ts";
import type { GraphQLContext } from "./builder.ts";
import { maskError } from "./errors.ts";
import { graphiqlPage } from "./graphiql.ts";
import { schema } from "./schema.ts";

export interface ServerContext {
  req: IncomingMessage;
  /** Set by the WebSocket transport, which authenticated the socket from its connection_init. */
  principal?: Principal | null;
}

export type Yoga = YogaServerInstance<ServerContext, GraphQLContext>;

export function createGraphQLServer(options: {
  graphiql: boolean;
  log: Logger;
  context(req: IncomingMessage): ServiceContext;
  users?: UserAuthenticator;
}): Yoga {
  /** Anonymous calls get no principal (services refuse what needs one); credentials are checked and rate-limited. */
  const contextFor = async (req: IncomingMessage): Promise<GraphQLContext> => {
    const base = options.context(req);
    if (req.headers.authorization) {
      const { principal } = await authenticateRequest(base.deps, req, base.ip ?? "", { acceptUsers: true, users: options.users });
      return { services: { ...base, principal } };
    }
    const user = options.users ? await options.users(req) : null;
    return { services: { ...base, principal: user } };
  };
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    // Yoga's own GraphiQL page loads its code from a CDN; ours serves the same bundle from this origin.
    graphiql: options.graphiql ? { title: "Vessel GraphQL", subscriptionsProtocol: "WS" } : false,
    renderGraphiQL: graphiqlPage,
    batching: false,
    maskedErrors: { maskError },
    logging: {
      debug: (...args) => options.log.debug(args.map(String).join(" ")),
      info: (...args) => options.log.info(args.map(String).join(" ")),
      warn: (...args) => options.log.warn(args.map(String).join(" ")),
      error: (...args) => options.log.error({ err: args.find((a) => a instanceof Error) }, args.map(String).join(" ")),
    },
    context: ({ req, principal }) => (principal !== undefined ? { services: { ...options.context(req), principal } } : contextFor(req)),
  });
}
