// GraphQL over HTTP, mounted: the Yoga server, GraphiQL's assets and its page's CSP, and the large-body
// path (authenticated before it is read). Apart from src/app.ts because all of it concerns one endpoint;
// the GraphQL WebSocket is registered with the other upgrades there.
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { UserAuthenticator } from "./auth/request-auth.ts";
import type { Config } from "./config.ts";
import { graphiqlAssetsDir, graphiqlAssetsPath, graphiqlCsp, graphiqlStartScript } from "./graphql/graphiql.ts";
import { takeLargeBody } from "./graphql/large-body.ts";
import { createGraphQLServer } from "./graphql/yoga.ts";
import { ulid } from "./ids.ts";
import type { AppDeps, ServiceContext } from "./kernel/context.ts";
import type { Logger } from "./logger.ts";
import { requestIdsOf } from "./request-id.ts";

export interface GraphQLMount {
  config: Config;
  deps: AppDeps;
  log: Logger;
  users: UserAuthenticator;
  contextFor: (requestId: string, ip: string | undefined, clientRequestId?: string | null) => ServiceContext;
}

/** Creates the GraphQL server and mounts it (with GraphiQL when configured); returns it for the WebSocket. */
export function mountGraphQL(app: Express, { config, deps, log, users, contextFor }: GraphQLMount) {
  const yoga = createGraphQLServer({
    graphiql: config.graphiql,
    log: log.child({ component: "graphql" }),
    users,
    dashboard: deps.dashboard,
    context: (req) => {
      const fromExpress = (req as Request).res?.locals.requestId as string | undefined;
      return contextFor(fromExpress ?? ulid(), deps.clientAddress(req), requestIdsOf(req).clientRequestId);
    },
  });
  if (config.graphiql) {
    app.get(`${graphiqlAssetsPath}/start.js`, (_req, res) => res.sendFile(graphiqlStartScript));
    app.use(graphiqlAssetsPath, express.static(graphiqlAssetsDir, { maxAge: "1d", immutable: true, index: false }));
  }
  app.use(yoga.graphqlEndpoint, (req: Request, res: Response, next: NextFunction) => {
    if (config.graphiql && req.method === "GET" && req.accepts(["application/json", "text/html"]) === "text/html") {
      res.setHeader("Content-Security-Policy", graphiqlCsp);
    }
    next();
  });
  // A large body: its caller authenticated first, then read within the limit and parsed off the event loop.
  app.use(yoga.graphqlEndpoint, (req: Request, res: Response, next: NextFunction) => void takeLargeBody(req, res, yoga.authenticate).then(() => next(), next));
  app.use(yoga.graphqlEndpoint, (req: Request, res: Response) => void yoga(req, res, { req }));
  return yoga;
}
