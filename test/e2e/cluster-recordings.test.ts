import { randomUUID } from "node:crypto";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, type Seeded, type TestApp } from "../support/app.ts";
import { startCluster, type TestCluster } from "../support/cluster.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { ffprobe, hasFfmpeg, lastFramePixel, near, PAGE_RGB, startColourPage } from "../support/recordings.ts";
import { eventually, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";

/**
 * With PostgreSQL, a recording outlives the node that made it: node A records a session, drains
 * (its drain waits until the video is stored) and stops; node B serves the video, whole and by
 * ranges, from the database.
 */

const hasChromium = chromiumPath() !== undefined;
const shared = { postgres: await postgresReachable(), redis: await redisReachable() };
if (servicesRequired && (!hasChromium || !hasFfmpeg || !shared.postgres || !shared.redis)) {
  throw new Error("Chromium, ffmpeg, PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");
}

describe.skipIf(!hasChromium || !hasFfmpeg || !shared.postgres || !shared.redis)("recordings in a cluster (PostgreSQL)", () => {
  let tdb: TestDatabase;
  let cluster: TestCluster;
  let a: TestApp;
  let b: TestApp;
  let ws: Seeded;
  let page: Awaited<ReturnType<typeof startColourPage>>;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    cluster = await startCluster(2, { db: tdb.db, redisUrl: testRedisUrl, env: { VESSEL_BROWSER_CAPACITY: "1" } });
    [a, b] = cluster.nodes as [TestApp, TestApp];
    ws = await seedWorkspace(a);
    page = await startColourPage();
  });
  afterAll(async () => {
    await cluster?.stop();
    await page?.close();
    await tdb?.dispose();
  });

  it("a recording made on node A is served by node B after A has drained and stopped", async () => {
    const res = await fetch(`${a.url}/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ region: "us-east1", recording: true }),
    });
    expect(res.status).toBe(201);
    const session = (await res.json()) as SessionBody;
    expect((await tdb.db.prisma.session.findUniqueOrThrow({ where: { id: session.id } })).nodeId).toBe(a.app.deps.nodeId);
    const browser = await puppeteer.connect({ browserWSEndpoint: cluster.direct(0, session.connect_url!) });
    const [tab] = await browser.pages();
    await tab!.goto(page.url);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await browser.disconnect();

    // SIGTERM on A: the session is released meanwhile; the drain returns once its video is stored.
    const drained = a.app.drain(60_000);
    const release = await fetch(`${a.url}/v1/sessions/${session.id}`, {
      method: "PATCH",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });
    expect(release.status).toBe(204);
    await drained;
    expect(a.app.deps.recordings.pending).toBe(0);
    const row = await tdb.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: session.id } });
    expect(row).toMatchObject({ status: "READY", storage: "database", nodeId: a.app.deps.nodeId });
    expect(await tdb.db.prisma.recordingChunk.count({ where: { sessionId: session.id } })).toBeGreaterThan(0);
    await a.stop();

    const whole = await eventually(
      () => fetch(`${b.url}/v1/sessions/${session.id}/recording`, { headers: bearer(ws.key) }),
      (r) => r.status !== 409,
      30_000,
    );
    expect(whole.status).toBe(200);
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.length).toBe(row.sizeBytes);
    const probe = ffprobe(bytes);
    expect(probe.codec).toBe("h264");
    const ended = await tdb.db.prisma.session.findUniqueOrThrow({ where: { id: session.id } });
    expect(Math.abs(probe.durationSeconds - (ended.endedAt!.getTime() - ended.startedAt!.getTime()) / 1000)).toBeLessThanOrEqual(1);
    expect(near(lastFramePixel(bytes, probe.width, Math.floor(probe.width / 2), Math.floor(probe.height / 2)), PAGE_RGB)).toBe(true);
    const ranged = await fetch(`${b.url}/v1/sessions/${session.id}/recording`, { headers: { ...bearer(ws.key), range: "bytes=10-209" } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 210))).toBe(true);
  });
});
