import { ulid } from "../../ids.ts";
import { z } from "zod";
import { auditRecord } from "../../auth/request-auth.ts";
import { captureProfile } from "../../browser/profile-capture.ts";
import {
  CURRENT_FORMAT_VERSION, ProfileDocumentV1, ProfileFormatError, StorageState, fromStorageState, parseProfileDocument, serializeDocument, toStorageState,
  type DocumentStats, type ProfileDocument, type StorageStateExport,
} from "../../browser/profile-format.ts";
import { restoreProfile } from "../../browser/profile-restore.ts";
import { ProfileDecryptError, openProfile, sealProfile, type SealedProfile } from "../../crypto/profile-crypto.ts";
import { AppError } from "../../kernel/errors.ts";
import type { Profile, Session } from "../../generated/prisma/client.ts";
import { writeAuditInTx } from "../audit/audit.ts";
import { auditedTransaction } from "../audit/audited.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { auditAction } from "../../kernel/operations.ts";
import { paginate, PageQuery, type Page } from "../../kernel/pagination.ts";
import { prismaOf } from "../../kernel/support.ts";
import type { CdpPipe } from "../../browser/cdp-pipe.ts";

/** A profile as the service hands it out: everything but the sealed payload and its keys. */
export type ProfileRecord = Pick<
  Profile,
  "id" | "workspaceId" | "label" | "sourceSessionId" | "formatVersion" | "sizeBytes" | "cookieCount" | "originCount" | "keyCount" | "createdAt" | "updatedAt"
>;

// Column by column, so a future secret-bearing column stays out by default.
const publicColumns = {
  id: true, workspaceId: true, label: true, sourceSessionId: true, formatVersion: true,
  sizeBytes: true, cookieCount: true, originCount: true, keyCount: true, createdAt: true, updatedAt: true,
} as const satisfies Record<keyof ProfileRecord, true>;

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
 * (`workspace`, a slug of a workspace they belong to; GraphQL only).
 */
function workspaceOf(ctx: ServiceContext, workspace?: string): Promise<string> {
  return actingWorkspace(ctx, workspace, "use its profiles");
}

async function findInWorkspace(ctx: ServiceContext, workspaceId: string, id: string): Promise<ProfileRecord> {
  if (ctx.audit) ctx.audit.target = id;
  const profile = await prismaOf(ctx).profile.findFirst({ where: { id, workspaceId }, select: publicColumns });
  // Another workspace's profile is indistinguishable from a missing one.
  if (!profile) throw new AppError("not-found", "No profile with this id in this workspace.");
  return profile;
}

/** Serialises and encrypts a document for row `id`, refusing it (413) when it is over the configured size. */
function sealDocument(deps: AppDeps, row: { id: string; workspaceId: string }, doc: ProfileDocument): { sealed: SealedProfile; stats: DocumentStats } {
  const { json, stats } = serializeDocument(doc);
  try {
    const max = deps.config.profiles.maxBytes;
    if (stats.sizeBytes > max) {
      throw new AppError(
        "profile-too-large",
        `The profile would be ${stats.sizeBytes} bytes; this deployment stores profiles of at most ${max} bytes.`,
        { size_bytes: stats.sizeBytes, max_bytes: max },
      );
    }
    // Never store what restore would refuse to read: a capture that breaks the schema is a fault of ours.
    const check = ProfileDocumentV1.safeParse(doc);
    if (!check.success) throw new Error(`profile document breaks its schema at ${check.error.issues[0]?.path.join(".") ?? "?"}`);
    return { sealed: sealProfile(deps.masterKey, row, CURRENT_FORMAT_VERSION, json), stats };
  } finally {
    json.fill(0);
  }
}

/**
 * The profile a session started from, as the base of a capture (its origins and sessionStorage;
 * see captureProfile), or undefined when it has none, or it was deleted or cannot be read.
 */
