import type { AuditRecord } from "./audit-row.ts";
import { isReadAction } from "./audit.ts";

/**
 * A person's reads are grouped: each (user, workspace, action, target) is written once per window.
 * Every dashboard page view reads several things (a session's page: the session, its events, logs,
 * files, downloads), and each was an entry of its own (`webhook.list` 8 of a workspace's last 50),
 * burying the changes the audit log exists for. API keys' reads stay one entry each (a key's reads
 * are what a leaked key's investigation needs, and programs do not browse); a person's denied reads
 * (4xx, 5xx) and every change are always written. decisions/0320.
 */
export const READ_GROUP_MS = 10 * 60_000;
/** Groups held at once per node; past it the oldest are let go (their next read is written again). */
const MAX_GROUPS = 20_000;

export class ReadGrouping {
  readonly #lastWritten = new Map<string, number>();

  /** Whether this entry is written: false for a person's successful read already written in the window. */
  admit(record: AuditRecord): boolean {
    if (!record.actorUserId || record.httpStatus >= 400 || !isReadAction(record.action)) return true;
    const key = `${record.actorUserId}\n${record.workspaceId ?? ""}\n${record.action}\n${record.target ?? ""}`;
    const now = (record.at ?? new Date()).getTime();
    const last = this.#lastWritten.get(key);
    if (last !== undefined && now - last < READ_GROUP_MS && now >= last) return false;
    this.#lastWritten.delete(key);
    this.#lastWritten.set(key, now);
    if (this.#lastWritten.size > MAX_GROUPS) this.#lastWritten.delete(this.#lastWritten.keys().next().value!);
    return true;
  }
}

/** One grouping per audit writer (one per running app), without a field in the app's dependencies. */
const groupings = new WeakMap<object, ReadGrouping>();

export function readGroupingOf(writer: object): ReadGrouping {
  let grouping = groupings.get(writer);
  if (!grouping) groupings.set(writer, (grouping = new ReadGrouping()));
  return grouping;
}
