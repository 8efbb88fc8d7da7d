import { ulid } from "../../ids.ts";
import { z } from "zod";
import { StorageState, fromStorageState, toStorageState, type StorageStateExport } from "../../browser/profiles/format.ts";
import { AppError } from "../../errors.ts";
import { Prisma, type Profile } from "../../generated/prisma/client.ts";
import { auditedStatement, auditedTransaction } from "../audit/audited.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { paginate, PageQuery, type Page } from "../../kernel/pagination.ts";
import { prismaOf } from "../../kernel/support.ts";
import { sealDocument, insertSealed, readDocument, storeSealed } from "./profile-documents.ts";
import { captureFromSession } from "./profile-sessions.ts";

/** A profile as the service hands it out: everything but the sealed payload and its keys. */
export type ProfileRecord = Pick<
  Profile,
  "id" | "workspaceId" | "label" | "sourceSessionId" | "formatVersion" | "sizeBytes" | "cookieCount" | "originCount" | "keyCount" | "createdAt" | "updatedAt"
>;

// Column by column, so a future secret-bearing column stays out by default.
const publicColumns = {
  id: true,
  workspaceId: true,
  label: true,
  sourceSessionId: true,
  formatVersion: true,
  sizeBytes: true,
  cookieCount: true,
  originCount: true,
  keyCount: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Record<keyof ProfileRecord, true>;
/** The same columns for a statement of our own (storeSealed, insertSealed), named as Prisma names them. */
const publicColumnsSql = Prisma.raw(
  Object.keys(publicColumns)
    .map((key) => `"${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}" AS "${key}"`)
    .join(", "),
);

export const ProfileLabel = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "cannot be empty")
  .max(100, "must be at most 100 characters")
  .describe("A name for people, 1–100 characters.");

const SessionId = z.string({ error: "must be a string" }).min(1, "cannot be empty").max(64, "must be at most 64 characters");

export const CreateProfileInput = z
  .strictObject({
    label: ProfileLabel,
    session_id: SessionId.optional().describe("Save from this running session of the workspace (cookies, localStorage, sessionStorage)."),
    storage_state: StorageState.optional().describe("Or import a Playwright `storageState` document (per-origin `sessionStorage` may be added)."),
  })
  .superRefine((v, ctx) => {
    if ((v.session_id === undefined) === (v.storage_state === undefined)) {
      ctx.addIssue({ code: "custom", path: ["session_id"], message: "give exactly one of session_id and storage_state" });
    }
  });
export type CreateProfileInput = z.output<typeof CreateProfileInput>;

export const SaveProfileInput = z.strictObject({
  session_id: SessionId.describe("The running session whose state replaces the profile's."),
});
export const UpdateProfileInput = z.strictObject({ label: ProfileLabel });

export const ProfileListQuery = PageQuery;

/**
 * The workspace a caller acts in for profiles: an API key's own, or the one a dashboard user names
 * (`ctx.workspace`, a slug of a workspace they belong to; GraphQL only).
 */
function workspaceOf(ctx: ServiceContext): Promise<string> {
  return actingWorkspace(ctx, "use its profiles");
}

async function findInWorkspace(ctx: ServiceContext, workspaceId: string, id: string): Promise<ProfileRecord> {
  if (ctx.audit) ctx.audit.target = id;
  const profile = await prismaOf(ctx).profile.findFirst({ where: { id, workspaceId }, select: publicColumns });
  // Another workspace's profile is indistinguishable from a missing one.
  if (!profile) throw new AppError("not-found", "No profile with this id in this workspace.");
  return profile;
}

/**
 * Saves a profile: captured from a running session of the key's workspace, or imported from a
 * Playwright storageState. Stored encrypted; 413 over the configured size.
 */