async function baseOf(deps: AppDeps, source: ServiceContext | undefined, workspaceId: string, profileId: string | null): Promise<ProfileDocument | undefined> {
  if (!profileId) return undefined;
  try {
    return await readDocument(deps, source, workspaceId, profileId);
  } catch {
    return undefined;
  }
}

/** What a session's browser holds now. The session must be the workspace's and running on this node. */
async function captureFromSession(ctx: ServiceContext, workspaceId: string, sessionId: string): Promise<ProfileDocument> {
  const session = await prismaOf(ctx).session.findFirst({ where: { id: sessionId, workspaceId }, select: { status: true, profileId: true } });
  if (!session) throw new AppError("not-found", "No session with this session_id in this workspace.");
  if (session.status !== "RUNNING") {
    throw new AppError("conflict", `The session is not running (${session.status}): save while it runs, or start it with save_profile_on_release.`);
  }
  return (await captureSession(ctx.deps, ctx, sessionId, workspaceId, session.profileId)).document;
}

/** What a session's browser holds now: read here when it runs here, else by the node that runs it. */
async function captureSession(deps: AppDeps, source: ServiceContext | undefined, sessionId: string, workspaceId: string, baseProfileId: string | null) {
  if (!deps.runtime.endpoint(sessionId) && deps.cluster) return deps.cluster.captureElsewhere(sessionId, workspaceId, baseProfileId);
  return captureSessionHere(deps, source, sessionId, workspaceId, baseProfileId);
}

/** Reads a session whose browser runs on this node (409 when it does not, or cannot be read). */
export async function captureSessionHere(deps: AppDeps, source: ServiceContext | undefined, sessionId: string, workspaceId: string, baseProfileId: string | null) {
  const lease = deps.runtime.endpoint(sessionId);
  if (!lease) throw new AppError("conflict", "The session's browser is not running (it may be ending).");
  const base = await baseOf(deps, source, workspaceId, baseProfileId);
  const log = source?.log ?? deps.log;
  try {
    const { document, skipped } = await captureProfile(lease.cdp, base);
    if (skipped.cookies > 0 || skipped.items > 0 || skipped.origins > 0) log.info({ sessionId, skipped }, "profile capture left out what no browser could restore");
    return { document };
  } catch (err) {
    log.warn({ sessionId, err: (err as Error).message }, "profile capture failed");
    throw new AppError("conflict", "The session's browser could not be read; it may have just ended.");
  }
}

/**
 * Saves a profile: captured from a running session of the key's workspace, or imported from a
 * Playwright storageState. Stored encrypted; 413 over the configured size.
 */
export async function createProfile(ctx: ServiceContext, input: CreateProfileInput, workspace?: string): Promise<ProfileRecord> {
  const workspaceId = await workspaceOf(ctx, workspace);
  const doc = input.session_id !== undefined ? await captureFromSession(ctx, workspaceId, input.session_id) : fromStorageState(input.storage_state!);
  const id = `prof_${ulid()}`;
  const { sealed, stats } = sealDocument(ctx.deps, { id, workspaceId }, doc);
  const now = ctx.deps.now();
  const profile = await auditedTransaction(ctx, async (tx, audit) => {
    const row = await tx.profile.create({
      data: { id, workspaceId, label: input.label, sourceSessionId: input.session_id ?? null, ...sealed, ...stats, createdAt: now, updatedAt: now },
      select: publicColumns,
    });
    await audit(id);
    return row;
  });
  ctx.log.info({ profileId: id, from: input.session_id ? "session" : "storage_state", ...stats }, "profile created");
  return profile;
}

