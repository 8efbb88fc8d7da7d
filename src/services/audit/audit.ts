/**
 * The audit trail (spec §2.4, §5.4; design "Audit"): one entry per authenticated call, denied ones
 * included. Mutations write their entry inside their own transaction (writeAuditInTx, audit-row.ts),
 * so the change and its entry commit or roll back together; reads and denials go through the batched
 * AuditWriter (audit-writer.ts), which keeps request handling free of an extra insert per call.
 * Calls refused at authentication come through audit-refusals.ts, which bounds how many rows a flood
 * of them can write.
 *
 * This module reads the log; the writing parts are re-exported here for their callers.
 * No principals here: callers decide who may write or read; this module only stores and queries.
 */
import { encodeTime } from "ulid";
import { z } from "zod";
import { validationError } from "../../errors.ts";
import type { AuditEntry, Prisma } from "../../generated/prisma/client.ts";
import { PageQuery, isPlausibleId, pageWindow, pageOf, parseQuery } from "../../kernel/pagination.ts";
import type { Page } from "../../kernel/pagination.ts";
import type { AuditDb } from "./audit-row.ts";

export { auditInsertSql, writeAuditInTx, type AuditDb, type AuditRecord } from "./audit-row.ts";
export { AuditWriter, type AuditWriterOptions } from "./audit-writer.ts";

// ── Reading ────────────────────────────────────────────────────────────────────────────────────

const KEY_PREFIX = /^vs_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** `?limit&cursor&key_prefix&action&actor_user_id&since&until`. */
export const AuditQuery = PageQuery.extend({
  key_prefix: z
    .string({ error: "must be a string" })
    .regex(KEY_PREFIX, "must be an API key prefix: vs_ followed by the key's 26-character id (only the part left of the dot, never the secret)")
    .optional()
    .describe("Only calls made with this API key: its prefix `vs_<id>`."),
  action: z
    .string({ error: "must be a string" })
    .min(1, "cannot be empty")
    .max(100, "must be at most 100 characters")
    .optional()
    .describe("Only this action, for example `session.create`."),
  actor_user_id: z
    .string({ error: "must be a string" })
    .refine(isPlausibleId, "must be a user id")
    .optional()
    .describe("Only calls made by this dashboard user."),
  target: z
    .string({ error: "must be a string" })
    .min(1, "cannot be empty")
    .max(200, "must be at most 200 characters")
    .optional()
    .describe("Only calls on this resource, for example a session id or an API key id."),
  since: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time, for example 2026-01-31T12:00:00Z" })
    .optional()
    .describe("Only entries created at or after this time (inclusive)."),
  until: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time, for example 2026-01-31T12:00:00Z" })
    .optional()
    .describe("Only entries created before this time (exclusive)."),
  changes_only: z
    .enum(["true", "false"], { error: "must be true or false" })
    .optional()
    .describe("`true`: leave reads out (lists, gets, exports, event and log reads; see READ_ACTION_SUFFIXES), so the changes stand out."),
});

/**
 * Actions that only read: `<resource>.list`, `.get`, `.read`, … Browsing the dashboard makes many of
 * them, which bury the changes; `changes_only` leaves them out. Judged by suffix, so a read added
 * later under the same names is left out too; denied reads go with them (they changed nothing).
 */
export const READ_ACTION_SUFFIXES = [
  ".list",
  ".get",
  ".read",
  ".events",
  ".logs.read",
  ".downloads",
  ".download",
  ".files",
  ".watch",
  ".export",
  ".deliveries",
  ".snapshot",
  ".screenshot",
  ".list_tabs",
] as const;

export function isReadAction(action: string): boolean {
  return READ_ACTION_SUFFIXES.some((suffix) => action.endsWith(suffix));
}

export type AuditQueryParams = z.output<typeof AuditQuery>;

/** Parses a raw query string object; problems name `query.<field>`. */
export function parseAuditQuery(input: unknown): AuditQueryParams {
  return parseQuery(AuditQuery, input);
}

/**
 * One page of a workspace's audit log, newest first. Filters combine (all must hold). The query is
 * re-validated here, so a caller that built it by hand gets the same validation errors.
 */
export async function queryAuditEntries(db: AuditDb, workspaceId: string, q: AuditQueryParams): Promise<Page<AuditEntry>> {
  const query = parseAuditQuery(q);
  const since = query.since === undefined ? undefined : new Date(query.since);
  const until = query.until === undefined ? undefined : new Date(query.until);
  if (since && until && until.getTime() < since.getTime()) {
    throw validationError([{ field: "query.until", message: "must not be before since" }]);
  }
  const window = pageWindow(query, "desc");
  const id: Prisma.StringFilter = { ...window.idAfter };
  // An id's time is never earlier than its created_at, so entries since T have ids ≥ the first
  // ULID of T: this lets the (workspace_id, …, id) indexes stop at T instead of scanning on.
  if (since) id.gte = encodeTime(since.getTime()) + "0".repeat(16);

  const rows = await db.auditEntry.findMany({
    where: {
      workspaceId,
      ...(query.key_prefix === undefined ? {} : { keyPrefix: query.key_prefix }),
      ...(query.action === undefined ? {} : { action: query.action }),
      ...(query.actor_user_id === undefined ? {} : { actorUserId: query.actor_user_id }),
      ...(query.target === undefined ? {} : { target: query.target }),
      ...(query.changes_only === "true" ? { NOT: READ_ACTION_SUFFIXES.map((suffix) => ({ action: { endsWith: suffix } })) } : {}),
      ...(since || until ? { createdAt: { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } } : {}),
      ...(Object.keys(id).length > 0 ? { id } : {}),
    },
    orderBy: window.orderBy,
    take: window.take,
  });
  return pageOf(rows, query.limit);
}
