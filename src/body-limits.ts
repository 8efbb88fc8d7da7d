import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { hasSignInCookie, type CookiePolicy } from "./auth/cookies.ts";
import { internalHeaders } from "./peers/internal-auth.ts";
import { AppError } from "./errors.ts";

/**
 * What a request without credentials may send, on every route (issue 41): nothing a caller who has
 * not identified itself sends needs more (sign-in, a GraphQL query or two), and until someone has,
 * reading a large body costs this node memory and event-loop time for nobody's work. The limit is
 * applied from the declared length, before a byte of the body is read; a body of unknown length
 * (chunked) is read up to the limit by the route's own reader (`res.locals[BODY_CAP]`). Routes keep their own, smaller or larger, limits for callers
 * with credentials (a false credential is refused by the route before it reads the body; GraphQL
 * authenticates a large body's caller first, graphql/large-body.ts).
 */
export const ANONYMOUS_BODY_LIMIT = 64 * 1024;

/** Whether the request presents any credential: an Authorization header, the dashboard's cookie, or a peer's signature. */
export function carriesCredential(req: IncomingMessage, cookies: CookiePolicy): boolean {
  return req.headers.authorization !== undefined || typeof req.headers[internalHeaders.signature] === "string" || hasSignInCookie(req.headers.cookie, cookies);
}

/** The body's declared length; Infinity when it has one of unknown length; 0 when none. */
export function declaredLength(req: IncomingMessage): number {
  const length = req.headers["content-length"];
  if (length !== undefined) return /^\d+$/.test(length) ? Number(length) : Number.POSITIVE_INFINITY;
  return req.headers["transfer-encoding"] !== undefined ? Number.POSITIVE_INFINITY : 0;
}

/** 413 for a body over the limit: the connection closes, so the rest is never read. */
export function tooLarge(res: Response, detail: string): AppError {
  res.setHeader("Connection", "close");
  return new AppError("payload-too-large", detail);
}

/** Set on `res.locals` for a request without credentials: the most of its body any reader may take. */
export const BODY_CAP = "anonymousBodyCap";

export function anonymousBodyLimit(cookies: CookiePolicy) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (carriesCredential(req, cookies)) return next();
    // A body of unknown length (chunked) is read up to the cap by whoever reads it (REST, GraphQL).
    res.locals[BODY_CAP] = ANONYMOUS_BODY_LIMIT;
    const length = declaredLength(req);
    if (length <= ANONYMOUS_BODY_LIMIT || !Number.isFinite(length)) return next();
    next(tooLarge(res, `A request without credentials may carry at most ${ANONYMOUS_BODY_LIMIT} bytes of body; this one declares ${length}.`));
  };
}
