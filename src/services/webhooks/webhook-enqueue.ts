import { ulid } from "../../ids.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { queryStatement } from "../../kernel/support.ts";
import { isRefusedContent, noteSetAside, refusalOf, type SetAsideCounter } from "../../kernel/set-aside.ts";
import { sampleOf } from "../../kernel/stored-text.ts";
import type { SessionEventView } from "../session-events/session-events.ts";
import { queuePositions } from "../sessions/queue/queue-sql.ts";
import type { EndpointPresence } from "./endpoint-presence.ts";
import { webhookEventTypes } from "./webhook-input.ts";
import { carriesSession, deliveryBody, eventPayload, sessionPayload } from "./webhook-payload.ts";

/**
 * From session events to deliveries: called with every batch of events once written (the event
 * recorder's subscriber, on the node that wrote them), it makes one delivery row per subscribed,
 * enabled endpoint of the session's workspace. A row per (endpoint, event) at most (a unique key),
 * so a batch seen twice makes no second delivery. Events no endpoint can want cost nothing, nor do
 * any while the deployment has no enabled endpoint (EndpointPresence); otherwise a session's
 * webhook events cost one read when its workspace has no endpoint for them.
 */

export const wanted: ReadonlySet<string> = new Set(webhookEventTypes);

interface EndpointRow {
  id: string;
  events: string[];
}

/** What queuing deliveries needs; `setAside` counts deliveries the database refused (`writer="webhooks"`). */
export type EnqueueDeps = Pick<AppDeps, "db" | "log"> & { setAside?: SetAsideCounter | undefined };

/** Answers how many deliveries it made. Never throws (a failure is logged: events are never held up by webhooks). */
export async function enqueueForEvents(deps: EnqueueDeps, events: readonly SessionEventView[], presence?: EndpointPresence): Promise<number> {
  const relevant = events.filter((e) => wanted.has(e.type));
  if (relevant.length === 0) return 0;
  try {
    if (presence && !(await presence.any())) return 0;
  } catch (err) {
    deps.log.error({ err }, "could not tell whether any webhook endpoint exists");
  }
  let made = 0;
  for (const sessionId of new Set(relevant.map((e) => e.sessionId))) {
    try {
      made += await enqueueSession(
        deps,
        sessionId,
        relevant.filter((e) => e.sessionId === sessionId),
      );
    } catch (err) {
      deps.log.error({ err, sessionId, types: relevant.map((e) => e.type) }, "could not queue webhook deliveries");
    }
  }
  return made;
}

async function enqueueSession(deps: EnqueueDeps, sessionId: string, events: SessionEventView[]): Promise<number> {
  const types = [...new Set(events.map((e) => e.type))];
  const endpoints = await queryStatement<EndpointRow>(
    deps.db,
    Prisma.sql`SELECT e."id", e."events" FROM "webhook_endpoints" e JOIN "sessions" s ON s."workspace_id" = e."workspace_id"
      WHERE s."id" = ${sessionId} AND e."enabled" AND e."events" && ${types}::text[]`,
  );
  if (endpoints.length === 0) return 0;
  return makeDeliveries(deps, sessionId, events, (event) => endpoints.filter((endpoint) => endpoint.events.includes(event.type)).map((e) => e.id));
}

/**
 * One delivery row per event and endpoint (`endpointsOf`), its body built now from the event (or the
 * session's row as it is now); a pair that has its row already is skipped. Answers how many were made.
 */
export async function makeDeliveries(
  deps: EnqueueDeps,
  sessionId: string,
  events: readonly SessionEventView[],
  endpointsOf: (event: SessionEventView) => readonly string[],
): Promise<number> {
  const session = events.some((e) => carriesSession(e.type)) ? await deps.db.prisma.session.findUnique({ where: { id: sessionId } }) : null;
  // A waiting session's place, as GET shows it (session.queued, or any event while it waits).
  const position = session?.status === "QUEUED" ? ((await queuePositions(deps.db, [sessionId])).get(sessionId) ?? null) : null;
  const rows: Prisma.WebhookDeliveryCreateManyInput[] = [];
  for (const event of events) {
    const data = carriesSession(event.type) ? (session ? sessionPayload(session, position) : null) : eventPayload(event);
    if (!data) continue;
    const payload = deliveryBody(event.type, event.createdAt, data);
    for (const endpointId of endpointsOf(event)) {
      rows.push({
        id: `msg_${ulid()}`,
        endpointId,
        eventType: event.type,
        eventId: event.id,
        payload,
        nextAttemptAt: event.createdAt,
        createdAt: event.createdAt,
      });
    }
  }
  if (rows.length === 0) return 0;
  const insert = async (data: Prisma.WebhookDeliveryCreateManyInput[]) =>
    (await deps.db.prisma.webhookDelivery.createMany({ data, skipDuplicates: true })).count;
  try {
    return await insert(rows);
  } catch (err) {
    if (!isRefusedContent(err)) throw err;
  }
  // Refused for a row's content (an endpoint deleted meanwhile, a value the database cannot store):
  // each row alone, so one bad delivery costs only itself; an error of another kind goes up.
  let made = 0;
  for (const row of rows) {
    try {
      made += await insert([row]);
    } catch (err) {
      if (!isRefusedContent(err)) throw err;
      noteSetAside(
        { log: deps.log, counter: deps.setAside },
        "webhooks",
        "error",
        { deliveryId: row.id, endpointId: row.endpointId, eventId: row.eventId ?? null, eventType: sampleOf(row.eventType), refused: refusalOf(err) },
        "webhook delivery refused by the database: set aside, not queued",
      );
    }
  }
  return made;
}
