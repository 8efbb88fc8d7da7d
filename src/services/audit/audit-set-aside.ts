/**
 * Audit entries the database refuses, or would (kernel/set-aside.ts). Text the database cannot store
 * (kernel/stored-text.ts: NUL, lone surrogates)
 * Such text reaches an entry from the call itself (a path parameter becomes the target: `GET
 * /v1/sessions/x%00/logs`), and the edge leaves recorded values as they came. An entry that holds
 * one would be refused (SQLSTATE 22021), and with it every entry of its batch: so it is screened
 * here, before it is journalled or queued, and stored escaped (`x\u0000`), so the trail still shows
 * the call; the writer counts and logs it as set aside. An entry the database refuses all the same
 * (a value out of range, a workspace deleted meanwhile) is set aside by {@link writeEntryByEntry}.
 */
import type { Logger } from "../../logger.ts";
import { isRefusedContent, noteSetAside, refusalOf, type SetAsideCounter } from "../../kernel/set-aside.ts";
import { escapeUnstorable, hasUnstorableText, sampleOf } from "../../kernel/stored-text.ts";
import { prismaErrorCode } from "../../kernel/support.ts";
import type { AuditDb, AuditRecord, AuditRow } from "./audit-row.ts";

const textFields = ["id", "workspaceId", "keyPrefix", "actorUserId", "action", "target", "requestId", "clientRequestId", "ip"] as const;

/**
 * Escapes, in place, every text field of `row` the database could not store; answers their names
 * (none for an ordinary entry). In place: a row recovered from the journal is known to it by identity.
 */
export function screenRow(row: AuditRow | AuditRecord): string[] {
  const escaped: string[] = [];
  const fields = row as Partial<Record<(typeof textFields)[number], unknown>>;
  for (const field of textFields) {
    const value = fields[field];
    if (typeof value === "string" && hasUnstorableText(value)) {
      fields[field] = escapeUnstorable(value);
      escaped.push(field);
    }
  }
  return escaped;
}

/**
 * A copy of `row` with its text escaped, to try once more after the database refused the row itself;
 * null when escaping changes nothing (the same refusal would follow).
 */
export function escapeRow(row: AuditRow): AuditRow | null {
  const copy = { ...row };
  const changed = screenRow(copy).length > 0;
  return changed ? copy : null;
}

/** What a log line says of a set-aside entry: enough to find it and its call, never a whole untrusted value. */
export function setAsideFields(row: AuditRow | AuditRecord): { auditEntry: Record<string, unknown>; requestId: string | null } {
  const short = (v: unknown) => (typeof v === "string" ? sampleOf(v) : (v ?? null));
  return {
    requestId: typeof row.requestId === "string" ? sampleOf(row.requestId) : null,
    auditEntry: {
      ...("id" in row ? { id: short(row.id) } : {}),
      workspaceId: short(row.workspaceId),
      keyPrefix: short(row.keyPrefix),
      action: short(row.action),
      target: short(row.target),
      httpStatus: row.httpStatus,
    },
  };
}

export interface EntryByEntry {
  db: AuditDb;
  log: Logger;
  counter?: SetAsideCounter | undefined;
  /** Every error met (the writer reports the last one). */
  failed(err: unknown): void;
  /** An entry given up on. */
  dropped(): void;
}

/**
 * Writes a batch the database rejected, each entry alone, so one bad entry cannot block the rest.
 * An entry refused for its content is set aside: kept without its actor if that user is gone (as
 * the foreign key's SET NULL would), else stored once more with its text escaped, else dropped; one
 * log line each. At the first error that is not about an entry (an outage) it stops: answers the
 * entries from there on, to stay queued.
 */
export async function writeEntryByEntry(batch: AuditRow[], to: EntryByEntry): Promise<AuditRow[]> {
  const insert = async (row: AuditRow): Promise<unknown> => {
    try {
      // Through Prisma, whose codes tell a bad value from an outage as well as the SQLSTATE does.
      await to.db.auditEntry.createMany({ data: [row], skipDuplicates: true });
      return undefined;
    } catch (err) {
      to.failed(err);
      return err ?? new Error("audit insert failed");
    }
  };
  for (const [i, row] of batch.entries()) {
    let err = await insert(row);
    if (err === undefined) continue;
    if (!isRefusedContent(err)) return batch.slice(i);
    if (prismaErrorCode(err) === "P2003" && row.actorUserId != null) {
      const retry = await insert({ ...row, actorUserId: null });
      if (retry === undefined) {
        to.log.warn({ auditEntryId: row.id, actorUserId: row.actorUserId }, "audit entry stored without its actor, who no longer exists");
        continue;
      }
      if (!isRefusedContent(retry)) return batch.slice(i);
      err = retry;
    }
    const copy = escapeRow(row);
    const copyErr = copy ? await insert(copy) : err;
    if (copyErr !== undefined && !isRefusedContent(copyErr)) return batch.slice(i);
    const stored = copyErr === undefined;
    if (!stored) to.dropped();
    noteSetAside(
      to,
      "audit",
      stored ? "warn" : "error",
      { ...setAsideFields(row), refused: refusalOf(err) },
      stored ? "audit entry set aside: the database refused it; stored with its text escaped" : "audit entry rejected by the database: set aside, not stored",
    );
  }
  return [];
}
