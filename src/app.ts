import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import express, { type NextFunction, type Request, type Response } from "express";
import { ulid } from "./ids.ts";
import { clientRequestIdOf } from "./request-id.ts";
import { dashboardUsers } from "./auth/dashboard-auth.ts";
import type { UserAuthenticator } from "./auth/request-auth.ts";
import type { Config } from "./config.ts";
import { openDatabase, type Database } from "./db/client.ts";
import { isDataException } from "./db/errors.ts";
import { AppError, isProblemSlug } from "./errors.ts";
import { createGraphQLWebSocket } from "./graphql/ws.ts";
import { createLogger, safeUrl, type Logger } from "./logger.ts";
import { buildOpenApi } from "./rest/openapi.ts";
import { sendProblem, toAppError } from "./kernel/problems.ts";
import { problemPage } from "./rest/problem-page.ts";
import type { AnyRoute } from "./rest/define-route.ts";
import { buildRestRouter } from "./rest/router.ts";
import { routes } from "./rest/routes/all.ts";
import { handleCdpDiscovery } from "./cdp-proxy/discovery.ts";
import { addOwnListener, ownServer } from "./browser/egress/own-listeners.ts";
import { handleCdpUpgrade } from "./cdp-proxy/proxy.ts";
import { cdpProxyPorts } from "./services/sessions/cdp-access.ts";
import { createDeps, type DepsOptions } from "./deps.ts";
import { JobRunner } from "./jobs.ts";
import { maintenanceJobs } from "./services/maintenance/maintenance.ts";
import { createLiveView } from "./live-view/server.ts";
import type { AppDeps, ServiceContext } from "./kernel/context.ts";
import { serveDashboard } from "./dashboard-assets.ts";
import { UpgradeDispatcher } from "./upgrade.ts";
import { createFrontDoor } from "./front-door.ts";
import { anonymousBodyLimit } from "./body-limits.ts";
import { type Cluster } from "./cluster/cluster.ts";
import { cdpSessionOf, liveViewSessionOf } from "./cluster/session-of.ts";
import { internalPrefix, internalRouter } from "./cluster/internal-api.ts";
import { mountGraphQL } from "./app-graphql.ts";
import { mountProbes } from "./app-probes.ts";
import { createMcpEndpoint } from "./mcp/endpoint.ts";

export interface AppOptions extends DepsOptions {
  log?: Logger;
  /** An already-open database (tests); otherwise one is opened from the configuration. */
  db?: Database;
  /** Routes added to the table (tests exercise the machinery with them; never part of the product). */
  extraRoutes?: AnyRoute[];
  /** How often open GraphQL sockets re-check their credential (tests shorten it). */
  credentialRecheckMs?: number;
  checkResponses?: boolean;
  /** Dashboard users; default: the dashboard's sign-in (its access cookie or bearer token). */
  users?: UserAuthenticator;
  /** How often maintenance jobs (purges of revoked keys and expired sign-ins) run; default hourly. */
  maintenanceIntervalMs?: number;
}

export interface App {
  deps: AppDeps;
  server: http.Server;
  /** Base URL the server listens on, once started. */
  url: string;
  /** Periodic maintenance (started with the server). */
  jobs: JobRunner;
  /** This node among its peers: heartbeats, placement, forwarding, drain (src/cluster). */
  cluster: Cluster;
  start(): Promise<void>;
  /**
   * SIGTERM: unready at once, no new sessions here, running sessions may finish until the drain
   * deadline (VESSEL_DRAIN_SECONDS, or `deadlineMs`). Then call stop(), which ends what is left.
   */
  drain(deadlineMs?: number): Promise<void>;
  /** Cuts a drain in progress short (a second signal). */
  cutDrain(): void;
  stop(): Promise<void>;
}

