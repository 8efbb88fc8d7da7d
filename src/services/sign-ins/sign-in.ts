import { ulid } from "../../ids.ts";
import { z } from "zod";
import { CODE_CHALLENGE_PATTERN, newOpaqueToken, TOKEN_PATTERN, tokenHash, verifierMatches } from "../../auth/opaque-tokens.ts";
import { addressBucket } from "../../auth/client-address.ts";
import { rateLimitHeaders } from "../../auth/rate-limit-headers.ts";
import { AppError } from "../../errors.ts";
import type { Prisma, User } from "../../generated/prisma/client.ts";
import { writeAuditInTx } from "../audit/audit.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { markAudited, mintAccess, REUSE_GRACE_SECONDS, revokeFamily, startFamily, userAudit, type ClientInfo, type SignedIn } from "./refresh-families.ts";
import { parseInput, prismaErrorCode, prismaOf } from "../../kernel/support.ts";
import { EmailAddress, LOCAL_ADMIN_EMAIL, maySignIn } from "./users.ts";

/**
 * Magic-link sign-in with PKCE (spec 5.2, security.md §1.7 and tests E24–E32).
 *
 * The dashboard keeps a random code verifier and sends its S256 challenge with the address. If the
 * address may sign in, a link with a one-time token is mailed; the token is stored as SHA-256 only,
 * lives 60 seconds and is used up by the first exchange, whatever its outcome. Exchanging it needs
 * the verifier, which only the browser that asked holds, so a link opened elsewhere (another device,
 * a mail scanner, someone who read the mail) is worthless.
 */

export const LINK_LIFETIME_SECONDS = 60;
const HOUR = 3600;

/** A path on this site to go to after signing in: one leading slash, nothing that leaves the origin. */
export const RedirectPath = z
  .string({ error: "must be a string" })
  .max(512, "must be at most 512 characters")
  .refine(isLocalPath, "must be a path on this site, starting with a single /");

const RequestSignInInput = z.object({
  email: EmailAddress,
  codeChallenge: z
    .string({ error: "must be a string" })
    .regex(CODE_CHALLENGE_PATTERN, "must be base64url(SHA-256(code_verifier)) without padding: 43 characters"),
  codeChallengeMethod: z.literal("S256", { error: "must be S256 (plain is not accepted)" }).default("S256"),
  redirectTo: RedirectPath.optional(),
});

export interface RequestSignInInput {
  email: string;
  codeChallenge: string;
  codeChallengeMethod?: string;
  redirectTo?: string;
}

export function isLocalPath(path: string): boolean {
  if (!path.startsWith("/") || path.startsWith("//")) return false;
  // Backslashes are slashes to browsers (`/\evil.example`); control characters are stripped by them.
  if (/[\\\u0000-\u001f\u007f]/.test(path)) return false;
  const base = "https://vessel.invalid";
  try {
    return new URL(path, base).origin === base;
  } catch {
    return false;
  }
}

/**
 * Asks for a sign-in link. The answer is the same whether or not the address may sign in, and so is
 * the work (one row written; the mail is handed to the mailer without waiting), so neither the
 * answer nor its timing tells who has an account. Limited per client address and per mail address.
 */
export async function requestSignIn(ctx: ServiceContext, input: RequestSignInInput): Promise<{ linkLifetimeSeconds: number }> {
  const { email, codeChallenge, redirectTo } = parseInput(RequestSignInInput, input);
  const { signInLimits, mailer } = ctx.deps.dashboard;
  // Per client first, so one client cycling through addresses does not spend their budgets.
  await spend(ctx, "sign-in-client", addressBucket(ctx.ip ?? "unknown"), signInLimits.perClientPerHour);
  // Hashed: the limiter's store need not hold mail addresses.
  await spend(ctx, "sign-in-address", tokenHash(email), signInLimits.perAddressPerHour);

  const now = ctx.deps.now();
  const db = prismaOf(ctx);
  // The local administrator's only way in is the link on the server's console (console-sign-in.ts):
  // a mailed one would land in the log (the development mailer) for anyone who can ask and read it.
  const consoleOnly = email === LOCAL_ADMIN_EMAIL;
  const eligible = (await maySignIn(ctx.deps, db, email, now)) && !consoleOnly;
  const token = newOpaqueToken();
  await db.loginToken.create({
    data: {
      id: ulid(now.getTime()),
      email,
      tokenHash: tokenHash(token),
      codeChallenge,
      requestIp: ctx.ip,
      redirectPath: redirectTo ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + LINK_LIFETIME_SECONDS * 1000),
      // Never mailed, and born used: it can never be exchanged.
      usedAt: eligible ? null : now,
    },
  });
  if (!eligible) {
    // The page says the same either way; the operator's log says why no mail went out. The address
    // is personal data: its domain and a short hash (to match repeated asks), never the address itself.
    const level = mailer.kind === "log" ? "warn" : "info";
    ctx.log[level](
      { toDomain: email.split("@")[1], addressHash: tokenHash(email).slice(0, 12), mailer: mailer.kind },
      consoleOnly
        ? "no sign-in mail sent: the local administrator signs in only with the one-time link printed on the server's console (restart for a new one)"
        : "no sign-in mail sent: this address may not sign in (not an organization admin in VESSEL_BOOTSTRAP_ADMIN_EMAILS, a member, or invited)",
    );
  } else {
    const link = `${ctx.deps.config.publicBaseUrl}/dashboard/sign-in?token=${token}`;
    mailer.send({
      to: email,
      subject: "Your Vessel sign-in link",
      text:
        `Open this link to sign in to Vessel:\n\n${link}\n\n` +
        `It works once, for ${LINK_LIFETIME_SECONDS} seconds, in the browser where you asked for it.\n` +
        "If you did not ask to sign in, ignore this mail.\n",
    });
  }
  return { linkLifetimeSeconds: LINK_LIFETIME_SECONDS };
}