/** Replaces a profile's state with a running session's, keeping its id (and label). */
export async function saveProfile(ctx: ServiceContext, id: string, input: z.output<typeof SaveProfileInput>, workspace?: string): Promise<ProfileRecord> {
  const workspaceId = await workspaceOf(ctx, workspace);
  await findInWorkspace(ctx, workspaceId, id);
  const doc = await captureFromSession(ctx, workspaceId, input.session_id);
  const { sealed, stats } = sealDocument(ctx.deps, { id, workspaceId }, doc);
  const profile = await auditedTransaction(ctx, async (tx, audit) => {
    const { count } = await tx.profile.updateMany({
      where: { id, workspaceId },
      data: { ...sealed, ...stats, sourceSessionId: input.session_id, updatedAt: ctx.deps.now() },
    });
    if (count === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
    return tx.profile.findFirstOrThrow({ where: { id }, select: publicColumns });
  });
  ctx.log.info({ profileId: id, sessionId: input.session_id, ...stats }, "profile saved");
  return profile;
}

export async function getProfile(ctx: ServiceContext, id: string, workspace?: string): Promise<ProfileRecord> {
  return findInWorkspace(ctx, await workspaceOf(ctx, workspace), id);
}

/** The workspace's profiles in ULID (creation) order. */
export async function listProfiles(ctx: ServiceContext, q: z.output<typeof ProfileListQuery>, workspace?: string): Promise<Page<ProfileRecord>> {
  const workspaceId = await workspaceOf(ctx, workspace);
  return paginate(q, "asc", (window) =>
    prismaOf(ctx).profile.findMany({
      where: { workspaceId, ...(window.idAfter ? { id: window.idAfter } : {}) },
      orderBy: window.orderBy,
      take: window.take,
      select: publicColumns,
    }),
  );
}

export async function updateProfile(ctx: ServiceContext, id: string, input: z.output<typeof UpdateProfileInput>, workspace?: string): Promise<ProfileRecord> {
  const workspaceId = await workspaceOf(ctx, workspace);
  if (ctx.audit) ctx.audit.target = id;
  return auditedTransaction(ctx, async (tx, audit) => {
    const { count } = await tx.profile.updateMany({ where: { id, workspaceId }, data: { label: input.label, updatedAt: ctx.deps.now() } });
    if (count === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
    return tx.profile.findFirstOrThrow({ where: { id }, select: publicColumns });
  });
}

/** Deletes the row, and with it the only copy of its data key: the payload is unreadable from then on. */
export async function deleteProfile(ctx: ServiceContext, id: string, workspace?: string): Promise<void> {
  const workspaceId = await workspaceOf(ctx, workspace);
  if (ctx.audit) ctx.audit.target = id;
  await auditedTransaction(ctx, async (tx, audit) => {
    const { count } = await tx.profile.deleteMany({ where: { id, workspaceId } });
    if (count === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
  });
  ctx.log.info({ profileId: id }, "profile deleted");
}

/** The stored document of a profile of the workspace; 422 profile-unreadable when it cannot be decrypted or parsed. */
async function readDocument(deps: AppDeps, source: ServiceContext | undefined, workspaceId: string, id: string): Promise<ProfileDocument> {
  const row = await deps.db.prisma.profile.findFirst({ where: { id, workspaceId } });
  if (!row) throw new AppError("not-found", "No profile with this id in this workspace.");
  let plaintext: Buffer | undefined;
  try {
    plaintext = openProfile(deps.masterKey, row);
    return parseProfileDocument(JSON.parse(plaintext.toString("utf8")));
  } catch (err) {
    if (err instanceof ProfileDecryptError && err.reason === "other-master-key") {
      throw new AppError("profile-unreadable", "The profile is encrypted under a master key this deployment does not have.");
    }
    if (err instanceof ProfileDecryptError || err instanceof ProfileFormatError || err instanceof SyntaxError) {
      // The reason (never the content) goes to the log for operators.
      (source?.log ?? deps.log).warn({ profileId: id, reason: err instanceof ProfileFormatError ? err.message : err.name }, "profile unreadable");
      throw new AppError("profile-unreadable", "The profile could not be decrypted or is not a valid profile document.");
    }
    throw err;
  } finally {
    plaintext?.fill(0);
  }
}

/**
 * The profile as a Playwright storageState (with per-origin sessionStorage): the secrets in the
 * clear, so the audit entry is written (in its own transaction) before anything is decrypted.
 */
export async function exportProfileStorageState(ctx: ServiceContext, id: string, workspace?: string): Promise<StorageStateExport> {
  const workspaceId = await workspaceOf(ctx, workspace);
  await auditedTransaction(ctx, async (tx, audit) => {
    const found = await tx.profile.count({ where: { id, workspaceId } });
    if (found === 0) throw new AppError("not-found", "No profile with this id in this workspace.");
    await audit(id);
  });
  const doc = await readDocument(ctx.deps, ctx, workspaceId, id);
  return toStorageState(doc);
}

/**
 * Restores a profile of the workspace into a session's fresh browser (createSession, right after the
 * browser is acquired). A profile that cannot be read is 422; the caller releases the browser.
 */
export async function restoreProfileIntoSession(ctx: ServiceContext, workspaceId: string, profileId: string, lease: { sessionId: string; cdp: CdpPipe }): Promise<void> {
  const doc = await readDocument(ctx.deps, ctx, workspaceId, profileId);
  try {
    const report = await restoreProfile(lease.cdp, doc, ctx.log);
    ctx.log.info({ sessionId: lease.sessionId, profileId, ...report, ms: Math.round(report.ms) }, "profile restored");
  } catch (err) {
    ctx.log.error({ sessionId: lease.sessionId, profileId, err: (err as Error).message }, "profile restore failed");
    throw new AppError("service-unavailable", "The profile could not be applied to the session's browser. Retry shortly.", {}, { "Retry-After": "1" });
  }
}

/**
 * A session created with save_profile_on_release is ending by release (endSession, before its
 * browser closes): its state replaces the profile it started from. Never throws (the release goes
 * on whatever happens here); the outcome is in the audit log (`profile.save`, with its status) and
 * the server log.
 */
export async function saveProfileOnRelease(
  deps: AppDeps,
  sessionId: string,
  ctx?: ServiceContext,
  known?: Pick<Session, "saveProfileOnRelease">,
): Promise<void> {
  // The flag never changes after the start: a caller that has just read the row spares the release a
  // read for the sessions (most) that save nothing. Those that do are re-read for the rest.
  if (known && !known.saveProfileOnRelease) return;
  const session = await deps.db.prisma.session
    .findUnique({ where: { id: sessionId }, select: { workspaceId: true, status: true, saveProfileOnRelease: true, profileId: true } })
    .catch(() => null);
  if (!session?.saveProfileOnRelease || !session.profileId || session.status !== "RUNNING") return;
  const { workspaceId, profileId } = session;
  const audit = (status: number) =>
    ctx?.principal ? auditRecord(ctx, { action: auditAction("saveProfile"), target: profileId, successStatus: 200, written: false }, status) : undefined;
  const log = (ctx?.log ?? deps.log).child({ sessionId, profileId });
  try {
    const { document } = await captureSession(deps, ctx, sessionId, workspaceId, profileId);
    const { sealed, stats } = sealDocument(deps, { id: profileId, workspaceId }, document);
    const saved = await deps.db.prisma.$transaction(async (tx) => {
      const { count } = await tx.profile.updateMany({
        where: { id: profileId, workspaceId },
        data: { ...sealed, ...stats, sourceSessionId: sessionId, updatedAt: deps.now() },
      });
      const entry = audit(count > 0 ? 200 : 404);
      if (entry) await writeAuditInTx(tx, entry);
      return count > 0;
    });
    if (saved) log.info({ ...stats }, "profile saved on release");
    else log.warn("profile saved on release: the profile was deleted meanwhile");
  } catch (err) {
    const status = err instanceof AppError ? err.status : 500;
    log.error({ err: err instanceof AppError ? err.detail : (err as Error).message }, "profile could not be saved on release");
    const entry = audit(status);
    if (entry) deps.audit.enqueue(entry);
  }
}
