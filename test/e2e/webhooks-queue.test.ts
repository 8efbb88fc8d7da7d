import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@vessel/client";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { signedBy, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

const hasChromium = chromiumPath() !== undefined;
if (servicesRequired && !hasChromium) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1)");

type Delivered = { type: string; timestamp: string; data: Record<string, unknown> };

/**
 * The admission queue's events as webhooks (issue 43): a session that waits for a browser is delivered
 * as `session.queued` (the session as GET answers it: QUEUED, its queue_position), then as
 * `session.started` once a freed browser starts it, in that order, signed like every delivery.
 */
describe.skipIf(!hasChromium)("webhooks for a queued session", () => {
  let t: TestApp;
  let ws: Seeded;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "1" } });
    ws = await seedWorkspace(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it("delivers session.queued (QUEUED, queue_position) and then session.started (RUNNING), signed", async () => {
    const made = await fetch(`${t.url}/v1/webhooks`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ url: `${receiver.url}/queue`, events: ["session.queued", "session.started"] }),
    });
    expect(made.status).toBe(201);
    const hook = (await made.json()) as { id: string; secret: string };

    const running = await createSession(t, ws.key);
    expect(running.res.status).toBe(201);
    const queued = await createSession(t, ws.key, { region: "us-east1", queue_timeout_seconds: 60 });
    expect(queued.res.status).toBe(202);
    expect(queued.body).toMatchObject({ status: "QUEUED", queue_position: 1 });
    const id = queued.body.id;

    // Delivered while it waits (the running one holds the only browser until released below).
    await eventually(
      async () => receiver.received.length,
      (n) => n >= 1,
      15_000,
    );
    const rest = (await (await fetch(`${t.url}/v1/sessions/${id}`, { headers: bearer(ws.key) })).json()) as Record<string, unknown>;
    expect((await releaseSession(t, ws.key, running.body.id)).ok).toBe(true);
    await eventually(
      async () => receiver.received.length,
      (n) => n >= 2,
      30_000,
    );

    const got = receiver.received.map((r) => JSON.parse(r.body) as Delivered);
    expect(got.map((d) => d.type)).toEqual(["session.queued", "session.started"]);
    for (const r of receiver.received) {
      expect(signedBy([hook.secret], r)).toEqual([hook.secret]);
      expect(verifyWebhook(hook.secret, r.headers, r.body).type).toBe(JSON.parse(r.body).type);
    }
    const [waiting, started] = got as [Delivered, Delivered];
    // data is the session as GET /v1/sessions/{id} answers it (its URLs left out, as for every session event).
    expect(Object.keys(waiting.data).sort()).toEqual(Object.keys(rest).sort());
    expect(waiting.data).toMatchObject({
      id,
      status: "QUEUED",
      queue_position: 1,
      queue_timeout_seconds: 60,
      started_at: null,
      connect_url: null,
      live_view_url: null,
    });
    expect(started.data).toMatchObject({ id, status: "RUNNING", queue_position: null, queue_timeout_seconds: 60 });
    expect(started.data.started_at).toEqual(expect.any(String));
    expect(Date.parse(started.timestamp)).toBeGreaterThanOrEqual(Date.parse(waiting.timestamp));

    // The delivery log (newest first) marks both delivered once their answers are in.
    const deliveries = async () =>
      (
        (await (await fetch(`${t.url}/v1/webhooks/${hook.id}/deliveries`, { headers: bearer(ws.key) })).json()) as {
          items: { event: string; status: string }[];
        }
      ).items;
    const log = await eventually(deliveries, (items) => items.every((d) => d.status === "delivered"));
    expect(log.map((d) => [d.event, d.status])).toEqual([
      ["session.started", "delivered"],
      ["session.queued", "delivered"],
    ]);
    expect((await releaseSession(t, ws.key, id)).ok).toBe(true);
  }, 90_000);
});
