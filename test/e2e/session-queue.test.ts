import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { QueueTimeoutError, Vessel } from "@vessel/client";
import { runCli } from "@vessel/client/cli";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded, type TestApp, startTestApp } from "../support/app.ts";
import { eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

/**
 * The admission queue on the embedded default (issue 43): with queue_timeout_seconds a create that finds
 * no free browser is 202 QUEUED with its place; a freed browser starts it (and its connect_url works);
 * past its timeout it ends TIMED_OUT queue_timeout; a release removes it; starts are fair between workspaces.
 */

const hasChromium = chromiumPath() !== undefined;
if (servicesRequired && !hasChromium) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1)");

type Body = {
  id: string;
  status: string;
  end_reason: string | null;
  queue_position: number | null;
  timeout_seconds: number;
  connect_url: string | null;
  live_view_url: string | null;
  type?: string;
  queue_timeout_seconds?: number;
};
export async function create(base: string, key: string, extra: Record<string, unknown> = {}, idem = randomUUID()) {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": idem },
    body: JSON.stringify({ region: "us-east1", ...extra }),
  });
  return { res, body: (await res.json()) as Body };
}
const release = (base: string, key: string, id: string) =>
  fetch(`${base}/v1/sessions/${id}`, {
    method: "PATCH",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ status: "REQUEST_RELEASE" }),
  });
const get = async (base: string, key: string, id: string) => (await (await fetch(`${base}/v1/sessions/${id}`, { headers: bearer(key) })).json()) as Body;

