import type { ApiKey, PrismaClient } from "../generated/prisma/client.ts";

/**
 * The api_keys statements authentication runs on every call that presents a key. They live with
 * authentication, beneath the kernel, so that authenticating never reaches up into the services.
 */

/** A request's context or the database itself (structural, so this file needs nothing above it). */
type Source = { deps: { db: { prisma: PrismaClient } } } | { prisma: PrismaClient };
const prismaOf = (source: Source): PrismaClient => ("deps" in source ? source.deps.db.prisma : source.prisma);

/** What authentication needs to check a presented key. Only for the auth layer; never serialised. */
export type ApiKeyForVerification = Pick<ApiKey, "id" | "workspaceId" | "prefix" | "secretHash" | "secretTag" | "revokedAt"> & {
  /** The workspace's own request budget per minute; null = the default. */
  rateLimitPerMinute: number | null;
  /** The workspace's own cap on live sessions; null = the deployment's. */
  maxSessions: number | null;
};

/** The record a presented key id refers to, with its hash, or null. For the authentication layer only. */
export async function findKeyForVerification(source: Source, id: string): Promise<ApiKeyForVerification | null> {
  lookups++;
  const row = await prismaOf(source).apiKey.findUnique({
    where: { id },
    select: {
      id: true,
      workspaceId: true,
      prefix: true,
      secretHash: true,
      secretTag: true,
      revokedAt: true,
      workspace: { select: { rateLimitPerMinute: true, maxSessions: true } },
    },
  });
  if (!row) return null;
  const { workspace, ...key } = row;
  return { ...key, rateLimitPerMinute: workspace.rateLimitPerMinute, maxSessions: workspace.maxSessions };
}

let lookups = 0;

/** How many key records this process has read (for tests that assert "no database read", as argonCalls does for hashing). */
export function keyLookups(): number {
  return lookups;
}

/**
 * Stores the tag of a key that verified but was made before tags existed (its secret is known only
 * now). Only where none is stored, so it never replaces one.
 */
export async function storeSecretTag(source: Source, id: string, tag: number): Promise<void> {
  await prismaOf(source).apiKey.updateMany({ where: { id, secretTag: null }, data: { secretTag: tag } });
}
