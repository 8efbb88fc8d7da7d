import fs from "node:fs";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { bearer, seedWorkspace, type Seeded, type TestApp } from "../support/app.ts";
import { startCluster, type TestCluster } from "../support/cluster.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import type { SessionBody } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, redisReachable, servicesRequired, testRedisUrl } from "../support/services.ts";
import { cdpServed } from "../support/sockets.ts";

/**
 * A session's quotas hold however its clients spread over the nodes: uploads and CDP sockets that
 * reach another node are relayed to the session's, which counts them with its own.
 */

const hasChromium = chromiumPath() !== undefined;
const shared = { postgres: await postgresReachable(), redis: await redisReachable() };
if (servicesRequired && (!hasChromium || !shared.postgres || !shared.redis))
  throw new Error("Chromium, PostgreSQL and Redis are required (VESSEL_REQUIRE_SERVICES=1)");

const KiB = 1024;
const LIMIT = 1024 * KiB;

describe.skipIf(!hasChromium || !shared.postgres || !shared.redis)("a session's quotas across two nodes (PostgreSQL + Redis)", () => {
  let tdb: TestDatabase;
  let cluster: TestCluster;
  let a: TestApp;
  let b: TestApp;
  let ws: Seeded;
  let session: SessionBody;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    cluster = await startCluster(2, { db: tdb.db, redisUrl: testRedisUrl, env: { VESSEL_BROWSER_CAPACITY: "1", VESSEL_UPLOAD_MAX_BYTES: String(LIMIT) } });
    [a, b] = cluster.nodes as [TestApp, TestApp];
    ws = await seedWorkspace(a);
    const res = await fetch(`${a.url}/v1/sessions`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ region: "us-east1" }),
    });
    session = (await res.json()) as SessionBody;
    expect(a.app.deps.runtime.endpoint(session.id)).toBeDefined();
  });
  afterAll(async () => {
    if (session)
      await fetch(`${a.url}/v1/sessions/${session.id}`, {
        method: "PATCH",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ status: "REQUEST_RELEASE" }),
      });
    await cluster?.stop();
    await tdb?.dispose();
  });

  it("counts uploads made through either node against one limit", async () => {
    const file = new Blob([Buffer.alloc(400 * KiB, 5)]);
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const form = new FormData();
        form.append("file", file, `part-${i}.bin`);
        const res = await fetch(`${(i % 2 ? b : a).url}/v1/sessions/${session.id}/files`, { method: "POST", headers: bearer(ws.key), body: form });
        return res.status;
      }),
    );
    expect(answers.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((s) => s !== 201)).toEqual(answers.filter((s) => s !== 201).map(() => 413));
    const dir = a.app.deps.runtime.endpoint(session.id)!.uploadsDir;
    const stored = fs
      .readdirSync(dir, { recursive: true, encoding: "utf8" })
      .map((p) => `${dir}/${p}`)
      .filter((p) => fs.lstatSync(p).isFile());
    expect(stored).toHaveLength(answers.filter((s) => s === 201).length);
    expect(stored.reduce((sum, p) => sum + fs.statSync(p).size, 0)).toBeLessThanOrEqual(LIMIT);
  });

  it("counts CDP sockets relayed from the other node with the owner's own: the 17th is closed with 1008 either way", async () => {
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < 16; i++) {
        const got = await cdpServed(cluster.direct(i % 2, session.connect_url!));
        if (!("ws" in got)) throw new Error(`socket ${i + 1} was closed: ${got.code} ${got.reason}`);
        open.push(got.ws);
      }
      for (const node of [0, 1]) {
        expect(await cdpServed(cluster.direct(node, session.connect_url!))).toMatchObject({
          code: 1008,
          reason: expect.stringMatching(/at most 16 CDP sockets/),
        });
      }
    } finally {
      for (const s of open) s.close();
    }
  });
});
