import { z } from "zod";
import { generateApiKey } from "../../auth/api-key-format.ts";
import { apiKeyScopes } from "../../auth/scopes.ts";
import { hashSecret, secretTag } from "../../auth/api-key-hash.ts";
import { AppError } from "../../errors.ts";
import type { ApiKey } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { requireWorkspaceRole } from "../../kernel/authz.ts";
import { endSession } from "../sessions/sessions.ts";
import { conflictOnDuplicate, parseInput, prismaErrorCode, prismaOf } from "../../kernel/support.ts";

/** An API key as the service hands it out: every column except the hash and the tag (both derive from the secret). */
export type ApiKeyRecord = Omit<ApiKey, "secretHash" | "secretTag">;

/** Trimmed, 1–100 characters. */
export const ApiKeyLabel = z.string({ error: "must be a string" }).trim().min(1, "cannot be empty").max(100, "must be at most 100 characters");

/** What a key may do beyond sessions and profiles (src/auth/scopes.ts); none by default. */
export const ApiKeyScopes = z.array(z.enum(apiKeyScopes, { error: `must be one of ${apiKeyScopes.join(", ")}` })).max(apiKeyScopes.length);

const Id = z.string({ error: "must be a string" }).min(1, "cannot be empty");

const CreateApiKeyInput = z.object({ workspaceId: Id, label: ApiKeyLabel, createdById: Id.optional(), scopes: ApiKeyScopes.optional() });
const RevokeApiKeyInput = z.object({ workspaceId: Id, id: Id, revokedById: Id.optional(), endSessions: z.boolean().optional() });

// Selecting column by column (rather than omitting the hash) keeps a future secret-bearing column out by default.
const publicColumns = {
  id: true,
  workspaceId: true,
  label: true,
  prefix: true,
  createdById: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  revokedById: true,
  scopes: true,
} as const satisfies Record<keyof ApiKeyRecord, true>;

export interface CreateApiKeyInput {
  workspaceId: string;
  label: string;
  createdById?: string;
  scopes?: readonly string[];
}

export interface CreatedApiKey {
  apiKey: ApiKeyRecord;
  /** The full key, `vs_<id>.<secret>`. Returned here once and never again. */
  secret: string;
}

/**
 * Mints a key for a workspace: stores the argon2id hash of the secret and the `vs_<id>` prefix,
 * and returns the full key once. Unknown workspace (or creator) → AppError("not-found").
 */
export async function createApiKey(ctx: ServiceContext, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const { workspaceId, label, createdById, scopes } = parseInput(CreateApiKeyInput, input);
  const generated = generateApiKey();
  // Hash before the transaction: argon2 takes tens of milliseconds and PGlite has one connection.
  const secretHash = await hashSecret(generated.secret);
  let apiKey: ApiKeyRecord;
  try {
    apiKey = await conflictOnDuplicate(
      () =>
        auditedTransaction(ctx, async (tx, audit) => {
          const row = await tx.apiKey.create({
            data: {
              id: generated.id,
              workspaceId,
              label,
              prefix: generated.prefix,
              secretHash,
              secretTag: secretTag(generated.secret),
              createdById: createdById ?? null,
              scopes: [...new Set(scopes ?? [])],
            },
            select: publicColumns,
          });
          await audit(row.id);
          return row;
        }),
      "Could not create the API key; try again.",
    );
  } catch (err) {
    if (prismaErrorCode(err) === "P2003") {
      throw new AppError("not-found", createdById === undefined ? "No such workspace." : "No such workspace or user.");
    }
    throw err;
  }
  ctx.log.info({ workspaceId, apiKeyId: apiKey.id, prefix: apiKey.prefix }, "api key created");
  return { apiKey, secret: generated.key };
}

/** Every key of the workspace, revoked ones included, newest first. Never the hash. */
export async function listApiKeys(ctx: ServiceContext, workspaceId: string): Promise<ApiKeyRecord[]> {
  return prismaOf(ctx).apiKey.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: publicColumns,
  });
}

