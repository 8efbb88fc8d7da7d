import { ulid } from "ulid";
import { z } from "zod";
import type { Workspace } from "../generated/prisma/client.ts";
import { conflictOnDuplicate, parseInput, prismaOf } from "./support.ts";
import type { DbSource } from "./support.ts";

/** 3–40 characters: lower-case letters, digits and dashes, starting and ending with a letter or digit. */
export const WorkspaceSlug = z
  .string({ error: "must be a string" })
  .min(3, "must be at least 3 characters")
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "may contain only lower-case letters, digits and dashes, and must start and end with a letter or digit");

export const WorkspaceName = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "cannot be empty")
  .max(100, "must be at most 100 characters");

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
