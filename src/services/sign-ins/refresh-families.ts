import { decodeTime } from "ulid";
import { ulid } from "../../ids.ts";
import type { IssuedSignIn } from "../../auth/cookies.ts";
import { newOpaqueToken, TOKEN_PATTERN, tokenHash } from "../../auth/opaque-tokens.ts";
import { rateLimitHeaders } from "../../auth/rate-limit-headers.ts";
import { AppError } from "../../errors.ts";
import type { Prisma, User } from "../../generated/prisma/client.ts";
import { writeAuditInTx } from "../audit/audit.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";

/**
 * A dashboard sign-in is a refresh-token family: one row per refresh token, all sharing `familyId`
 * (a ULID, so its time is when the sign-in started). Each refresh rotates: the presented token is
 * marked rotated and a new one joins the family. Presenting a rotated token again means it was
 * copied; the whole family is revoked, which also ends every access token of the sign-in (the
 * authenticator checks the family on each request). RFC 9700 §4.14, security.md test 31.
 */

/** A refresh token not used for this long expires (sliding). */
export const REFRESH_IDLE_SECONDS = 14 * 24 * 3600;
/** No sign-in lasts longer than this, however often it is refreshed. */
export const SIGN_IN_ABSOLUTE_SECONDS = 30 * 24 * 3600;
/**
 * A rotated token presented again within this long is refused without revoking the family: two tabs
 * refreshing at the same moment both send the same cookie, and the loser simply retries with the
 * winner's new one. Later, the replay is treated as theft.
 */
export const REUSE_GRACE_SECONDS = 10;

const ENDED = "Your dashboard sign-in has ended; sign in again.";

export interface ClientInfo {
  userAgent?: string | undefined;
}

export type SignedIn = IssuedSignIn & { user: User; familyId: string };

/** Starts a family for a user inside the caller's transaction: its first refresh token. */
export async function startFamily(
  ctx: ServiceContext,
  tx: Prisma.TransactionClient,
  userId: string,
  client: ClientInfo,
): Promise<{ familyId: string; refreshToken: string; refreshExpiresAt: Date }> {
  const now = ctx.deps.now();
  const familyId = ulid(now.getTime());
  const { refreshToken, refreshExpiresAt } = await addRefreshToken(ctx, tx, { userId, familyId }, client);
  return { familyId, refreshToken, refreshExpiresAt };
}

async function addRefreshToken(
  ctx: ServiceContext,
  tx: Prisma.TransactionClient,
  family: { userId: string; familyId: string },
  client: ClientInfo,
): Promise<{ refreshToken: string; refreshExpiresAt: Date }> {
  const now = ctx.deps.now();
  const absoluteEnd = decodeTime(family.familyId) + SIGN_IN_ABSOLUTE_SECONDS * 1000;
  const refreshExpiresAt = new Date(Math.min(now.getTime() + REFRESH_IDLE_SECONDS * 1000, absoluteEnd));
  const refreshToken = newOpaqueToken();
  await tx.refreshToken.create({
    data: {
      id: ulid(now.getTime()),
      userId: family.userId,
      familyId: family.familyId,
      tokenHash: tokenHash(refreshToken),
      createdAt: now,
      expiresAt: refreshExpiresAt,
      userAgent: client.userAgent?.slice(0, 256) ?? null,
      ip: ctx.ip,
    },
  });
  return { refreshToken, refreshExpiresAt };
}

/** The access token of a family's user (one hour). */
export async function mintAccess(ctx: ServiceContext, userId: string, familyId: string): Promise<{ accessToken: string; accessExpiresAt: Date }> {
  const { token, expiresAt } = await ctx.deps.dashboard.accessTokens.mint(userId, familyId);
  return { accessToken: token, accessExpiresAt: expiresAt };
}

/**
 * Rotates the presented refresh token: a new pair for the same sign-in. Missing, unknown, revoked,
 * expired or past the sign-in's absolute lifetime → 401. A rotated token presented again after the
 * grace period revokes the whole sign-in (and answers 401).
 */
