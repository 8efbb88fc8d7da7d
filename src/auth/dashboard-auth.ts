import type { IncomingHttpHeaders } from "node:http";
import { AppError } from "../errors.ts";
import type { Database } from "../db/client.ts";
import type { AccessTokens } from "./access-tokens.ts";
import { readCookie, type CookiePolicy } from "./cookies.ts";
import type { UserAuthenticator } from "./request-auth.ts";

/**
 * Why a cookie-authenticated request must be refused as cross-site, or null when it may proceed
 * (OWASP CSRF cheat sheet: Fetch Metadata first, Origin as the fallback). A request without either
 * header is not from a browser that could be tricked, and passes.
 */
export function crossSiteReason(headers: IncomingHttpHeaders | Pick<Headers, "get">, origins: readonly string[]): string | null {
  // Fetch API headers (Yoga's request; not always the global Headers class) or Node's header object.
  const get = (name: string): string | undefined => {
    const v = typeof headers.get === "function" ? (headers as Pick<Headers, "get">).get(name) : (headers as IncomingHttpHeaders)[name];
    return Array.isArray(v) ? v[0] : (v ?? undefined);
  };
  const site = get("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return `Sec-Fetch-Site: ${site.slice(0, 20)}`;
  const origin = get("origin");
  if (origin !== undefined && !origins.includes(origin)) return "Origin is not the dashboard's";
  return null;
}

export const CROSS_SITE_DETAIL = "Cookie-authenticated requests must come from the dashboard's own origin.";

/** What recognising a dashboard user needs (the kernel's AppDeps has it; src/auth imports nothing of the kernel). */
export interface DashboardUserDeps {
  db: Database;
  dashboard: { cookies: CookiePolicy; accessTokens: AccessTokens; origins: readonly string[] };
}

/**
 * The dashboard's users: the access cookie, or `Authorization: Bearer <access token>`. When an
 * Authorization header is present it alone decides (a cookie never rescues a bad header), and an
 * API key (`vs_…`) is left to the key authenticator.
 *
 * Reads only `headers.authorization` and `headers.cookie` (plus the fetch-metadata headers for the
 * cross-site check), so graphql-ws can call it with a synthetic request built from connection_init.
 */
export function dashboardUsers(deps: DashboardUserDeps): UserAuthenticator {
  const { cookies, accessTokens, origins } = deps.dashboard;
  return async (req) => {
    const authorization = req.headers.authorization;
    let token: string | undefined;
    if (authorization !== undefined) {
      const m = /^Bearer +([A-Za-z0-9._-]+)$/i.exec(authorization);
      if (!m || /^vs_/i.test(m[1]!)) return null;
      token = m[1];
    } else {
      token = readCookie(req.headers.cookie, cookies.access);
      if (!token) return null;
      // The cookie is ambient: a page elsewhere could make the browser send it.
      if (crossSiteReason(req.headers, origins)) throw new AppError("forbidden", CROSS_SITE_DETAIL);
    }
    const claims = await accessTokens.verify(token!);
    if (!claims) return null;
    // Signed and unexpired is not enough: the sign-in must still be live (not signed out, no reuse detected).
    const live = await deps.db.prisma.refreshToken.findFirst({
      where: { familyId: claims.familyId, userId: claims.userId, revokedAt: null },
      select: { user: { select: { id: true, email: true } } },
    });
    if (!live) return null;
    return { kind: "user", userId: live.user.id, email: live.user.email };
  };
}
