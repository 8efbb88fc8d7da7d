import { ulid } from "../../ids.ts";
import { newOpaqueToken, s256Challenge, tokenHash } from "../../auth/opaque-tokens.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { LOCAL_ADMIN_EMAIL, maySignIn } from "./users.ts";

/**
 * The first way into the dashboard of the embedded default, where no mail server is configured: at
 * start, a one-time sign-in link for the address that owns `default` is printed on the server's own
 * console. Whoever reads that console runs the server, and owns its data folder anyway.
 *
 * The link is an ordinary magic-link row (sign-in.ts): stored as SHA-256, used up by its first
 * exchange, dead after CONSOLE_LINK_LIFETIME_SECONDS. The browser that opens it did not ask for it, so
 * the PKCE verifier travels with the link, in its fragment (never sent to a server, nor kept in
 * access logs); the dashboard reads it from there.
 */

/** Long enough to copy a link from a terminal into a browser; short enough that an old scrollback is worthless. */
export const CONSOLE_LINK_LIFETIME_SECONDS = 15 * 60;

/** Who owns the first workspace: the first bootstrap admin when there is one, the local administrator otherwise. */
export function firstOwnerEmail(deps: Pick<AppDeps, "config">): string {
  return deps.config.dashboard.api.bootstrapAdminEmails[0] ?? LOCAL_ADMIN_EMAIL;
}

export interface ConsoleSignIn {
  email: string;
  link: string;
  expiresAt: Date;
}

/**
 * A fresh one-time link for the first owner, or null when a real mail server is configured (they ask
 * for a mailed link like everyone else) or when that address may not sign in (someone removed it).
 */
export async function issueConsoleSignIn(deps: AppDeps, landing = "/dashboard/"): Promise<ConsoleSignIn | null> {
  if (deps.dashboard.mailer.kind === "smtp") return null;
  return issueHandedSignIn(deps, firstOwnerEmail(deps), CONSOLE_LINK_LIFETIME_SECONDS, landing);
}

/**
 * A one-time link for `email` that is handed over rather than mailed (the console's, an invitation's
 * on a server without mail), with its PKCE verifier in the fragment; null when the address may not sign in.
 */
export async function issueHandedSignIn(deps: AppDeps, email: string, lifetimeSeconds: number, landing = "/dashboard/"): Promise<ConsoleSignIn | null> {
  const now = deps.now();
  if (!(await maySignIn(deps, deps.db.prisma, email, now))) return null;
  const token = newOpaqueToken();
  const verifier = newOpaqueToken();
  const expiresAt = new Date(now.getTime() + lifetimeSeconds * 1000);
  await deps.db.prisma.loginToken.create({
    data: {
      id: ulid(now.getTime()),
      email,
      tokenHash: tokenHash(token),
      codeChallenge: s256Challenge(verifier),
      requestIp: null,
      redirectPath: landing,
      createdAt: now,
      expiresAt,
    },
  });
  return { email, link: `${deps.config.publicBaseUrl}/dashboard/sign-in?token=${token}#verifier=${verifier}`, expiresAt };
}
