import { randomBytes, randomUUID } from "node:crypto";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { browserPids, spawnNode, type NodeProcess } from "../support/processes.ts";
import { alive, eventually } from "../support/sessions.ts";
import { chromiumPath, postgresReachable, servicesRequired } from "../support/services.ts";

/**
 * security.md B17: a create whose node dies after it claimed the Idempotency-Key and before it
 * answered can neither wedge the key nor start a second browser. A real node process is killed
 * (SIGKILL) while its claim is in progress; a peer in this process, whose clock the test moves past
 * the claim's lock, takes the retries.
 */

const hasChromium = chromiumPath() !== undefined;
const hasPostgres = await postgresReachable();
if (servicesRequired && (!hasChromium || !hasPostgres)) throw new Error("Chromium and PostgreSQL are required (VESSEL_REQUIRE_SERVICES=1)");

describe.skipIf(!hasChromium || !hasPostgres)("B17: a create that crashed mid-flight", () => {
  let tdb: TestDatabase;
  let peer: TestApp;
  let ws: Seeded;
  let clockOffsetMs = 0;
  const nodes: NodeProcess[] = [];
  const masterKey = randomBytes(32).toString("base64");

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    peer = await startTestApp({
      db: tdb.db,
      now: () => new Date(Date.now() + clockOffsetMs),
      env: { VESSEL_MASTER_KEY: masterKey, VESSEL_BROWSER_CAPACITY: "2" },
    });
    ws = await seedWorkspace(peer);
  });
  afterAll(async () => {
    for (const n of nodes) await n.stop(5_000);
    await peer?.stop();
    await tdb?.dispose();
  });

  const body = JSON.stringify({ region: "us-east1" });
  const create = (base: string, key: string) =>
    fetch(`${base}/v1/sessions`, { method: "POST", headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": key }, body });

  /** Sends a create to `n` and kills `n` the moment its claim on the key is in the database, before its answer. */
  async function killMidCreate(n: NodeProcess, key: string): Promise<boolean> {
    let answered = false;
    void create(n.url, key).then(
      () => (answered = true),
      () => {},
    );
    const until = Date.now() + 30_000;
    while (!answered && Date.now() < until) {
      const claim = await tdb.db.prisma.idempotencyRecord.findFirst({ where: { workspaceId: ws.workspace.id, key } });
      if (claim?.state === "IN_PROGRESS") {
        n.signal("SIGKILL");
        await n.exited;
        return !answered;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    return false;
  }

  it("the retry is 409 while the claim is locked, then completes with one session and one live Chromium for the key", async () => {
    let key = "";
    let node: NodeProcess | undefined;
    // The claim is in progress for as long as a browser takes to launch; should the node answer
    // first (a very fast launch), the attempt is repeated with a new key on a new node.
    for (let attempt = 0; attempt < 3 && !node; attempt++) {
      const n = await spawnNode({
        DATABASE_URL: tdb.url!,
        VESSEL_MASTER_KEY: masterKey,
        VESSEL_DATA_DIR: `/tmp/vessel-b17-${ulid()}`,
        VESSEL_NODE_ID: `child-${ulid()}`,
        VESSEL_BROWSER_CAPACITY: "2",
      });
      nodes.push(n);
      key = randomUUID();
      if (await killMidCreate(n, key)) node = n;
      else await n.stop(5_000);
    }
    expect(node, "no attempt caught the claim in progress").toBeDefined();
    const crashed = node!;
    // The killed node's browser goes with it (its DevTools pipe closes).
    for (const pid of browserPids(crashed.browserRoot))
      await eventually(
        async () => alive(pid),
        (up) => !up,
        10_000,
      );

    // Immediately: the key is still claimed, so the retry is told to wait, and nothing starts.
    const early = await create(peer.url, key);
    expect(early.status).toBe(409);
    expect(early.headers.get("retry-after")).toBeTruthy();
    expect(((await early.json()) as { type: string }).type).toMatch(/idempotency-key-in-use$/);
    expect(peer.app.deps.runtime.ids()).toEqual([]);

    // After the claim's lock (60 s) the retry takes the key over and completes: a fresh session.
    clockOffsetMs = 61_000;
    const late = await create(peer.url, key);
    expect(late.status).toBe(201);
    const session = (await late.json()) as { id: string };
    // Further retries replay that answer; they start nothing.
    const replay = await create(peer.url, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as { id: string }).id).toBe(session.id);

    // One session for the key, one live Chromium: the peer's; the crashed node's is gone.
    const record = await tdb.db.prisma.idempotencyRecord.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, key } });
    expect(record).toMatchObject({ state: "COMPLETED", resourceId: session.id });
    expect(await tdb.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(1);
    expect(peer.app.deps.runtime.ids()).toEqual([session.id]);
    expect(browserPids(crashed.browserRoot).filter(alive)).toEqual([]);
    await fetch(`${peer.url}/v1/sessions/${session.id}`, {
      method: "PATCH",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });
  }, 240_000);
});
