import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { ApiKeyAuthenticator } from "../auth/authenticate.ts";
import type { RateLimiter } from "../auth/rate-limit.ts";
import type { ClientAddress } from "../auth/client-address.ts";
import type { FailedAuthThrottle } from "../auth/failed-auth.ts";
import type { SessionTokens } from "../auth/session-tokens.ts";
import type { BrowserPool, BrowserPoolReport } from "../browser/pool.ts";
export type { BrowserPoolReport };
import type { SessionRuntime } from "../browser/runtime.ts";
import type { PubSub } from "../pubsub.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { CookiePolicy } from "../auth/cookies.ts";
import type { AuditWriter } from "../services/audit/audit.ts";
import type { RefusalAudit } from "../services/audit/audit-refusals.ts";
import type { Mailer } from "../services/sign-ins/mailer.ts";
import type { EventRecorder } from "../services/session-events/session-events.ts";
import type { Metrics } from "../metrics.ts";
import type { ProfileDocument } from "../browser/profile-format.ts";
import type { Idempotent } from "./idempotency.ts";
import type { CreateSessionInput, SessionView } from "../services/sessions/sessions.ts";

/** Who is calling. Workspace scope of a key comes from its record, never from the request. */
export type Principal =
  | {
      kind: "apiKey"; keyId: string; keyPrefix: string; workspaceId: string; rateLimitPerMinute: number;
      /** The workspace's own cap on live sessions (null: the deployment's), read with the key (session-cap.ts). */
      maxSessions: number | null;
    }
  | { kind: "user"; userId: string; email: string };

/** The audit entry of one call: services name the target and write it themselves inside mutations. */
export interface AuditScope {
  action: string;
  target: string | null;
  /** The status a success answers with on this transport (201 over REST, 200 over GraphQL). */
  successStatus: number;
  /** Set once the entry is written inside the call's transaction; otherwise the transport writes it. */
  written: boolean;
  /** The workspace acted on, when the caller is a user (a key's workspace is implied). */
  workspaceId?: string;
  /** The workspace named in the request, for calls refused before a service resolved it. */
  workspaceSlug?: string;
}

/** Magic links per address and per client address, each per hour (security.md §3: about 5 and 20). */
export interface SignInLimits {
  perAddressPerHour: number;
  perClientPerHour: number;
}

/** What the dashboard's sign-in and its cookies need. */
export interface DashboardDeps {
  mailer: Mailer;
  accessTokens: AccessTokens;
  cookies: CookiePolicy;
  /** Origins the dashboard is served from; cookie-authenticated requests from anywhere else are refused. */
  origins: string[];
  signInLimits: SignInLimits;
}

/** Long-lived dependencies built once by the composition root (src/app.ts). */
export interface AppDeps {
  config: Config;
  db: Database;
  log: Logger;
  auth: ApiKeyAuthenticator;
  limiter: RateLimiter;
  /** Failed-authentication throttling per client address and key id (auth/failed-auth.ts). */
  failedAuth: FailedAuthThrottle;
  /** The caller's address behind the trusted proxies, the same for every surface (auth/client-address.ts). */
  clientAddress: ClientAddress;
  audit: AuditWriter;
  /** Calls refused at authentication, audited within limits (audit-refusals.ts). */
  refusals: RefusalAudit;
  now: () => Date;
  /** This process in the `nodes` table; sessions name the node whose browser they use. */
  nodeId: string;
  masterKey: { key: Buffer; id: string };
  tokens: SessionTokens;
  browsers: BrowserPool;
  runtime: SessionRuntime;
  /** Fan-out between nodes (Redis when configured): session events reach long polls and subscriptions. */
  pubsub: PubSub;
  /** Session events that happen outside requests (viewers, CDP clients), written in the background. */
  events: EventRecorder;
  dashboard: DashboardDeps;
  /** This node's Prometheus metrics (absent in scripts). */
  metrics?: Metrics;
  /** The other nodes (absent in scripts): placement, forwarding, drain. See src/cluster/. */
  cluster?: ClusterHooks;
}

/** What the services ask of the cluster: a session's browser may run on any node. */
export interface ClusterHooks {
  /** True from SIGTERM on: this node takes no new sessions. */
  readonly draining: boolean;
  /**
   * Runs a create on another node when this one should not (full, draining, another region), or
   * after it failed here for lack of capacity (`failure`). Undefined: run it (or let it fail) here.
   * `workspace` is the slug a dashboard user named (createSession's own argument).
   */
  placeCreate(
    ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string, opts?: { failure?: unknown; workspace?: string },
  ): Promise<Idempotent<SessionView> | undefined>;
  /** A session's end was recorded: the node that runs its browser closes it (and its sockets). */
  sessionEnded(sessionId: string, message: string): void;
  /** Activity without a socket (keepalive): the node that runs the session restarts its idle countdown. */
  touch(sessionId: string): void;
  /** What a session's browser holds now, read by the node that runs it. */
  captureElsewhere(sessionId: string, workspaceId: string, baseProfileId: string | null): Promise<{ document: ProfileDocument }>;
}

/** Everything a service function needs for one call, whichever transport made it. */
export interface ServiceContext {
  deps: AppDeps;
  requestId: string;
  /** The client's own `X-Request-Id`, if acceptable (src/request-id.ts): audited beside requestId, never instead. */
  clientRequestId?: string | null;
  log: Logger;
  principal: Principal | null;
  ip: string | null;
  /** Present when the call is audited (every authenticated call). */
  audit?: AuditScope;
}