export interface RevokeApiKeyInput {
  workspaceId: string;
  id: string;
  revokedById?: string;
  /** Also end every live session the key started (API_KEY_REVOKED; their sockets close with 4403). */
  endSessions?: boolean;
}

/**
 * Revokes a key of the workspace and returns it. Idempotent: revoking a revoked key returns it
 * unchanged (the first revokedAt and revokedById stay). A key of another workspace, or no key at
 * all → AppError("not-found"), the same answer for both. With `endSessions`, the sessions the key
 * started end too (also when the key was revoked already), since their tokens would otherwise
 * stay valid until the sessions' hard end.
 */
export async function revokeApiKey(ctx: ServiceContext, input: RevokeApiKeyInput): Promise<ApiKeyRecord> {
  const { workspaceId, id, revokedById, endSessions } = parseInput(RevokeApiKeyInput, input);
  const { apiKey, count } = await auditedTransaction(ctx, async (tx, audit) => {
    // The revokedAt: null condition makes concurrent revocations agree on the first one.
    const { count } = await tx.apiKey.updateMany({
      where: { id, workspaceId, revokedAt: null },
      data: { revokedAt: ctx.deps.now(), revokedById: revokedById ?? null },
    });
    const apiKey = await tx.apiKey.findFirst({ where: { id, workspaceId }, select: publicColumns });
    if (!apiKey) throw new AppError("not-found", "No such API key in this workspace.");
    await audit(id);
    return { apiKey, count };
  });
  // After the commit: from the next request on, every node refuses the key.
  await ctx.deps.auth.revoked(id);
  if (count > 0) ctx.log.info({ workspaceId, apiKeyId: id, prefix: apiKey.prefix }, "api key revoked");
  if (endSessions) await endSessionsOfKey(ctx, workspaceId, id, revokedById);
  return apiKey;
}

/**
 * Ends the live sessions a (revoked) key started, on whichever node runs them: each is RELEASED
 * with API_KEY_REVOKED and an event, like a force-stop, and its CDP and live-view sockets close
 * with 4403. The revocation's own audit entry stands for the call; the ends are session events.
 */
async function endSessionsOfKey(ctx: ServiceContext, workspaceId: string, keyId: string, endedById: string | undefined): Promise<void> {
  const live = await prismaOf(ctx).session.findMany({
    where: { workspaceId, apiKeyId: keyId, status: { in: ["PENDING", "RUNNING", "REQUEST_RELEASE"] } },
    select: { id: true },
  });
  const ended = await Promise.all(live.map(({ id }) => endSession(ctx.deps, id, { status: "RELEASED", reason: "API_KEY_REVOKED" }, undefined, endedById)));
  if (live.length > 0) ctx.log.info({ workspaceId, apiKeyId: keyId, sessions: ended.filter(Boolean).length }, "ended the sessions of a revoked api key");
}

/** Dashboard: mint a key for a workspace (owners and admins; never an API key). */
export async function createWorkspaceApiKey(ctx: ServiceContext, label: string, scopes: unknown = []): Promise<CreatedApiKey> {
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "create API keys");
  const createdById = ctx.principal?.kind === "user" ? ctx.principal.userId : undefined;
  return createApiKey(ctx, { workspaceId: ws.id, label, createdById, scopes: parseInput(ApiKeyScopes, scopes) });
}

/** Dashboard: every key of a workspace, revoked ones included with their revocation time (any member). */
export async function listWorkspaceApiKeys(ctx: ServiceContext): Promise<ApiKeyRecord[]> {
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN", "MEMBER"], "list API keys");
  return listApiKeys(ctx, ws.id);
}

/** Dashboard: revoke a key at once (owners and admins), and with `endSessions` the sessions it started. */
export async function revokeWorkspaceApiKey(ctx: ServiceContext, keyId: string, opts: { endSessions?: boolean } = {}): Promise<ApiKeyRecord> {
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "revoke API keys");
  const revokedById = ctx.principal?.kind === "user" ? ctx.principal.userId : undefined;
  return revokeApiKey(ctx, { workspaceId: ws.id, id: keyId, revokedById, endSessions: opts.endSessions });
}
