// A session's HAR (`GET /v1/sessions/{id}/har`, GraphQL's `sessionHar`), for whoever may read its logs.
import type { Session } from "../../generated/prisma/client.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { MAX_LOG_PAGE, type SessionLogEntryView } from "../session-logs/log-entries.ts";
import { logKeyOf, logReadableSession, readLogPage } from "../session-logs/log-reads.ts";
import { HarBuilder, type Har } from "./har.ts";

export interface SessionHarView {
  sessionId: string;
  /** Where the HAR is served (GET), on this deployment's public address. */
  url: string;
  har: Har;
}

export const harPath = (sessionId: string) => `/v1/sessions/${sessionId}/har`;
const live = new Set(["PENDING", "RUNNING", "REQUEST_RELEASE"]);

/**
 * A session's log entries of these types, a page at a time (the next page is read when asked
 * for): a session that ended is read once its last entries are written.
 */
export async function* logPages(ctx: ServiceContext, session: Session, types?: readonly string[]): AsyncGenerator<SessionLogEntryView[]> {
  if (!live.has(session.status)) await ctx.deps.sessionLogs.settled(session.id);
  const key = await logKeyOf(ctx, session.id);
  let after = 0;
  for (;;) {
    const page = await readLogPage(ctx, session.id, key, { after, types, limit: MAX_LOG_PAGE });
    if (page.items.length > 0) yield page.items;
    if (!page.hasMore || page.items.length === 0) return;
    after = page.items.at(-1)!.seq;
  }
}

/** The HAR of a session the caller may already read. */
export async function harOf(ctx: ServiceContext, session: Session): Promise<Har> {
  const builder = new HarBuilder();
  // logs.truncated comes with every filter: the HAR says when the log is cut short.
  for await (const items of logPages(ctx, session, ["navigation", "network"])) builder.add(items);
  return builder.finish();
}

/**
 * The session's network log as HAR 1.2: a page per document its tabs' main frames committed, an
 * entry per request (per hop of a redirect). 404 for a session the caller may not read. An audited
 * read (`session.har.read`), as reading its logs is.
 */
export async function getSessionHar(ctx: ServiceContext, sessionId: string): Promise<SessionHarView> {
  const session = await logReadableSession(ctx, sessionId);
  return { sessionId, url: `${ctx.deps.config.publicBaseUrl}${harPath(sessionId)}`, har: await harOf(ctx, session) };
}
