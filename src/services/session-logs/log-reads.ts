// Reading a session's logs: pages, and long polls while the session runs, for any reader the
// session allows (its workspace's keys and members; anyone else gets 404, as for the session).
import { z } from "zod";
import { knownNameList } from "../../comma-list.ts";
import type { Session } from "../../generated/prisma/client.ts";
import { actingWorkspace } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import { prismaOf } from "../../kernel/support.ts";
import { openEntry, unwrapLogKey } from "../../crypto/session-log-crypto.ts";
import { sessionAccess, sessionEnded } from "../session-events/event-feed.ts";
import { channelOf, finalTypes } from "../session-events/session-events.ts";
import {
  DEFAULT_LOG_PAGE,
  MAX_LOG_PAGE,
  MAX_LOG_WAIT_SECONDS,
  TRUNCATED,
  logCursor,
  logsChannel,
  readLogCursor,
  readLogSignal,
  sessionLogTypes,
  type SessionLogEntryView,
  type SessionLogPage,
  type SessionLogType,
} from "./log-entries.ts";

const BAD_CURSOR = "is not a valid cursor: pass the next_cursor of the previous answer unchanged";

export const logTypeList = knownNameList(sessionLogTypes, "log type", 200);

/** What a read that names no type gets: the CDP methods a client sent are most of a driven session's entries, and rarely what one looks for. */
export const defaultLogTypes: SessionLogType[] = sessionLogTypes.filter((t) => t !== "cdp");

export const SessionLogQuery = z.object({
  type: logTypeList
    .optional()
    .describe(
      `Only these types, comma-separated (${sessionLogTypes.join(", ")}); \`${TRUNCATED}\` always comes too. Default: every type but \`cdp\` (name it to read the CDP methods).`,
    ),
  after: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional()
    .describe("Only entries after this `seq`."),
  cursor: z
    .string()
    .max(128)
    .refine((c) => readLogCursor(c) !== undefined, BAD_CURSOR)
    .optional()
    .describe("Opaque: the `next_cursor` of the previous answer (it wins over `after`). Omit both to read from the start."),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LOG_PAGE)
    .default(DEFAULT_LOG_PAGE)
    .describe(`At most this many entries (1–${MAX_LOG_PAGE}, default ${DEFAULT_LOG_PAGE}).`),
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_LOG_WAIT_SECONDS)
    .default(0)
    .describe(
      `Long poll: when no entry matches yet, hold the answer up to this many seconds (0–${MAX_LOG_WAIT_SECONDS}) until one does or the session's log ends.`,
    ),
});
export type SessionLogQuery = z.output<typeof SessionLogQuery>;

const live = ["PENDING", "RUNNING", "REQUEST_RELEASE"];

/** After a session ends on another node, its last entries are waited for at most this long. */
const LAST_WRITE_GRACE_MS = 4_000;

/** The session whose logs the caller may read; `ctx.workspace` (GraphQL, a user's slug) must be its workspace. */
export async function logReadableSession(ctx: ServiceContext, id: string): Promise<Session> {
  const { session } = await sessionAccess(ctx, id);
  if (ctx.workspace !== undefined && (await actingWorkspace(ctx, "read its sessions' logs")) !== session.workspaceId) {
    throw new AppError("not-found", "No session with this id in this workspace.");
  }
  return session;
}

/** Opens a session's entries; undefined when it has no log (never on, not written yet, or deleted). */
export async function logKeyOf(ctx: ServiceContext, sessionId: string): Promise<Buffer | undefined> {
  const row = await prismaOf(ctx).sessionLogKey.findUnique({ where: { sessionId }, select: { wrappedKey: true, masterKeyId: true } });
  if (!row) return undefined;
  try {
    return unwrapLogKey(ctx.deps.masterKey, sessionId, row.wrappedKey);
  } catch {
    ctx.log.error({ sessionId, masterKeyId: row.masterKeyId }, "a session's log key does not open with this node's master key");
    throw new AppError("internal-error", "The session's logs cannot be read on this server (its master key does not open them).");
  }
}

