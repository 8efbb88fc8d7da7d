import { ulid } from "../../ids.ts";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import type { Role, Workspace } from "../../generated/prisma/client.ts";
import { auditedTransaction } from "../audit/audited.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { conflictOnDuplicate, parseInput, prismaOf } from "../../kernel/support.ts";
import type { DbSource } from "../../kernel/support.ts";
import { isOrganizationAdmin, requireUser } from "../sign-ins/users.ts";

/** 3–40 characters: lower-case letters, digits and dashes, starting and ending with a letter or digit. */
export const WorkspaceSlug = z
  .string({ error: "must be a string" })
  .min(3, "must be at least 3 characters")
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "may contain only lower-case letters, digits and dashes, and must start and end with a letter or digit");

export const WorkspaceName = z.string({ error: "must be a string" }).trim().min(1, "cannot be empty").max(100, "must be at most 100 characters");

const CreateWorkspaceInput = z.object({ slug: WorkspaceSlug, name: WorkspaceName });

export interface CreateWorkspaceInput {
  slug: string;
  name: string;
}

/** A new workspace with a ULID id. A taken slug → AppError("conflict"); a bad slug or name → "validation-failed". */
export async function createWorkspace(source: DbSource, input: CreateWorkspaceInput): Promise<Workspace> {
  const { slug, name } = parseInput(CreateWorkspaceInput, input);
  return conflictOnDuplicate(
    () => prismaOf(source).workspace.create({ data: { id: ulid(), slug, name } }),
    `A workspace with the slug "${slug}" already exists.`,
  );
}

/** The workspace with this slug, or null. */
export async function findWorkspaceBySlug(source: DbSource, slug: string): Promise<Workspace | null> {
  return prismaOf(source).workspace.findUnique({ where: { slug } });
}

/** Dashboard: the caller's workspaces with their role in each, by slug (API keys are refused). */
export async function listMyWorkspaces(ctx: ServiceContext): Promise<Array<{ workspace: Workspace; role: Role }>> {
  const user = requireUser(ctx, "list workspaces");
  const rows = await prismaOf(ctx).membership.findMany({
    where: { userId: user.userId },
    include: { workspace: true },
    orderBy: { workspace: { slug: "asc" } },
  });
  return rows.map((m) => ({ workspace: m.workspace, role: m.role }));
}

/**
 * Dashboard: an organization admin (a bootstrap admin) creates a workspace and becomes its owner, in
 * one audited transaction whose entry is filed in the new workspace. Anyone else → 403.
 */
export async function createWorkspaceAsAdmin(ctx: ServiceContext, input: CreateWorkspaceInput): Promise<{ workspace: Workspace; role: Role }> {
  const user = requireUser(ctx, "create workspaces");
  if (!isOrganizationAdmin(ctx.deps, user.email)) throw new AppError("forbidden", "Only organization admins can create workspaces.");
  const { slug, name } = parseInput(CreateWorkspaceInput, input);
  const now = ctx.deps.now();
  const workspace = await conflictOnDuplicate(
    () =>
      auditedTransaction(ctx, async (tx, audit) => {
        const ws = await tx.workspace.create({ data: { id: ulid(now.getTime()), slug, name, createdAt: now } });
        await tx.membership.create({ data: { workspaceId: ws.id, userId: user.userId, role: "OWNER", createdAt: now } });
        if (ctx.audit) ctx.audit.workspaceId = ws.id;
        await audit(ws.id);
        return ws;
      }),
    `A workspace with the slug "${slug}" already exists.`,
  );
  return { workspace, role: "OWNER" };
}
