import { ulid } from "../../ids.ts";
import type { z } from "zod";
import type { ServiceContext } from "../../kernel/context.ts";
import { paginate, type Page } from "../../kernel/pagination.ts";
import { conflictOnDuplicate, parseInput, prismaOf } from "../../kernel/support.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { credentialWorkspace, findCredential, notFound, publicColumns, type CredentialRecord } from "./credential-access.ts";
import { CreateCredentialInput, type CredentialListQuery, UpdateCredentialInput } from "./credential-input.ts";
import { openSecrets, sealSecrets, usernameHint } from "./credential-secrets.ts";

/**
 * The workspace's vault of logins (docs/credentials.md): made, renamed and replaced here, filled into
 * sessions by credential-fill.ts. Secrets go in and never come out: every answer is a
 * CredentialRecord, and no log line or audit entry names more than the credential's id.
 */

const duplicate = "A credential with this name exists in this workspace.";

export async function createCredential(ctx: ServiceContext, raw: z.input<typeof CreateCredentialInput>): Promise<CredentialRecord> {
  // Parsed here as well as by the transport: GraphQL hands its arguments over as they came.
  const input = parseInput(CreateCredentialInput, raw);
  const workspaceId = await credentialWorkspace(ctx, "manage");
  const id = `cred_${ulid()}`;
  const { sealed, wrappedKey, masterKeyId } = sealSecrets(ctx.deps.masterKey, workspaceId, id, {
    username: input.username,
    password: input.password,
    totp_secret: input.totp_secret ?? null,
  });
  const now = ctx.deps.now();
  const row = await conflictOnDuplicate(
    () =>
      auditedTransaction(ctx, async (tx, audit) => {
        const created = await tx.credential.create({
          data: {
            id,
            workspaceId,
            name: input.name,
            origins: input.origins,
            usernameHint: usernameHint(input.username),
            hasTotp: input.totp_secret !== undefined,
            sealed,
            wrappedKey,
            masterKeyId,
            createdAt: now,
            updatedAt: now,
          },
          select: publicColumns,
        });
        await audit(id);
        return created;
      }),
    duplicate,
  );
  ctx.log.info({ credentialId: id, origins: input.origins.length, hasTotp: row.hasTotp }, "credential created");
  return row;
}

export async function listCredentials(ctx: ServiceContext, q: z.output<typeof CredentialListQuery>): Promise<Page<CredentialRecord>> {
  const workspaceId = await credentialWorkspace(ctx, "read");
  return paginate(q, "asc", (window) =>
    prismaOf(ctx).credential.findMany({
      where: { workspaceId, ...(window.idAfter ? { id: window.idAfter } : {}) },
      orderBy: window.orderBy,
      take: window.take,
      select: publicColumns,
    }),
  );
}

export async function getCredential(ctx: ServiceContext, id: string): Promise<CredentialRecord> {
  return findCredential(ctx, await credentialWorkspace(ctx, "read"), id);
}

/** Renames, re-scopes or replaces secrets; secrets not named are kept, and all of them are sealed afresh under a new data key. */
export async function updateCredential(ctx: ServiceContext, id: string, raw: z.input<typeof UpdateCredentialInput>): Promise<CredentialRecord> {
  const input = parseInput(UpdateCredentialInput, raw);
  const workspaceId = await credentialWorkspace(ctx, "manage");
  if (ctx.audit) ctx.audit.target = id;
  const replacing = input.username !== undefined || input.password !== undefined || input.totp_secret !== undefined;
  const row = await conflictOnDuplicate(
    () =>
      auditedTransaction(ctx, async (tx, audit) => {
        const current = await tx.credential.findFirst({
          where: { id, workspaceId },
          select: { id: true, workspaceId: true, sealed: true, wrappedKey: true, masterKeyId: true },
        });
        if (!current) throw notFound();
        let secrets = {};
        if (replacing) {
          const old = openSecrets(ctx.deps.masterKey, current);
          const next = {
            username: input.username ?? old.username,
            password: input.password ?? old.password,
            totp_secret: input.totp_secret === undefined ? old.totp_secret : input.totp_secret,
          };
          secrets = {
            ...sealSecrets(ctx.deps.masterKey, workspaceId, id, next),
            usernameHint: usernameHint(next.username),
            hasTotp: next.totp_secret !== null,
          };
        }
        const updated = await tx.credential.update({
          where: { id },
          data: {
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.origins !== undefined ? { origins: input.origins } : {}),
            ...secrets,
            updatedAt: ctx.deps.now(),
          },
          select: publicColumns,
        });
        await audit(id);
        return updated;
      }),
    duplicate,
  );
  ctx.log.info({ credentialId: id, renamed: input.name !== undefined, origins: input.origins?.length, secretsReplaced: replacing }, "credential updated");
  return row;
}

/** Deletes the row and with it the only copy of its data key. */
export async function deleteCredential(ctx: ServiceContext, id: string): Promise<void> {
  const workspaceId = await credentialWorkspace(ctx, "manage");
  if (ctx.audit) ctx.audit.target = id;
  await auditedTransaction(ctx, async (tx, audit) => {
    const { count } = await tx.credential.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw notFound();
    await audit(id);
  });
  ctx.log.info({ credentialId: id }, "credential deleted");
}

export { findCredential };
