/**
 * The kernel's view of a call and of the node's long-lived parts. Why declaration merging rather than
 * port interfaces declared here (src/kernel/ports.ts): each domain's part of AppDeps (audit, refusals,
 * events, cluster) keeps its real class type, declared beside the class in that domain's `ports.ts`,
 * so there is no second, structural copy of each interface to keep in step, and the kernel still
 * imports nothing from src/services (no import cycle through it). Only the composition root and the
 * domains' own code read those parts; src/auth and src/browser never do.
 */
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { ApiKeyAuthenticator } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import type { RateLimiter } from "../auth/rate-limit.ts";
import type { ClientAddress } from "../auth/client-address.ts";
import type { FailedAuthThrottle } from "../auth/failed-auth.ts";
import type { ConnectTokens } from "../auth/connect-tokens.ts";
import type { BrowserPool } from "../browser/pool/pool.ts";
import type { SessionRuntime } from "../browser/runtime/runtime.ts";
import type { PubSub } from "../pubsub.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { CookiePolicy } from "../auth/cookies.ts";
import type { Mailer } from "../mailer.ts";
import type { Metrics } from "../metrics.ts";

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

/**
 * Long-lived dependencies built once by the composition root (src/app.ts). The kernel lists only what
 * lies beneath it (configuration, database, tokens, the browser layer, pub/sub); each domain adds the
 * parts it owns itself, by declaration merging in its `ports.ts` (services/audit, services/session-events,
 * services/sessions), so the kernel never imports a domain and no import cycle runs through it.
 */
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
  now: () => Date;
  /** This process in the `nodes` table; sessions name the node whose browser they use. */
  nodeId: string;
  masterKey: { key: Buffer; id: string };
  tokens: ConnectTokens;
  browsers: BrowserPool;
  runtime: SessionRuntime;
  /** Fan-out between nodes (Redis when configured): session events reach long polls and subscriptions. */
  pubsub: PubSub;
  dashboard: DashboardDeps;
  /** This node's Prometheus metrics (absent in scripts). */
  metrics?: Metrics;
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
  /**
   * The workspace (slug) the caller named for this call, if any: a dashboard user acts in the one
   * they name; an API key acts in its own (naming another is 403, kernel/authz.ts). Set by the
   * transport as it builds the context (a GraphQL field's `workspace` argument, a REST route's
   * `?workspace=`), read by the services: never a parameter of theirs.
   */
  workspace?: string;
  /** Present when the call is audited (every authenticated call). */
  audit?: AuditScope;
}

/** The context of a call that names the workspace `slug` (unchanged when it names none). */
export function actingIn(ctx: ServiceContext, slug: string | null | undefined): ServiceContext {
  return slug === undefined || slug === null ? ctx : { ...ctx, workspace: slug };
}
