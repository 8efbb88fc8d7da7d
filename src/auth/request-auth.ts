import type { IncomingMessage } from "node:http";
import { AppError } from "../errors.ts";
import type { Counter } from "prom-client";
import type { ApiKeyAuthenticator } from "./authenticate.ts";
import type { Principal } from "./principal.ts";
import { DEFAULT_KEY_LIMIT_PER_MINUTE, type RateLimiter } from "./rate-limit.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";

export type UserPrincipal = Extract<Principal, { kind: "user" }>;

/**
 * What authenticating a caller needs of the node's parts (the kernel's AppDeps has them). Named here
 * rather than taken as AppDeps: src/auth lies beneath the kernel and imports nothing of it.
 */
export interface CallerDeps {
  auth: Pick<ApiKeyAuthenticator, "authenticate">;
  limiter: Pick<RateLimiter, "consumeKey">;
  metrics?: { rateLimited: Pick<Counter<"kind">, "inc"> };
}

/** Resolves a dashboard user from the request (cookies or a dashboard JWT); supplied by the dashboard auth. */
export type UserAuthenticator = (req: IncomingMessage) => Promise<UserPrincipal | null>;

/**
 * The caller of a request, with one request of its budget spent. API keys are recognised by their
 * `vs_` prefix; anything else is offered to the dashboard's authenticator when the operation accepts
 * users. Transports call it through services/audit/request-audit.ts, which audits its refusals.
 */
export async function authenticateCaller(
  deps: CallerDeps,
  req: IncomingMessage,
  ip: string,
  options: { acceptUsers: boolean; users?: UserAuthenticator },
): Promise<{ principal: Principal; limitHeaders: Record<string, string> }> {
  const authorization = req.headers.authorization;
  const isKey = /^Bearer +vs_/i.test(authorization ?? "");
  if (!isKey && options.acceptUsers && options.users) {
    const user = await options.users(req);
    if (user) return { principal: user, limitHeaders: await spendCall(deps, user) };
  }
  const { principal, alongside } = await deps.auth.authenticate(authorization, ip, (p) => spendCall(deps, p));
  return { principal, limitHeaders: alongside ?? {} };
}

/**
 * Spends `calls` (one, unless a GraphQL operation asks for more root fields: graphql/call-budget.ts)
 * of the caller's budget and answers its RateLimit headers; throws the 429 when it is spent. A key
 * spends its own (its workspace's limit, 600 by default); a dashboard user, signed in with a cookie
 * or a bearer token, one of their own at the default limit, so the dashboard and GraphQL cost what
 * REST does.
 */
export async function spendCall(deps: CallerDeps, principal: Principal, calls = 1): Promise<Record<string, string>> {
  const [bucket, limit] =
    principal.kind === "apiKey" ? [principal.keyId, principal.rateLimitPerMinute] : [`user:${principal.userId}`, DEFAULT_KEY_LIMIT_PER_MINUTE];
  const decision = await deps.limiter.consumeKey(bucket, limit, calls);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    deps.metrics?.rateLimited.inc({ kind: principal.kind === "apiKey" ? "key" : "user" });
    const who = principal.kind === "apiKey" ? "This key" : "A dashboard user";
    throw new AppError("rate-limited", `${who} may make ${decision.limit} requests per minute.`, {}, headers);
  }
  return headers;
}
