import { encodeTime } from "ulid";
import type { Session } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { prismaOf } from "../../kernel/support.ts";
import { activePage, type OpenPage } from "../../browser/cdp/pipe/page-info.ts";

/**
 * What a list of sessions needs beyond their rows, from data that exists already: who started each
 * (the API key on the row; for a dashboard user, the session.create entry of the audit log), the
 * label of the profile it started from, and, while it runs on this node, the page it shows.
 */

export type SessionCreator = { kind: "api_key"; keyPrefix: string; keyLabel: string } | { kind: "user"; email: string };

/** Who created each of `sessions` (all of one workspace), by session id; absent when it is not known (a deleted key). */
export async function creatorsOf(ctx: ServiceContext, sessions: Session[]): Promise<Map<string, SessionCreator>> {
  const db = prismaOf(ctx);
  const out = new Map<string, SessionCreator>();
  if (sessions.length === 0) return out;
  const workspaceId = sessions[0]!.workspaceId;
  const keyIds = [...new Set(sessions.flatMap((s) => (s.apiKeyId ? [s.apiKeyId] : [])))];
  const fromUsers = sessions.filter((s) => !s.apiKeyId);
  const byUser = fromUsers.map((s) => s.id);
  // Audit ids are ULIDs of the call's time: bounding them by the sessions' creation (a minute either
  // way) keeps the lookup to that stretch of the (workspace, action, id) index, however long the log.
  const times = fromUsers.map((s) => s.createdAt.getTime());
  const idRange = byUser.length
    ? { gte: encodeTime(Math.max(0, Math.min(...times) - 60_000), 10) + "0".repeat(16), lte: encodeTime(Math.max(...times) + 60_000, 10) + "Z".repeat(16) }
    : undefined;
  const [keys, entries] = await Promise.all([
    keyIds.length ? db.apiKey.findMany({ where: { id: { in: keyIds }, workspaceId }, select: { id: true, prefix: true, label: true } }) : [],
    byUser.length
      ? db.auditEntry.findMany({
          where: { workspaceId, action: "session.create", id: idRange, target: { in: byUser }, actorUserId: { not: null }, httpStatus: { lt: 300 } },
          select: { target: true, actorUser: { select: { email: true } } },
        })
      : [],
  ]);
  const keyById = new Map(keys.map((k) => [k.id, k]));
  for (const s of sessions) {
    const key = s.apiKeyId ? keyById.get(s.apiKeyId) : undefined;
    if (key) out.set(s.id, { kind: "api_key", keyPrefix: key.prefix, keyLabel: key.label });
  }
  for (const e of entries) if (e.target && e.actorUser) out.set(e.target, { kind: "user", email: e.actorUser.email });
  return out;
}

/** The labels of the profiles `sessions` started from, by profile id (a deleted profile has none). */
export async function profileLabelsOf(ctx: ServiceContext, sessions: Session[]): Promise<Map<string, string>> {
  const ids = [...new Set(sessions.flatMap((s) => (s.profileId ? [s.profileId] : [])))];
  if (ids.length === 0) return new Map();
  const rows = await prismaOf(ctx).profile.findMany({ where: { id: { in: ids }, workspaceId: sessions[0]!.workspaceId }, select: { id: true, label: true } });
  return new Map(rows.map((p) => [p.id, p.label]));
}

/** The active tab's title and address (browser/cdp/pipe/active-tab.ts) of a session running on this node; null elsewhere, after its end, or if the browser is slow to say. */
export async function currentPageOf(ctx: ServiceContext, session: Session): Promise<OpenPage | null> {
  const lease = ctx.deps.runtime.endpoint(session.id);
  if (!lease) return null;
  return activePage(lease.cdp).catch(() => null);
}
