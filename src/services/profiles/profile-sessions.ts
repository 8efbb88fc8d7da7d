// Profiles and a session's browser: capturing what it holds, restoring a profile into a new session,
// and saving back on release. The documents themselves are sealed, stored and read in profile-documents.ts.
import { auditRecord } from "../audit/request-audit.ts";
import { captureProfile } from "../../browser/profiles/capture.ts";
import type { ProfileDocument } from "../../browser/profiles/format.ts";
import { restoreProfile } from "../../browser/profiles/restore.ts";
import { AppError } from "../../errors.ts";
import type { Session } from "../../generated/prisma/client.ts";
import { auditInsertSql } from "../audit/audit.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import type { CdpPipe } from "../../browser/cdp/pipe/pipe.ts";
import { readDocument, sealDocument, storeSealed } from "./profile-documents.ts";

/** The audit action of saving a profile (operations.saveProfile), also written for a save on release. */
export const SAVE_PROFILE_ACTION = "profile.save";

/**
 * The profile a session started from, as the base of a capture (its origins and sessionStorage;
 * see captureProfile), or undefined when it has none, or it was deleted or cannot be read.
 */
export async function baseOf(
  deps: AppDeps,
  source: ServiceContext | undefined,
  workspaceId: string,
  profileId: string | null,
): Promise<ProfileDocument | undefined> {
  if (!profileId) return undefined;
  try {
    return await readDocument(deps, source, workspaceId, profileId);
  } catch {
    return undefined;
  }
}

/** What a session's browser holds now. The session must be the workspace's and running on this node. */
export async function captureFromSession(ctx: ServiceContext, workspaceId: string, sessionId: string): Promise<ProfileDocument> {
  const session = await prismaOf(ctx).session.findFirst({ where: { id: sessionId, workspaceId }, select: { status: true, profileId: true } });
  if (!session) throw new AppError("not-found", "No session with this session_id in this workspace.");
  if (session.status !== "RUNNING") {
    throw new AppError("conflict", `The session is not running (${session.status}): save while it runs, or start it with save_profile_on_release.`);
  }
  return (await captureSession(ctx.deps, ctx, sessionId, workspaceId, session.profileId)).document;
}

/** What a session's browser holds now: read here when it runs here, else by the node that runs it. */
export async function captureSession(deps: AppDeps, source: ServiceContext | undefined, sessionId: string, workspaceId: string, baseProfileId: string | null) {
  if (!deps.runtime.endpoint(sessionId) && deps.cluster) return deps.cluster.captureElsewhere(sessionId, workspaceId, baseProfileId);
  return captureSessionHere(deps, source, sessionId, workspaceId, baseProfileId);
}

/** Reads a session whose browser runs on this node (409 when it does not, or cannot be read). */
export async function captureSessionHere(
  deps: AppDeps,
  source: ServiceContext | undefined,
  sessionId: string,
  workspaceId: string,
  baseProfileId: string | null,
) {
  const lease = deps.runtime.endpoint(sessionId);
  if (!lease) throw new AppError("conflict", "The session's browser is not running (it may be ending).");
  // Read beside the capture, which needs it only at its end.
  const base = baseOf(deps, source, workspaceId, baseProfileId);
  const log = source?.log ?? deps.log;
  try {
    const { document, skipped } = await captureProfile(lease.cdp, base);
    if (skipped.cookies > 0 || skipped.items > 0 || skipped.origins > 0)
      log.info({ sessionId, skipped }, "profile capture left out what no browser could restore");
    return { document };
  } catch (err) {
    log.warn({ sessionId, err: (err as Error).message }, "profile capture failed");
    throw new AppError("conflict", "The session's browser could not be read; it may have just ended.");
  }
}

/**
 * Restores a profile's document (read by the create before any browser is taken, so an unreadable
 * one is refused, 422, with nothing taken) into a session's fresh browser, right after the browser is
 * acquired. The create does not wait for it: the browser's pipe holds every channel until it is done
 * (browser/profiles/restore.ts). Should it fail (the browser died), the browser is closed, and the session,
 * answered already, ends as its browser's crash does.
 */
export function restoreProfileIntoSession(
  ctx: ServiceContext,
  profileId: string,
  doc: ProfileDocument,
  lease: { sessionId: string; cdp: CdpPipe; release(): Promise<void> },
): void {
  restoreProfile(lease.cdp, doc, ctx.log).then(
    (report) => ctx.log.info({ sessionId: lease.sessionId, profileId, ...report, ms: Math.round(report.ms) }, "profile restored"),
    (err: unknown) => {
      ctx.log.error({ sessionId: lease.sessionId, profileId, err: (err as Error).message }, "profile restore failed");
      void lease.release();
    },
  );
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
    ctx?.principal ? auditRecord(ctx, { action: SAVE_PROFILE_ACTION, target: profileId, successStatus: 200, written: false }, status) : undefined;
  const log = (ctx?.log ?? deps.log).child({ sessionId, profileId });
  try {
    const { document } = await captureSession(deps, ctx, sessionId, workspaceId, profileId);
    const { sealed, stats } = sealDocument(deps, { id: profileId, workspaceId }, document);
    const entry = audit(200);
    const saved = await storeSealed(
      deps.db,
      { id: profileId, workspaceId },
      sealed,
      stats,
      { sourceSessionId: sessionId, at: deps.now(), returning: Prisma.sql`id` },
      entry ? (when) => auditInsertSql(entry, when) : null,
    );
    if (saved.length > 0) log.info({ ...stats }, "profile saved on release");
    else {
      log.warn("profile saved on release: the profile was deleted meanwhile");
      const gone = audit(404);
      if (gone) deps.audit.enqueue(gone);
    }
  } catch (err) {
    const status = err instanceof AppError ? err.status : 500;
    log.error({ err: err instanceof AppError ? err.detail : (err as Error).message }, "profile could not be saved on release");
    const entry = audit(status);
    if (entry) deps.audit.enqueue(entry);
  }
}
