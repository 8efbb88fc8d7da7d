import { AccessTokens } from "./auth/access-tokens.ts";
import { ApiKeyAuthenticator } from "./auth/authenticate.ts";
import { cookiePolicy, isLoopbackHttp } from "./auth/cookies.ts";
import { createRateLimiter, DEFAULT_KEY_LIMIT_PER_MINUTE } from "./auth/rate-limit.ts";
import { createClientAddress } from "./auth/client-address.ts";
import { FailedAuthThrottle } from "./auth/failed-auth.ts";
import { memoryRevocations, redisRevocations } from "./auth/revocations.ts";
import { ConnectTokens } from "./auth/connect-tokens.ts";
import { CloseCode } from "./browser/close-codes.ts";
import { SessionRuntime } from "./browser/runtime/runtime.ts";
import { loadMasterKey } from "./crypto/master-key.ts";
import type { Config } from "./config.ts";
import { browserDataRoot, createBrowserPool, probeIsolation } from "./deps-browsers.ts";
import type { Database } from "./db/client.ts";
import type { Logger } from "./logger.ts";
import { memoryPubSub, redisPubSub } from "./pubsub.ts";
import { closeRedis, createRedis, redisReady } from "./redis.ts";
import { AuditWriter } from "./services/audit/audit.ts";
import { openNodeJournal } from "./services/audit/audit-journal.ts";
import { RefusalAudit } from "./services/audit/audit-refusals.ts";
import { createMailer, type Mailer } from "./mailer.ts";
import { liveViewRevocations, revokedMessage } from "./services/sessions/live-view.ts";
import { EventRecorder } from "./services/session-events/event-recorder.ts";
import { RecordingNode } from "./services/recordings/recording-node.ts";
import { PreparedExtensions, extensionDeletions } from "./services/extensions/prepared-extensions.ts";
import { SessionLogs } from "./services/session-logs/session-logs.ts";
import type { AppDeps, ServiceContext, SignInLimits } from "./kernel/context.ts";
import { endAllOnNode, endFromRuntime, endOrphans } from "./services/sessions/sessions.ts";
import { Cluster } from "./cluster/cluster.ts";
import { AdmissionQueue } from "./services/sessions/queue/dispatcher.ts";
import { Metrics } from "./metrics.ts";
import { registerNode } from "./services/nodes/nodes.ts";
import { WebhookDispatcher } from "./services/webhooks/webhook-dispatcher.ts";
import { networkPolicyChanged, networkPolicyChanges } from "./services/network-policy/network-policy.ts";

export interface DepsOptions {
  /** The clock (tests move it, for example past a sunset date). */
  now?: () => Date;
  /** Prefix of every Redis key, so deployments (and tests) sharing a Redis stay apart. */
  redisPrefix?: string;
  /** Overrides config.nodeId (tests run several nodes in one process). */
  nodeId?: string;
  /**
   * This process serves as a node: it registers in the node registry (and, with startBrowsers,
   * heartbeats and holds a lease). Only the server does (createApp sets it); maintenance commands
   * (seed, key rotation, benchmarks' set-up) never register as, or act for, a node, even when they
   * inherit a live node's VESSEL_NODE_ID (`kubectl exec` into its pod). Default false.
   */
  serving?: boolean;
  /** Launch the warm browsers and end orphans (servers do; scripts and unit tests need not). */
  startBrowsers?: boolean;
  /**
   * Journal batched audit entries in the data folder, so a killed process loses none (default: as
   * startBrowsers; scripts write no batched entries, and must not take a running server's journal).
   */
  auditJournal?: boolean;
  /** Magic-link budgets (tests sign many people in from one address). */
  signInLimits?: Partial<SignInLimits>;
  /** Replaces the configured mailer. */
  mailer?: Mailer;
  /** The egress and CDP method policy; only benchmarks measuring its cost turn it off. */
  browserPolicy?: boolean;
}

/** How long a stop waits for this node's recordings to be stored (a drain waits for them within its own deadline first). */
const RECORDINGS_STOP_MS = 60_000;

/**
 * The long-lived parts every service call needs, built the same way for the server, the command-line
 * scripts and the tests: Redis when configured, the rate limiter, the revocation list, the key
 * authenticator and the audit writer. `close()` flushes the audit log before anything shuts.
 */