async function spend(ctx: ServiceContext, policy: string, key: string, limit: number): Promise<void> {
  const decision = await ctx.deps.limiter.consume(policy, key, limit, HOUR);
  if (!decision.allowed) {
    throw new AppError("rate-limited", "Too many sign-in links were asked for; try again later.", {}, rateLimitHeaders(decision));
  }
}

const INVALID_LINK = "This sign-in link is invalid, has expired or was already used. Ask for a new one.";

export interface ExchangeSignInInput {
  token: string;
  codeVerifier: string;
}

/**
 * Exchanges a link's token and the browser's code verifier for a sign-in: creates the user on their
 * first sign-in (only if the address may sign in), accepts their pending invitations, and starts a
 * refresh-token family. Every failure answers the same 401. The token is used up before anything is
 * checked, so a wrong verifier burns it, and of parallel exchanges exactly one can succeed. A token
 * exchanged again after a successful sign-in revokes that sign-in (RFC 6749 §10.5), unless within
 * seconds of it (a page submitting twice).
 */
export async function exchangeSignIn(ctx: ServiceContext, input: ExchangeSignInInput, client: ClientInfo): Promise<SignedIn & { redirectTo: string | null }> {
  // Sign-in failures have a bucket of their own (failed-auth.ts): bad API keys cannot stop people signing in.
  const attempt = { scope: "sign-in", ip: ctx.ip ?? "" } as const;
  const gate = await ctx.deps.failedAuth.check(attempt);
  if (!gate.allowed) throw new AppError("rate-limited", "Too many failed attempts from this address; try again later.", {}, rateLimitHeaders(gate));
  const fail = async (): Promise<never> => {
    await ctx.deps.failedAuth.record(attempt);
    throw new AppError("unauthenticated", INVALID_LINK);
  };
  if (typeof input.token !== "string" || !TOKEN_PATTERN.test(input.token)) return fail();
  const hash = tokenHash(input.token);
  const now = ctx.deps.now();
  const db = prismaOf(ctx);

  const { count } = await db.loginToken.updateMany({ where: { tokenHash: hash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  const link = await db.loginToken.findUnique({ where: { tokenHash: hash } });
  if (count === 0 || !link) {
    // Within the grace period a repeat is a double submission by the same page, not a stolen link.
    const replayed = link?.familyId && link.usedAt && now.getTime() - link.usedAt.getTime() > REUSE_GRACE_SECONDS * 1000;
    if (replayed) {
      const family = await db.refreshToken.findFirst({ where: { familyId: link.familyId! }, select: { userId: true } });
      if (family) await revokeFamily(ctx, link.familyId!, family.userId, "auth.sign_in_replay");
    }
    return fail();
  }
  if (!verifierMatches(input.codeVerifier, link.codeChallenge)) return fail();

  const signIn = () =>
    db.$transaction(async (tx) => {
      // Checked again: an invitation may have been revoked since the link was sent.
      if (!(await maySignIn(ctx.deps, tx, link.email, now))) return null;
      const user = await tx.user.upsert({
        where: { email: link.email },
        create: { id: ulid(now.getTime()), email: link.email, createdAt: now, lastLoginAt: now },
        update: { lastLoginAt: now },
      });
      await acceptInvitations(ctx, tx, user, now);
      const family = await startFamily(ctx, tx, user.id, client);
      await tx.loginToken.update({ where: { id: link.id }, data: { familyId: family.familyId } });
      await writeAuditInTx(tx, userAudit(ctx, user.id, "auth.sign_in", 200));
      return { user, ...family };
    });
  // Two first sign-ins of one address at once (two links) both try to create the user: the loser retries and finds it.
  const signedIn = await signIn().catch((err: unknown) => (prismaErrorCode(err) === "P2002" ? signIn() : Promise.reject(err)));
  if (!signedIn) return fail();
  markAudited(ctx);
  ctx.log.info({ userId: signedIn.user.id }, "dashboard sign-in");
  return { ...signedIn, ...(await mintAccess(ctx, signedIn.user.id, signedIn.familyId)), redirectTo: link.redirectPath };
}

/**
 * Turns the address's pending invitations into memberships (an existing membership keeps its role),
 * each with an audit entry in its workspace. Claimed row by row, so a concurrent revocation wins or
 * loses cleanly.
 */
async function acceptInvitations(ctx: ServiceContext, tx: Prisma.TransactionClient, user: User, now: Date): Promise<void> {
  const pending = await tx.invitation.findMany({
    where: { email: user.email, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    orderBy: { id: "asc" },
  });
  for (const invitation of pending) {
    const { count } = await tx.invitation.updateMany({ where: { id: invitation.id, acceptedAt: null, revokedAt: null }, data: { acceptedAt: now } });
    if (count === 0) continue;
    await tx.membership.upsert({
      where: { workspaceId_userId: { workspaceId: invitation.workspaceId, userId: user.id } },
      create: { workspaceId: invitation.workspaceId, userId: user.id, role: invitation.role, createdAt: now },
      update: {},
    });
    await writeAuditInTx(tx, { ...userAudit(ctx, user.id, "invitation.accept", 200), workspaceId: invitation.workspaceId, target: invitation.id });
  }
}