/** The composition root: database, services, REST, GraphQL and WebSockets on one HTTP server. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel);
  const db = options.db ?? (await openDatabase({ url: config.database.url, dataDir: path.join(config.database.dataDir, "pglite") }, (msg) => log.info(msg)));
  const { deps, cluster, close: closeDeps } = await createDeps(config, db, log, { ...options, serving: true });
  const metrics = deps.metrics!;
  const users = options.users ?? dashboardUsers(deps);
  const jobs = new JobRunner(maintenanceJobs(deps, options.maintenanceIntervalMs ?? 3600_000), log.child({ component: "jobs" }));
  const table = [...routes, ...(options.extraRoutes ?? [])];

  const contextFor = (requestId: string, ip: string | undefined, clientRequestId: string | null = null): ServiceContext => ({
    deps,
    requestId,
    clientRequestId,
    log: log.child({ requestId }),
    principal: null,
    ip: ip ?? null,
  });

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use((req: Request, res: Response, next: NextFunction) => {
    // Always our own id (logs, answer header, audit); the client's is kept beside it (src/request-id.ts).
    const requestId = ulid();
    const clientRequestId = clientRequestIdOf(req.get("x-request-id"));
    res.locals.requestId = requestId;
    res.locals.clientRequestId = clientRequestId;
    res.locals.baseUrl = config.publicBaseUrl;
    res.setHeader("X-Request-Id", requestId);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    const started = performance.now();
    res.on("finish", () => {
      log.info(
        {
          requestId,
          ...(clientRequestId ? { clientRequestId } : {}),
          method: req.method,
          url: safeUrl(req.originalUrl),
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
        },
        "request",
      );
    });
    next();
  });
  app.use(metrics.observe());
  // Before any route reads a body: a caller without credentials sends at most 64 KiB (body-limits.ts).
  app.use(anonymousBodyLimit(deps.dashboard.cookies));
  mountProbes(app, { cluster, db, log });

  app.get("/.well-known/jwks.json", async (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.json(await deps.tokens.jwks());
  });
  app.get("/metrics", metrics.handler(config.metricsToken));
  const cdpPorts = cdpProxyPorts(deps);
  app.get(
    ["/cdp/json", "/cdp/json/version", "/cdp/json/list"],
    cluster.routeGet("cdp", cdpSessionOf, (req, res) => handleCdpDiscovery(cdpPorts, req, res)),
  );
  // What nodes ask each other (signed by a node; never reachable with customer credentials).
  app.use(internalPrefix, internalRouter(deps, cluster));

  // The live view: `/?token=…` (the live_view_url), its page assets, and below its socket.
  const liveView = createLiveView(deps);
  app.use(liveView.routes);

  const openapi = JSON.stringify(buildOpenApi(table, config.publicBaseUrl), null, 2);
  serveDashboard(app);
  app.get("/openapi.json", (_req, res) => {
    res.type("application/json").send(openapi);
  });
  app.get("/errors/:slug", (req, res) => {
    const slug = req.params.slug;
    if (!isProblemSlug(slug)) throw new AppError("not-found", "There is no problem type with this name.");
    res.type("html").send(problemPage(slug));
  });

  const yoga = mountGraphQL(app, { config, deps, log, users, contextFor });

  const rest = buildRestRouter(table, {
    context: (req, res) => contextFor(res.locals.requestId as string, deps.clientAddress(req), res.locals.clientRequestId as string | null),
    users,
    checkResponses: options.checkResponses,
  });
  // A downloaded file lives on the node that runs its session: a fetch that lands elsewhere is relayed there.
  const downloadPaths = ["/v1/sessions/:id/downloads/:download_id", "/api/v1/sessions/:id/downloads/:download_id"];
  app.get(downloadPaths, (req: Request, res: Response, next: NextFunction) =>
    cluster.routeGet(
      "download",
      () => String(req.params.id),
      () => next(),
    )(req, res),
  );
  // So does a file uploaded into a session: it is written into the session's folder on its node.
  const uploadPaths = ["/v1/sessions/:id/files", "/api/v1/sessions/:id/files"];
  app.post(uploadPaths, (req: Request, res: Response, next: NextFunction) =>
    cluster.routeGet(
      "upload",
      () => String(req.params.id),
      () => next(),
    )(req, res),
  );
  // The MCP server (src/mcp): Streamable HTTP for agents, authenticated by API key like REST.
  const mcp = createMcpEndpoint(deps, {
    context: (req, res) => contextFor(res.locals.requestId as string, deps.clientAddress(req), res.locals.clientRequestId as string | null),
  });
  app.all("/mcp", (req: Request, res: Response) => mcp.handle(req, res));
  app.use(rest);
  // Spec 4.4 shows the dashboard routes both as /v1/… and as /api/v1/…: every route answers on both
  // (the OpenAPI document lists `{base}/api` as an alternative server).
  app.use("/api", rest);

  app.use(() => {
    throw new AppError("not-found", "No resource lives at this path.");
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { error, unexpected } = toAppError(err);
    if (unexpected) log.error({ err, requestId: res.locals.requestId, url: safeUrl(req.originalUrl) }, "unhandled error");
    else if (isDataException(err))
      log.warn(
        { err, requestId: res.locals.requestId, url: safeUrl(req.originalUrl) },
        "the database refused a value of the request (answered 400; kernel/text.ts should have named its field)",
      );
    if (res.headersSent) return void res.end();
    sendProblem(req, res, error);
  });

  const server = createFrontDoor(app, { baseUrl: config.publicBaseUrl, log });
  const upgrades = new UpgradeDispatcher(log);
  const graphqlWs = createGraphQLWebSocket(yoga, {
    deps,
    users,
    allowedOrigins: [new URL(config.publicBaseUrl).origin],
    recheckMs: options.credentialRecheckMs,
  });
  upgrades.register("/graphql", graphqlWs.handleUpgrade);
  // A connection for a session whose browser runs on another node is relayed there (src/cluster).
  const cdpUpgrade = cluster.routeUpgrade("cdp", cdpSessionOf, (req, socket, head) => handleCdpUpgrade(cdpPorts, req, socket, head));
  upgrades.register("/cdp", cdpUpgrade);
  upgrades.registerPrefix("/cdp/devtools/page/", cdpUpgrade);
  upgrades.register(liveView.socketPath, cluster.routeUpgrade("live_view", liveViewSessionOf, liveView.handleUpgrade));
  upgrades.attach(server, config.publicBaseUrl);

  const stopListening: Array<() => void> = [];
  const result: App = {
    deps,
    server,
    jobs,
    cluster,
    url: "",
    async start() {
      // Browsers and webhooks may never reach it, whatever the egress allow-list says (browser/egress/own-listeners.ts).
      ownServer(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.port, config.host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      // Where peers reach this node, when it names an address: the node's too, even behind a port mapping.
      const internal = new URL(config.internalUrl);
      const internalHost = internal.hostname.replace(/^\[|\]$/g, "");
      if (net.isIP(internalHost)) stopListening.push(addOwnListener(internalHost, Number(internal.port || (internal.protocol === "https:" ? 443 : 80))));
      const wildcard = config.host === "0.0.0.0" || config.host === "::";
      result.url = `http://${wildcard ? "127.0.0.1" : net.isIPv6(config.host) ? `[${config.host}]` : config.host}:${port}`;
      log.info({ url: result.url, publicBaseUrl: config.publicBaseUrl, database: db.kind }, "Vessel is listening");
      jobs.start();
    },
    drain(deadlineMs = config.drainSeconds * 1000) {
      return cluster.drain(deadlineMs);
    },
    cutDrain() {
      cluster.cutDrain();
    },
    async stop() {
      for (const remove of stopListening.splice(0)) remove();
      // Stop accepting first; upgraded sockets (CDP, GraphQL) keep the server open until they end,
      // and CDP sockets end with their sessions, so end those before waiting for the server.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await graphqlWs.close();
      await mcp.close();
      await jobs.stop();
      await closeDeps();
      // Viewers were told their sessions ended; what is left (sockets mid-handshake) is cut.
      await liveView.close();
      server.closeAllConnections();
      await closed;
      if (!options.db) await db.close();
    },
  };
  return result;
}