/** One page of entries after `after`; `key` undefined reads as empty. */
export async function readLogPage(
  ctx: ServiceContext,
  sessionId: string,
  key: Buffer | undefined,
  q: { after: number; types?: readonly string[] | undefined; limit: number },
): Promise<{ items: SessionLogEntryView[]; hasMore: boolean }> {
  if (!key) return { items: [], hasMore: false };
  const rows = await prismaOf(ctx).sessionLogEntry.findMany({
    where: { sessionId, seq: { gt: q.after }, ...(q.types ? { type: { in: [...q.types, TRUNCATED] } } : {}) },
    orderBy: { seq: "asc" },
    take: q.limit + 1,
  });
  const hasMore = rows.length > q.limit;
  const items = rows.slice(0, q.limit).map((r) => ({
    seq: r.seq,
    type: r.type,
    at: r.at,
    data: JSON.parse(openEntry(key, sessionId, r.seq, r.data)) as Record<string, unknown>,
  }));
  return { items, hasMore };
}

/**
 * A session's log entries in order. With `wait`, an empty answer is held while the session runs
 * until an entry is written (on whichever node runs it), the log ends, or the wait runs out;
 * `signal` ends it early (the client went away). The database is always re-read, so a lost pub/sub
 * message only costs the wait. A session that just ended is read once its last entries are written.
 */
export async function listSessionLogs(ctx: ServiceContext, sessionId: string, q: SessionLogQuery, signal?: AbortSignal): Promise<SessionLogPage> {
  const session = await logReadableSession(ctx, sessionId);
  const after = q.cursor !== undefined ? readLogCursor(q.cursor)! : (q.after ?? 0);
  const started = q.cursor !== undefined || q.after !== undefined;
  const page = (read: { items: SessionLogEntryView[]; hasMore: boolean }): SessionLogPage => {
    const last = read.items.at(-1)?.seq ?? (started ? after : undefined);
    return { ...read, nextCursor: last === undefined ? null : logCursor(last) };
  };
  const read = async () => page(await readLogPage(ctx, sessionId, await logKeyOf(ctx, sessionId), { after, types: q.type ?? defaultLogTypes, limit: q.limit }));
  let ended = !live.includes(session.status);
  if (ended) await ctx.deps.sessionLogs.settled(sessionId);
  if (q.wait === 0 || ended || !session.logs) return read();

  let wake: () => void = () => {};
  let woken = false;
  let finished = false;
  let sessionOver = false;
  const poke = () => {
    woken = true;
    wake();
  };
  // Subscribed before the first read, so an entry written in between is not missed.
  const stopLogs = ctx.deps.pubsub.subscribe(logsChannel(sessionId), (message) => {
    if (readLogSignal(message).finished) finished = true;
    poke();
  });
  const stopEvents = ctx.deps.pubsub.subscribe(channelOf(sessionId), (message) => {
    if (finalTypes.has((JSON.parse(message) as { type?: string }).type ?? "")) {
      sessionOver = true;
      poke();
    }
  });
  try {
    let deadline = Date.now() + q.wait * 1000;
    for (;;) {
      const answer = await read();
      if (answer.items.length > 0 || ended || Date.now() >= deadline || signal?.aborted) return answer;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
        if (woken) done();
      });
      woken = false;
      if (finished) ended = true;
      else if (sessionOver && (await sessionEnded(ctx, sessionId))) {
        // This node wrote it: its last entries are in once settled. Another node's say so ("finished").
        if (ctx.deps.sessionLogs.captures(sessionId)) {
          await ctx.deps.sessionLogs.settled(sessionId);
          ended = true;
        } else {
          deadline = Math.min(deadline, Date.now() + LAST_WRITE_GRACE_MS);
        }
        sessionOver = false;
      }
    }
  } finally {
    stopLogs();
    stopEvents();
  }
}