export async function refreshSignIn(ctx: ServiceContext, presented: string | undefined, client: ClientInfo): Promise<SignedIn> {
  // The sign-in bucket (failed-auth.ts), shared with link exchanges and apart from API keys'.
  const attempt = { scope: "sign-in", ip: ctx.ip ?? "" } as const;
  const fail = async (): Promise<never> => {
    await ctx.deps.failedAuth.record(attempt);
    throw new AppError("unauthenticated", ENDED);
  };
  const gate = await ctx.deps.failedAuth.check(attempt);
  if (!gate.allowed) throw new AppError("rate-limited", "Too many failed attempts from this address; try again later.", {}, rateLimitHeaders(gate));
  if (typeof presented !== "string" || !TOKEN_PATTERN.test(presented)) return fail();
  const now = ctx.deps.now();
  const row = await prismaOf(ctx).refreshToken.findUnique({ where: { tokenHash: tokenHash(presented) } });
  if (!row || row.revokedAt || row.expiresAt <= now) return fail();
  if (decodeTime(row.familyId) + SIGN_IN_ABSOLUTE_SECONDS * 1000 <= now.getTime()) return fail();
  if (row.rotatedAt) {
    if (now.getTime() - row.rotatedAt.getTime() > REUSE_GRACE_SECONDS * 1000) {
      await revokeFamily(ctx, row.familyId, row.userId, "auth.refresh_reuse");
      ctx.log.warn({ userId: row.userId, familyId: row.familyId }, "a rotated refresh token was presented again: the sign-in is revoked");
    }
    return fail();
  }
  const result = await prismaOf(ctx).$transaction(async (tx) => {
    // Of two refreshes racing with the same token, only one rotates it.
    const { count } = await tx.refreshToken.updateMany({ where: { id: row.id, rotatedAt: null, revokedAt: null }, data: { rotatedAt: now } });
    if (count === 0) return null;
    const user = await tx.user.findUnique({ where: { id: row.userId } });
    if (!user) return null;
    const next = await addRefreshToken(ctx, tx, { userId: row.userId, familyId: row.familyId }, client);
    await writeAuditInTx(tx, userAudit(ctx, user.id, "auth.refresh", 200));
    return { user, ...next };
  });
  if (!result) return fail();
  markAudited(ctx);
  return { ...result, familyId: row.familyId, ...(await mintAccess(ctx, row.userId, row.familyId)) };
}

/**
 * Ends the sign-ins the caller's cookies belong to (refresh token and access token; either may be
 * missing or stale). Always succeeds: signing out twice, or with nothing, is not an error.
 */
export async function signOut(ctx: ServiceContext, presented: { refreshToken?: string | undefined; accessToken?: string | undefined }): Promise<void> {
  const families = new Map<string, string>();
  if (typeof presented.refreshToken === "string" && TOKEN_PATTERN.test(presented.refreshToken)) {
    const row = await prismaOf(ctx).refreshToken.findUnique({ where: { tokenHash: tokenHash(presented.refreshToken) } });
    if (row) families.set(row.familyId, row.userId);
  }
  if (presented.accessToken) {
    const claims = await ctx.deps.dashboard.accessTokens.verify(presented.accessToken);
    if (claims) families.set(claims.familyId, claims.userId);
  }
  for (const [familyId, userId] of families) await revokeFamily(ctx, familyId, userId, "auth.sign_out");
  if (families.size > 0) markAudited(ctx);
}

/** The call's entry was written here (with the user as actor); the transport must not write another. */
export function markAudited(ctx: ServiceContext): void {
  if (ctx.audit) ctx.audit.written = true;
}

/** Revokes every token of a sign-in, with an audit entry for its user. */
export async function revokeFamily(
  ctx: ServiceContext,
  familyId: string,
  userId: string,
  action: "auth.sign_out" | "auth.refresh_reuse" | "auth.sign_in_replay",
): Promise<void> {
  const now = ctx.deps.now();
  await prismaOf(ctx).$transaction(async (tx) => {
    const { count } = await tx.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: now } });
    if (count > 0 || action === "auth.sign_out") await writeAuditInTx(tx, userAudit(ctx, userId, action, action === "auth.sign_out" ? 200 : 401));
  });
}

/** An organization-level entry (no workspace) whose actor is a dashboard user. */
export function userAudit(ctx: ServiceContext, userId: string, action: string, httpStatus: number) {
  return {
    workspaceId: null,
    keyPrefix: null,
    actorUserId: userId,
    action,
    target: userId,
    httpStatus,
    requestId: ctx.requestId,
    clientRequestId: ctx.clientRequestId ?? null,
    ip: ctx.ip,
    at: ctx.deps.now(),
  };
}
