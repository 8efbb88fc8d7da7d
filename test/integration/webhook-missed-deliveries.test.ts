import { afterAll, beforeAll, expect, it } from "vitest";
import { ulid } from "../../src/ids.ts";
import { eventView, newEvent, type SessionEventType } from "../../src/services/session-events/session-events.ts";
import { makeDeliveries } from "../../src/services/webhooks/webhook-enqueue.ts";
import { setAsideCount } from "../support/metrics.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

/**
 * Events whose deliveries were never made (their node stopped between writing them and queueing
 * their deliveries): the minute's job makes them, once, for the endpoints that wanted them then.
 */
describeEachBackend("webhook deliveries a stopped node did not make", (backend) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ws: Seeded;
  // Event ids are monotonic within the process and carry their time: the second backend's clock
  // starts after everything the first one's reached, as a real clock would.
  const start = new Date("2026-03-01T00:00:00Z").getTime() + (backend === "postgres" ? 30 * 24 * 3600_000 : 0);
  let clock = start;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    t = await startTestApp({ db: tdb.db, startBrowsers: false, now: () => new Date(clock) });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    await tdb?.dispose();
  });

  const endpoint = async (events: string[]) => {
    const res = await fetch(`${t.url}/v1/webhooks`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ url: "https://hooks.example.com/in", events }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  /** Events written as a node writes them, without what follows (the node stopped there). */
  const written = async (sessionId: string, types: SessionEventType[]) => {
    const events = types.map((type) => newEvent(sessionId, type, { reason: "client_release" }, new Date(clock)));
    await t.app.deps.db.prisma.sessionEvent.createMany({ data: events });
    return events.map((e) => e.id);
  };
  const run = () => t.app.jobs.runNow("make-missed-webhook-deliveries");
  const deliveries = () => t.app.deps.db.prisma.webhookDelivery.findMany({ orderBy: [{ eventId: "asc" }, { endpointId: "asc" }] });

  it("makes each missing one once, with the body the usual way builds, and none an endpoint did not want then", async () => {
    const wantsBoth = await endpoint(["session.released", "live_view.done"]);
    const sessionId = `ses_${ulid()}`;
    const at = new Date(clock);
    await t.app.deps.db.prisma.session.create({
      data: {
        id: sessionId,
        workspaceId: ws.workspace.id,
        status: "RELEASED",
        endReason: "CLIENT_RELEASE",
        region: "us-east1",
        timeoutSeconds: 600,
        idleTimeoutSeconds: 60,
        createdAt: at,
        startedAt: at,
        expiresAt: new Date(start + 600_000),
        endedAt: at,
      },
    });
    clock += 1_000;
    const [released, done] = await written(sessionId, ["session.released", "live_view.done", "session.running"]);
    clock += 1_000;
    await endpoint(["session.released"]); // subscribed after the event: not sent it

    clock += 10_000;
    await run();
    expect(await deliveries()).toEqual([]); // this recent, it is the usual way's to make

    clock += 60_000;
    await run();
    const made = await deliveries();
    expect(made.map((d) => [d.eventId, d.endpointId, d.eventType, d.status])).toEqual(
      [
        [released, wantsBoth, "session.released", "pending"],
        [done, wantsBoth, "live_view.done", "pending"],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    const body = (eventId: string) => JSON.parse(made.find((d) => d.eventId === eventId)!.payload) as { type: string; data: Record<string, unknown> };
    expect(body(released!)).toMatchObject({
      type: "session.released",
      timestamp: new Date(start + 1_000).toISOString(),
      data: { id: sessionId, status: "RELEASED", end_reason: "client_release", connect_url: null },
    });
    expect(body(done!)).toMatchObject({ type: "live_view.done", data: { id: done, session_id: sessionId, type: "live_view.done" } });

    await run();
    expect(await deliveries()).toHaveLength(2);
  });

  it("leaves events older than a day, and endpoints that are disabled", async () => {
    const sessionId = `ses_${ulid()}`;
    const at = new Date(clock);
    await t.app.deps.db.prisma.session.create({
      data: {
        id: sessionId,
        workspaceId: ws.workspace.id,
        status: "RUNNING",
        region: "us-east1",
        timeoutSeconds: 600,
        idleTimeoutSeconds: 60,
        createdAt: at,
        startedAt: at,
        expiresAt: new Date(at.getTime() + 600_000),
      },
    });
    clock += 1_000;
    const [old] = await written(sessionId, ["session.released"]);
    const eventAt = clock;
    clock = eventAt + 25 * 3600_000;
    await run();
    expect((await deliveries()).filter((d) => d.eventId === old)).toEqual([]);

    // The job still makes what a day has not passed for; the older one stays without.
    const [recent] = await written(sessionId, ["session.released"]);
    clock += 60_000;
    await run();
    // Both endpoints wanted session.released before this event: one delivery each.
    expect((await deliveries()).filter((d) => d.eventId === recent)).toHaveLength(2);
    expect((await deliveries()).filter((d) => d.eventId === old)).toEqual([]);

    // Disabled (its last change still before the event, as when the dispatcher turned it off): nothing.
    clock += 1_000;
    const [later] = await written(sessionId, ["session.released"]);
    await t.app.deps.db.prisma.webhookEndpoint.updateMany({ data: { enabled: false, updatedAt: new Date(start) } });
    clock += 60_000;
    await run();
    expect((await deliveries()).filter((d) => d.eventId === later)).toEqual([]);
  });

  it("one delivery the database refuses does not cost the others: it is set aside and counted", async () => {
    const endpointId = await endpoint(["live_view.done"]);
    const sessionId = `ses_${ulid()}`;
    const at = new Date(clock);
    await t.app.deps.db.prisma.session.create({
      data: {
        id: sessionId,
        workspaceId: ws.workspace.id,
        status: "RUNNING",
        region: "us-east1",
        timeoutSeconds: 600,
        idleTimeoutSeconds: 60,
        createdAt: at,
        startedAt: at,
        expiresAt: new Date(at.getTime() + 600_000),
      },
    });
    const metrics = t.app.deps.metrics!;
    const before = await setAsideCount(metrics, "webhooks");
    // The middle one's type holds a NUL: its row is refused (SQLSTATE 22021), and with it, before, the whole batch.
    const events = ["live_view.done", "live_view.\u0000", "live_view.done"].map((type) =>
      eventView(newEvent(sessionId, type as SessionEventType, {}, new Date(clock))),
    );
    const made = await makeDeliveries({ ...t.app.deps, setAside: metrics.setAside }, sessionId, events, () => [endpointId]);
    expect(made).toBe(2);
    const rows = await t.app.deps.db.prisma.webhookDelivery.findMany({ where: { endpointId }, orderBy: { eventId: "asc" } });
    expect(rows.map((d) => d.eventId)).toEqual([events[0]!.id, events[2]!.id]);
    expect(await setAsideCount(metrics, "webhooks")).toBe(before + 1);
  });
});
