import { clearedSignInCookies, signInCookies } from "../../auth/cookies.ts";
import { AppError } from "../../errors.ts";
import { type SignedIn } from "../../services/sign-ins/refresh-families.ts";
import { exchangeSignIn, requestSignIn } from "../../services/sign-ins/sign-in.ts";
import { audited } from "../audited.ts";
import { builder, type GraphQLContext, type HttpExchange } from "../builder.ts";
import { operations } from "../../services/operations.ts";
import { MeType, loadMe } from "./user.ts";

const SignInRequested = builder.objectRef<{ linkLifetimeSeconds: number }>("SignInRequested").implement({
  description: "The same answer whether or not the address may sign in.",
  fields: (t) => ({
    linkLifetimeSeconds: t.exposeInt("linkLifetimeSeconds", { description: "How long the mailed link works." }),
  }),
});

type SignedInView = SignedIn & { redirectTo: string | null };

const SignedInType = builder.objectRef<SignedInView>("SignedIn").implement({
  description: "A dashboard sign-in. The tokens travel only in HttpOnly cookies, never in this answer.",
  fields: (t) => ({
    me: t.field({ type: MeType, resolve: (s, _a, ctx) => loadMe(ctx, s.user) }),
    accessTokenExpiresAt: t.field({ type: "DateTime", resolve: (s) => s.accessExpiresAt }),
    refreshTokenExpiresAt: t.field({ type: "DateTime", resolve: (s) => s.refreshExpiresAt }),
    redirectTo: t.string({ nullable: true, description: "The path asked for in requestSignIn, if any.", resolve: (s) => s.redirectTo }),
  }),
});

/** Cookie-setting operations need the HTTP response; over a WebSocket they are refused before any work. */
function httpOf(ctx: GraphQLContext): HttpExchange {
  if (!ctx.http) throw new AppError("forbidden", "This operation sets cookies: call it over HTTP, not over the WebSocket.");
  return ctx.http;
}

function setSignInCookies(ctx: GraphQLContext, http: HttpExchange, s: SignedIn): void {
  const { cookies } = ctx.services.deps.dashboard;
  for (const c of signInCookies(cookies, s, ctx.services.deps.now())) http.setCookie(c);
}

builder.mutationField(operations.requestSignIn.id, (t) =>
  t.field({
    extensions: { operation: operations.requestSignIn },
    type: SignInRequested,
    description:
      "Mail a one-time sign-in link (60 seconds) if this address may sign in: an organization admin, a member, or a pending invitation. " +
      "Send the S256 challenge of a code verifier you keep; exchangeSignIn needs the verifier. Limited per address and per client.",
    args: {
      email: t.arg.string({ required: true }),
      codeChallenge: t.arg.string({ required: true, description: "base64url(SHA-256(code_verifier)), 43 characters." }),
      codeChallengeMethod: t.arg.string({ description: "S256 (the default and the only method accepted)." }),
      redirectTo: t.arg.string({ description: "A path on this site to return to after signing in." }),
    },
    resolve: (_r, args, ctx) =>
      audited(ctx, operations.requestSignIn, (svc, run) =>
        run(svc, {
          email: args.email,
          codeChallenge: args.codeChallenge,
          codeChallengeMethod: args.codeChallengeMethod ?? undefined,
          redirectTo: args.redirectTo ?? undefined,
        }),
      ),
  }),
);

builder.mutationField(operations.exchangeSignIn.id, (t) =>
  t.field({
    extensions: { operation: operations.exchangeSignIn },
    type: SignedInType,
    description: "Exchange the link's token and your code verifier for the access and refresh cookies. The token works once.",
    args: { token: t.arg.string({ required: true }), codeVerifier: t.arg.string({ required: true }) },
    resolve: async (_r, args, ctx) => {
      const http = httpOf(ctx);
      return audited(ctx, operations.exchangeSignIn, async (svc, run) => {
        const s = await run(svc, { token: args.token, codeVerifier: args.codeVerifier }, { userAgent: http.userAgent });
        setSignInCookies(ctx, http, s);
        return s;
      });
    },
  }),
);

/** Rotates the refresh cookie; the resolver of refreshSignIn and of its deprecated old name. */
async function rotate(ctx: GraphQLContext): Promise<SignedInView> {
  const http = httpOf(ctx);
  return audited(ctx, operations.refreshSignIn, async (svc, run) => {
    const s = await run(svc, http.cookie(svc.deps.dashboard.cookies.refresh), { userAgent: http.userAgent });
    setSignInCookies(ctx, http, s);
    return { ...s, redirectTo: null };
  });
}

const REFRESH_DESCRIPTION = "Rotate the refresh cookie: new access and refresh cookies. A refresh token used twice ends the sign-in.";

builder.mutationField(operations.refreshSignIn.id, (t) =>
  t.field({
    extensions: { operation: operations.refreshSignIn },
    type: SignedInType,
    description: REFRESH_DESCRIPTION,
    resolve: (_r, _a, ctx) => rotate(ctx),
  }),
);

// The old name ("session" is the browser session only, issue 42): kept for callers written against
// it. Not an operation of the catalogue of its own: it is refreshSignIn under another name.
builder.mutationField("refreshSession", (t) =>
  t.field({
    type: SignedInType,
    description: REFRESH_DESCRIPTION,
    deprecationReason: "Use refreshSignIn.",
    resolve: (_r, _a, ctx) => rotate(ctx),
  }),
);

builder.mutationField(operations.signOut.id, (t) =>
  t.boolean({
    extensions: { operation: operations.signOut },
    description: "End this sign-in on the server and clear both cookies. Always succeeds.",
    resolve: async (_r, _a, ctx) => {
      const http = httpOf(ctx);
      const { cookies } = ctx.services.deps.dashboard;
      return audited(ctx, operations.signOut, async (svc, run) => {
        await run(svc, { refreshToken: http.cookie(cookies.refresh), accessToken: http.cookie(cookies.access) });
        for (const c of clearedSignInCookies(cookies)) http.setCookie(c);
        return true;
      });
    },
  }),
);