describe.skipIf(!hasChromium)("the admission queue on one node, capacity 2", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  it("queues a third create (202, position 1), starts it when one is released, times out a fourth, and a release removes a queued one", async () => {
    const running = [await create(t.url, ws.key), await create(t.url, ws.key)];
    for (const r of running) expect(r.res.status).toBe(201);

    // Without queue_timeout_seconds nothing changes: 503 at once.
    expect((await create(t.url, ws.key)).res.status).toBe(503);

    const idem = randomUUID();
    const third = await create(t.url, ws.key, { queue_timeout_seconds: 30 }, idem);
    expect(third.res.status).toBe(202);
    expect(third.res.headers.get("location")).toBe(`/v1/sessions/${third.body.id}`);
    expect(third.body).toMatchObject({ status: "QUEUED", queue_position: 1, connect_url: null, live_view_url: null, queue_timeout_seconds: 30 });
    // No timeout asked: the session limit, as for a create that starts at once (not the one-day ceiling).
    expect(third.body.timeout_seconds).toBe(t.app.deps.config.maxSessionSeconds);

    // A replay answers the same session as it is now.
    const replay = await create(t.url, ws.key, { queue_timeout_seconds: 30 }, idem);
    expect(replay.res.status).toBe(202);
    expect(replay.body).toMatchObject({ id: third.body.id, status: "QUEUED", queue_position: 1 });

    // Listed by status.
    const listed = (await (await fetch(`${t.url}/v1/sessions?status=QUEUED`, { headers: bearer(ws.key) })).json()) as { items: Body[] };
    expect(listed.items.map((s) => [s.id, s.queue_position])).toEqual([[third.body.id, 1]]);

    // GraphQL shows the same place.
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query: `{ sessions(status: QUEUED) { items { id status queuePosition connectUrl } } }` }),
    });
    expect(((await gql.json()) as { data: unknown }).data).toEqual({
      sessions: { items: [{ id: third.body.id, status: "QUEUED", queuePosition: 1, connectUrl: null }] },
    });

    const fourth = await create(t.url, ws.key, { queue_timeout_seconds: 2 });
    expect(fourth.res.status).toBe(202);
    expect(fourth.body.queue_position).toBe(2);

    expect((await release(t.url, ws.key, running[0]!.body.id)).status).toBe(204);
    const started = await eventually(
      () => get(t.url, ws.key, third.body.id),
      (s) => s.status === "RUNNING",
    );
    expect(started.connect_url).toMatch(/^ws:/);
    const browser = await puppeteer.connect({ browserWSEndpoint: started.connect_url! });
    const [page] = await browser.pages();
    expect(await page!.evaluate(() => 6 * 7)).toBe(42);
    await browser.disconnect();

    // The fourth waits for no browser (both busy again) and times out.
    const timedOut = await eventually(
      () => get(t.url, ws.key, fourth.body.id),
      (s) => s.status !== "QUEUED",
    );
    expect(timedOut).toMatchObject({ status: "TIMED_OUT", end_reason: "queue_timeout", connect_url: null });

    // Its events: queued, then started and running; the timed-out one queued then timed out.
    const events = async (id: string) =>
      ((await (await fetch(`${t.url}/v1/sessions/${id}/events`, { headers: bearer(ws.key) })).json()) as { items: { type: string }[] }).items.map(
        (e) => e.type,
      );
    expect((await events(third.body.id)).slice(0, 3)).toEqual(["session.queued", "session.started", "session.running"]);
    expect(await events(fourth.body.id)).toEqual(["session.queued", "session.timed_out"]);

    // Releasing a queued one removes it.
    const fifth = await create(t.url, ws.key, { queue_timeout_seconds: 30 });
    expect(fifth.body.status).toBe("QUEUED");
    expect((await release(t.url, ws.key, fifth.body.id)).status).toBe(204);
    expect(await get(t.url, ws.key, fifth.body.id)).toMatchObject({ status: "RELEASED", end_reason: "client_release", queue_position: null });
    expect(await t.app.deps.db.prisma.sessionQueueEntry.count({ where: { session: { status: "QUEUED" } } })).toBe(0);

    // Metrics: the wait was observed.
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/vessel_queue_wait_seconds_count 1/);
    for (const r of [running[1]!, third]) await release(t.url, ws.key, r.body.id);
  });

  it("the TS client's create(…, {queueTimeout}) returns once RUNNING, or rejects with a QueueTimeoutError; the CLI takes --queue-timeout", async () => {
    await eventually(
      () => Promise.resolve(t.app.deps.browsers.report().inUse),
      (n) => n === 0,
    );
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const held = [await vessel.sessions.create({ region: "us-east1" }), await vessel.sessions.create({ region: "us-east1" })];
    const waiting = vessel.sessions.create({ region: "us-east1", queueTimeout: 30 });
    await eventually(
      () => t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id, status: "QUEUED" } }),
      (n) => n === 1,
    );
    await vessel.sessions.release(held[0]!.id);
    const started = await waiting;
    expect(started).toMatchObject({ status: "RUNNING", queue_timeout_seconds: 30 });
    expect(started.connect_url).toMatch(/^ws:/);

    const timedOut = await vessel.sessions.create({ region: "us-east1", queueTimeout: 1 }).catch((err: unknown) => err);
    expect(timedOut).toBeInstanceOf(QueueTimeoutError);
    expect((timedOut as QueueTimeoutError).session).toMatchObject({ status: "TIMED_OUT", end_reason: "queue_timeout" });

    // The CLI: queued, then timed out, said as an error (exit code non-zero).
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(["sessions", "create", "--region", "us-east1", "--queue-timeout", "1", "--json"], {
      env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url },
      interactive: false,
      out: (s: string) => out.push(s),
      err: (s: string) => err.push(s),
    });
    expect(code).not.toBe(0);
    expect(err.join("")).toMatch(/queue/);
    for (const s of [held[1]!, started]) await vessel.sessions.release(s.id);
  });

  it("MCP create_session waits in the queue and answers once the session runs", async () => {
    await eventually(
      () => Promise.resolve(t.app.deps.browsers.report().inUse),
      (n) => n === 0,
    );
    const held = [(await create(t.url, ws.key)).body, (await create(t.url, ws.key)).body];
    const client = new Client({ name: "vessel-queue-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(ws.key) } });
    await client.connect(transport);
    try {
      const answer = client.callTool({ name: "create_session", arguments: { queue_timeout_seconds: 30 } });
      await eventually(
        () => t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id, status: "QUEUED" } }),
        (n) => n === 1,
      );
      await release(t.url, ws.key, held[0]!.id);
      const result = (await answer) as { structuredContent?: { id: string; status: string } };
      expect(result.structuredContent).toMatchObject({ status: "RUNNING" });
      await release(t.url, ws.key, result.structuredContent!.id);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
      await release(t.url, ws.key, held[1]!.id);
    }
  });
});
