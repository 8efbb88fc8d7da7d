import { ExchangeSignInDocument } from "@gql/graphql.ts";
import { accessExpiresAt, request } from "../lib/api.ts";

/**
 * Magic-link sign-in with PKCE. This tab keeps the code verifier (sessionStorage) and asks for a
 * link; the link opens /dashboard/sign-in?token=…, which exchanges the token with the verifier. A link
 * opened in another tab of the same browser hands its token to the tab that asked (BroadcastChannel,
 * same origin only), which signs in for both: the cookies are the browser's.
 */
export const PENDING = "vessel.signIn";
export const channelName = "vessel-sign-in";

export interface Pending {
  verifier: string;
  email: string;
  at: number;
}

export function pending(): Pending | null {
  try {
    const p = JSON.parse(sessionStorage.getItem(PENDING) ?? "null") as Pending | null;
    // A link works 60 seconds; a verifier older than 15 minutes has nothing left to pair with.
    return p && Date.now() - p.at < 15 * 60_000 ? p : null;
  } catch {
    return null;
  }
}

export type Message = { type: "token"; token: string } | { type: "signed-in"; redirectTo: string | null } | { type: "failed"; message: string };

/** Where to go once signed in: a path on this site only. */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/dashboard") && !next.startsWith("//") ? next : "/dashboard/";
}

export async function exchange(token: string, verifier: string): Promise<string | null> {
  const data = await request(ExchangeSignInDocument, { token, codeVerifier: verifier }, { signedIn: false });
  accessExpiresAt(data.exchangeSignIn.accessTokenExpiresAt);
  return data.exchangeSignIn.redirectTo ?? null;
}