export async function createProfile(ctx: ServiceContext, input: CreateProfileInput): Promise<ProfileRecord> {
  const workspaceId = await workspaceOf(ctx);
  const doc = input.session_id !== undefined ? await captureFromSession(ctx, workspaceId, input.session_id) : fromStorageState(input.storage_state!);
  const id = `prof_${ulid()}`;
  const { sealed, stats } = sealDocument(ctx.deps, { id, workspaceId }, doc);
  const row = { id, workspaceId, label: input.label, sourceSessionId: input.session_id ?? null, at: ctx.deps.now() };
  const [profile] = await auditedStatement(ctx, id, (audit) => insertSealed<ProfileRecord>(ctx.deps.db, row, sealed, stats, publicColumnsSql, audit));
  if (!profile) throw new Error("the new profile's row was not written");
  ctx.log.info({ profileId: id, from: input.session_id ? "session" : "storage_state", ...stats }, "profile created");
  return profile;
}

/** Replaces a profile's state with a running session's, keeping its id (and label). */
export async function saveProfile(ctx: ServiceContext, id: string, input: z.output<typeof SaveProfileInput>): Promise<ProfileRecord> {
  const workspaceId = await workspaceOf(ctx);
  // Side by side (a save is waited on); the profile's own refusal comes first.
  const [found, captured] = await Promise.allSettled([findInWorkspace(ctx, workspaceId, id), captureFromSession(ctx, workspaceId, input.session_id)]);
  if (found.status === "rejected") throw found.reason;
  if (captured.status === "rejected") throw captured.reason;
  const doc = captured.value;
  const { sealed, stats } = sealDocument(ctx.deps, { id, workspaceId }, doc);
  const saved = { sourceSessionId: input.session_id, at: ctx.deps.now(), returning: publicColumnsSql };
  const [profile] = await auditedStatement(
    ctx,
    id,
    (audit) => storeSealed<ProfileRecord>(ctx.deps.db, { id, workspaceId }, sealed, stats, saved, audit),
    (rows) => rows.length > 0,
  );
  if (!profile) throw new AppError("not-found", "No profile with this id in this workspace.");
  ctx.log.info({ profileId: id, sessionId: input.session_id, ...stats }, "profile saved");
  return profile;
}

export async function getProfile(ctx: ServiceContext, id: string): Promise<ProfileRecord> {
  return findInWorkspace(ctx, await workspaceOf(ctx), id);
}

/** The workspace's profiles in ULID (creation) order. */
export async function listProfiles(ctx: ServiceContext, q: z.output<typeof ProfileListQuery>): Promise<Page<ProfileRecord>> {
  const workspaceId = await workspaceOf(ctx);
  return paginate(q, "asc", (window) =>
    prismaOf(ctx).profile.findMany({
      where: { workspaceId, ...(window.idAfter ? { id: window.idAfter } : {}) },
      orderBy: window.orderBy,
      take: window.take,
      select: publicColumns,
    }),
  );
}

export async function updateProfile(ctx: ServiceContext, id: string, input: z.output<typeof UpdateProfileInput>): Promise<ProfileRecord> {
  const workspaceId = await workspaceOf(ctx);
  if (ctx.audit) ctx.audit.target = id;
  return auditedTransaction(ctx, async (tx, audit) => {
    const { count } = await tx.profile.updateMany({ where: { id, workspaceId }, data: { label: input.label, updatedAt: ctx.deps.now() } });
    if (count === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
    return tx.profile.findFirstOrThrow({ where: { id }, select: publicColumns });
  });
}

/** Deletes the row, and with it the only copy of its data key: the payload is unreadable from then on. */
export async function deleteProfile(ctx: ServiceContext, id: string): Promise<void> {
  const workspaceId = await workspaceOf(ctx);
  if (ctx.audit) ctx.audit.target = id;
  await auditedTransaction(ctx, async (tx, audit) => {
    const { count } = await tx.profile.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
  });
  ctx.log.info({ profileId: id }, "profile deleted");
}

/**
 * The profile as a Playwright storageState (with per-origin sessionStorage): the secrets in the
 * clear, so the audit entry is written (in its own transaction) before anything is decrypted.
 */
export async function exportProfileStorageState(ctx: ServiceContext, id: string): Promise<StorageStateExport> {
  const workspaceId = await workspaceOf(ctx);
  await auditedTransaction(ctx, async (tx, audit) => {
    const found = await tx.profile.count({ where: { id, workspaceId } });
    if (found === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
  });
  const doc = await readDocument(ctx.deps, ctx, workspaceId, id);
  return toStorageState(doc);
}
