import type { IncomingMessage } from "node:http";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { hasSignInCookie, type CookiePolicy } from "../auth/cookies.ts";
import { AppError } from "../errors.ts";
import { knownProblem } from "../kernel/problems.ts";
import { crossSiteReason, CROSS_SITE_DETAIL } from "../auth/dashboard-auth.ts";
import type { GraphQLContext } from "./builder.ts";
import { asksForIntrospection, parseLimited, QueryLimitsRule, withoutSuggestions } from "./limits.ts";

/** The header Yoga's CSRF prevention plugin asks for; any same-origin script can send it, a form cannot. */
export const CSRF_HEADER = "x-graphql-yoga-csrf";
/** Content types a browser sends cross-site without a CORS preflight. */
const simpleContentTypes = new Set(["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]);

function refusal(fetchAPI: { Response: typeof Response }, status: number, message: string, code: string): Response {
  return new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

/**
 * CSRF protection for requests the dashboard's cookies authenticate (security.md §1.8, test F33).
 * Requests with an Authorization header are not cookie-authenticated (the cookie is then ignored)
 * and a page elsewhere cannot add that header, so they pass.
 *
 * 1. Yoga's CSRF prevention, rebuilt here (its plugin package is not a dependency): a request whose
 *    content type a form or a "simple" fetch can produce (none, urlencoded, multipart, text/plain)
 *    must carry `x-graphql-yoga-csrf`, which forces a CORS preflight on anyone else.
 * 2. That plugin trusts `application/json` to have been preflighted, which only CORS guarantees; so
 *    additionally `Sec-Fetch-Site` must be same-origin (or none) and `Origin`, when sent, must be the
 *    dashboard's.
 */
export function useCookieCsrfProtection(opts: { cookies: CookiePolicy; origins: readonly string[] }): Plugin {
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      if (request.headers.has("authorization")) return;
      if (!hasSignInCookie(request.headers.get("cookie") ?? undefined, opts.cookies)) return;
      const contentType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
      if ((!contentType || simpleContentTypes.has(contentType)) && !request.headers.has(CSRF_HEADER)) {
        endResponse(refusal(fetchAPI, 403, `Required CSRF header(s) not present: ${CSRF_HEADER}.`, "FORBIDDEN"));
        return;
      }
      if (crossSiteReason(request.headers, opts.origins)) endResponse(refusal(fetchAPI, 403, CROSS_SITE_DETAIL, "FORBIDDEN"));
    },
  };
}

/** Token limit at parse time; depth, alias, directive and cost limits at validation; no "Did you mean". */
export function useQueryLimits(): Plugin {
  return {
    onParse({ setParseFn }) {
      setParseFn((source) => parseLimited(typeof source === "string" ? source : source.body));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(QueryLimitsRule);
      return ({ result, setResult }) => {
        if (result.length > 0) setResult(result.map(withoutSuggestions));
      };
    },
  };
}

/** Introspection for signed-in callers only (an API key or a dashboard user), security.md test F38. */
export function useSignedInIntrospection(): Plugin<GraphQLContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as Partial<GraphQLContext>;
      if (!ctx.services?.principal && asksForIntrospection(args.document)) {
        setResultAndStopExecution({
          errors: [new GraphQLError("Introspection is available to signed-in callers only.", { extensions: { code: "UNAUTHENTICATED" } })],
        });
      }
    },
  };
}

/**
 * Cookies set by resolvers (sign-in, refresh, sign-out) go on the response, and no GraphQL answer is
 * stored by a cache: several carry credentials or personal data.
 */
export function useResponseCookies(pending: WeakMap<IncomingMessage, string[]>): Plugin {
  return {
    onResponse({ response, serverContext }) {
      response.headers.set("cache-control", "no-store");
      const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      for (const cookie of (req && pending.get(req)) || []) response.headers.append("set-cookie", cookie);
    },
  };
}

/**
 * Unexpected errors reach the client masked (src/graphql/errors.ts); the original goes to the log
 * with the request's id, which the access log line and any problem document also carry.
 */
export function useUnexpectedErrorLog(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          const log = (args.contextValue as Partial<GraphQLContext>).services?.log;
          for (const error of result.errors ?? []) {
            const original = error.originalError;
            if (!original || knownProblem(original) || original instanceof GraphQLError) continue;
            log?.error({ err: original, path: error.path?.join(".") }, "unexpected error in a GraphQL resolver");
          }
        },
      };
    },
  };
}
