import { ulid } from "../../ids.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { eventView } from "../session-events/session-events.ts";
import { makeDeliveries, wanted, type EnqueueDeps } from "./webhook-enqueue.ts";

/**
 * Deliveries are made right after their events are written (webhook-enqueue.ts), outside the
 * events' own statement so that webhooks never hold up a session. A node that stops in between (a
 * crash, a kill, a failed statement) would lose them; this job, run every minute on every node,
 * makes what is missing. It looks at the events of the last day that are at least half a minute
 * old (the usual way has long made theirs by then), for endpoints that are enabled now and were last
 * changed before the event (an endpoint subscribed later, or edited since, is not sent an event
 * from before). A delivery made twice is impossible: one row per (endpoint, event).
 *
 * On the embedded database the scan runs on the node's own thread, so it stays small: nothing is
 * read while no endpoint is enabled, and after its first run (a day, the events a stop may have left)
 * a node looks only at events since its last run's end, less a margin for the stragglers of a node
 * whose statement was slow.
 */

export const MISSED_DELIVERIES_EVERY_MS = 60_000;
/** Events this recent are left to the usual way. */
const SETTLE_MS = 30_000;
/** How far back events are looked at. */
const WINDOW_MS = 24 * 3600_000;
/** Events this much older than the last run's end are looked at again. */
const MARGIN_MS = 5 * 60_000;
/** Event and endpoint pairs made per run at most; the next run goes on. */
const PER_RUN = 500;

interface MissedRow {
  id: string;
  session_id: string;
  type: string;
  data: Prisma.JsonValue;
  created_at: Date;
  endpoint_id: string;
}

/** The job's run, with what it has looked at already. */
export class MissedDeliveries {
  /** The end of the last run's window that left nothing behind (a full run starts there again). */
  #coveredUntil: number | undefined;

  constructor(private readonly deps: Pick<AppDeps, "db" | "now" | "log"> & Pick<EnqueueDeps, "setAside">) {}

  /** Answers how many deliveries it made. */
  async run(): Promise<number> {
    const { deps } = this;
    const now = deps.now().getTime();
    const until = now - SETTLE_MS;
    if (!(await deps.db.prisma.webhookEndpoint.findFirst({ where: { enabled: true }, select: { id: true } }))) {
      this.#coveredUntil = until;
      return 0;
    }
    const from = Math.max(now - WINDOW_MS, (this.#coveredUntil ?? 0) - MARGIN_MS);
    // Event ids are `evt_<ULID>`, whose first ten characters are the time: the primary key bounds the scan.
    const idAt = (ms: number) => `evt_${ulid(ms).slice(0, 10)}`;
    const rows = await deps.db.prisma.$queryRaw<MissedRow[]>(Prisma.sql`
      SELECT ev."id", ev."session_id", ev."type", ev."data", ev."created_at", e."id" AS "endpoint_id"
      FROM "session_events" ev
      JOIN "sessions" s ON s."id" = ev."session_id"
      JOIN "webhook_endpoints" e ON e."workspace_id" = s."workspace_id" AND e."enabled" AND ev."type" = ANY(e."events") AND e."updated_at" <= ev."created_at"
      WHERE ev."id" >= ${idAt(from)} AND ev."id" < ${idAt(until)} AND ev."type" = ANY(${[...wanted]}::text[])
        AND NOT EXISTS (SELECT 1 FROM "webhook_deliveries" d WHERE d."endpoint_id" = e."id" AND d."event_id" = ev."id")
      ORDER BY ev."id", e."id"
      LIMIT ${PER_RUN}`);
    // A full page may have left some behind: the next run looks at this window again.
    if (rows.length < PER_RUN) this.#coveredUntil = until;
    const bySession = new Map<string, MissedRow[]>();
    for (const row of rows) {
      const list = bySession.get(row.session_id);
      if (list) list.push(row);
      else bySession.set(row.session_id, [row]);
    }
    let made = 0;
    for (const [sessionId, missed] of bySession) {
      const events = [...new Map(missed.map((r) => [r.id, eventView({ id: r.id, sessionId, type: r.type, data: r.data, createdAt: r.created_at })])).values()];
      made += await makeDeliveries(deps, sessionId, events, (event) => missed.filter((r) => r.id === event.id).map((r) => r.endpoint_id));
    }
    if (made > 0)
      deps.log.warn(
        { made },
        "webhook deliveries made late: their events were written but their deliveries were not (a node stopped in between, or a statement failed)",
      );
    return made;
  }
}