export async function createDeps(
  config: Config,
  db: Database,
  log: Logger,
  options: DepsOptions = {},
): Promise<{ deps: AppDeps; cluster: Cluster; close(): Promise<void> }> {
  const now = options.now ?? (() => new Date());
  const prefix = options.redisPrefix ?? "vessel:";
  const isolation = await probeIsolation(config, log, options.startBrowsers ?? true);
  const redis = config.redis.url ? createRedis(config.redis.url, log.child({ component: "redis" })) : undefined;
  if (redis && !(await redisReady(redis))) {
    log.warn("Redis is not reachable yet; rate limits fall back to this node's memory until it is");
  }
  const limiter = createRateLimiter({ redis, keyPrefix: `${prefix}rl:`, log });
  const revocations = redis ? redisRevocations(redis, prefix) : memoryRevocations();
  const failedAuth = new FailedAuthThrottle(limiter);
  const auth = new ApiKeyAuthenticator({ prisma: db.prisma, failedAuth, revocations, log, now, defaultRatePerMinute: DEFAULT_KEY_LIMIT_PER_MINUTE });
  // A request a peer relayed names its client in a header the peer signed for; the cluster checks that.
  let peers: Cluster | undefined;
  const clientAddress = createClientAddress({ trustedProxies: config.trustedProxies, relayedByPeer: (req) => peers?.relayedHere(req) ?? false });
  const metrics = new Metrics();
  const auditLog = log.child({ component: "audit" });
  const journal =
    (options.auditJournal ?? options.startBrowsers ?? true)
      ? await openNodeJournal(config.database.dataDir, options.nodeId ?? config.nodeId, auditLog)
      : undefined;
  const audit = new AuditWriter(db.prisma, { log: auditLog, journal, setAside: metrics.setAside });
  const refusals = new RefusalAudit({
    enqueue: (record) => audit.enqueue(record),
    workspaceOfKey: async (id) => (await db.prisma.apiKey.findUnique({ where: { id }, select: { workspaceId: true } }))?.workspaceId ?? null,
    now,
    log: auditLog,
  });
  const masterKey = await loadMasterKey(config, log);
  const tokens = new ConnectTokens({ prisma: db.prisma, masterKey, issuer: config.publicBaseUrl, now, log });
  const nodeId = options.nodeId ?? config.nodeId;
  const serving = options.serving ?? false;
  // Sessions name their node, so the row exists before any of them; heartbeats start with the server.
  if (serving) {
    await registerNode(db.prisma, {
      id: nodeId,
      internalUrl: config.internalUrl,
      region: config.nodeRegion,
      capacity: config.browser.capacity,
      freeSlots: 0,
      draining: false,
    });
  }
  // The runtime reports sessions that end on their own; the session service records how they ended.
  let onEnd: ReturnType<typeof endFromRuntime> = async () => {};
  const pubsub = redis ? redisPubSub(redis, prefix, log.child({ component: "pubsub" })) : memoryPubSub();
  const events = new EventRecorder({ db, now, log, pubsub, setAside: metrics.setAside });
  const browsers = createBrowserPool(config, log, events, isolation, options.browserPolicy);
  const runtime = new SessionRuntime({
    log,
    onEnd: (id, cause) => onEnd(id, cause),
    onClient: (id, change, clients) => events.later(id, change === "connected" ? "cdp.connected" : "cdp.disconnected", { clients }),
  });
  const publicUrl = new URL(config.publicBaseUrl);
  if (publicUrl.protocol === "http:" && !isLoopbackHttp(config.publicBaseUrl)) {
    log.warn(
      { publicBaseUrl: config.publicBaseUrl },
      "the public base URL is plain http: browsers will not send the dashboard's Secure cookies, so signing in will not work",
    );
  }
  const dashboard = {
    mailer: options.mailer ?? createMailer(config, log.child({ component: "mail" })),
    accessTokens: new AccessTokens({ masterKey, issuer: config.publicBaseUrl, now, log }),
    cookies: cookiePolicy(config.publicBaseUrl),
    origins: [publicUrl.origin],
    signInLimits: { perAddressPerHour: 5, perClientPerHour: 20, ...options.signInLimits },
  };
  // Each recording's encoder writes into a private folder under this node's own (services/recordings).
  const recordings = new RecordingNode(`${browserDataRoot(config)}-rec`);
  const sessionLogs = new SessionLogs({
    config,
    db,
    log: log.child({ component: "session-logs" }),
    pubsub,
    masterKey,
    now,
    runtime,
    setAside: metrics.setAside,
  });
  // Webhook deliveries are queued from the events this node writes, and sent by every node.
  const webhooks = new WebhookDispatcher(
    { db, log: log.child({ component: "webhooks" }), now, nodeId, masterKey, config, pubsub, setAside: metrics.setAside },
    { retryBaseMs: config.webhooks.retryBaseMs },
  );
  const stopWebhookQueue = events.subscribe((written) => webhooks.onEvents(written));
  // Extensions checked and unpacked once per node, copied into each session that names them (services/extensions).
  const extensions = new PreparedExtensions(`${browserDataRoot(config)}-ext`, () => metrics.extensionZipsUnpacked.inc());
  const deps: AppDeps = {
    config,
    db,
    log,
    auth,
    limiter,
    failedAuth,
    clientAddress,
    audit,
    refusals,
    now,
    nodeId,
    masterKey,
    tokens,
    browsers,
    runtime,
    pubsub,
    events,
    dashboard,
    metrics,
    sessionLogs,
    recordings,
    webhooks,
    extensions,
  };
  metrics.attach(deps);
  const cluster = new Cluster(deps, { serving });
  deps.cluster = cluster;
  peers = cluster;
  onEnd = endFromRuntime(deps);
  const queue = new AdmissionQueue(deps);
  if (serving) deps.queue = queue;
  // The owner closed a session's live views (on any node): drop the viewers this node holds.
  const stopRevocations = pubsub.subscribe(liveViewRevocations, (sessionId) => runtime.closeViewers(sessionId, revokedMessage));
  // A workspace's network rules changed (on any node): the sessions of it this node runs take them.
  const stopPolicyChanges = pubsub.subscribe(networkPolicyChanges, (workspaceId) => networkPolicyChanged(deps, workspaceId));
  // An extension deleted (on any node): this node's prepared copy of it goes too.
  const stopExtensionDrops = pubsub.subscribe(
    extensionDeletions,
    (id) => void extensions.drop(id).catch((err: unknown) => log.warn({ err, extension: id }, "a deleted extension's prepared copy was not removed")),
  );
  if (serving && (options.startBrowsers ?? true)) {
    await queue.recover();
    const ended = await endOrphans(deps);
    const cleaned = await browsers.start();
    await recordings.start(deps);
    await extensions.start();
    if (ended > 0 || cleaned.orphansKilled > 0) log.warn({ sessions: ended, ...cleaned }, "ended what a previous run of this node left behind");
    // Only now does the node tell its peers it has room (and start watching its browsers).
    await cluster.start();
    queue.start();
    webhooks.start();
  }
  return {
    deps,
    cluster,
    async close() {
      // Sessions end with node_shutdown, their clients closed with 1001. Should the database not
      // record that, the clients are still told the node is going away (the next start ends the rows).
      await queue.stop();
      if (serving) await endAllOnNode(deps).catch((err: unknown) => log.error({ err }, "could not record the end of this node's sessions"));
      await Promise.all(runtime.ids().map((id) => runtime.teardown(id, "The session has ended: its server shut down.", CloseCode.goingAway)));
      // Their recordings are finished (encoded, sealed, stored) before the database closes.
      await recordings.settled(performance.now() + RECORDINGS_STOP_MS);
      if (recordings.pending > 0) log.error({ recordings: recordings.pending }, "stopping with recordings not yet stored");
      recordings.close();
      await cluster.stop();
      await browsers.stop();
      stopRevocations();
      stopExtensionDrops();
      stopPolicyChanges();
      await events.flush();
      stopWebhookQueue();
      await webhooks.stop();
      await dashboard.mailer.close();
      await pubsub.close();
      await refusals.close();
      await audit.close();
      await limiter.close();
      if (redis) await closeRedis(redis);
    },
  };
}

/** A context for work that no request carries (scripts, jobs): no principal, so nothing is audited. */
export function internalContext(deps: AppDeps, requestId: string): ServiceContext {
  return { deps, requestId, log: deps.log.child({ requestId }), principal: null, ip: null };
}
