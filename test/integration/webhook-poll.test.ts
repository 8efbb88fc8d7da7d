import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "../../src/generated/prisma/client.ts";
import { WebhookDispatcher } from "../../src/services/webhooks/webhook-dispatcher.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The dispatcher's poll on a deployment without an enabled endpoint runs no statement (on the
 * embedded database the claim's would cost the node's own thread every poll), and starts claiming
 * as soon as an endpoint is made.
 */
describe("webhook poll without endpoints", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    // No browsers: the app's own dispatcher does not run, only the one made here.
    t = await startTestApp({ startBrowsers: false });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  it("claims nothing, and asks nothing of the database, until an endpoint exists", async () => {
    // The embedded database (startTestApp's own): the claim is one of the statements run on it directly.
    const db = t.app.deps.db;
    const direct = db.direct!;
    expect(direct).toBeTypeOf("function");
    let claims = 0;
    const counting = async (sql: Prisma.Sql) => {
      if (sql.text.includes('"webhook_deliveries"')) claims++;
      return direct(sql);
    };
    const dispatcher = new WebhookDispatcher(
      { ...t.app.deps, db: { ...db, direct: counting } },
      { pollMs: 20, retryBaseMs: t.app.deps.config.webhooks.retryBaseMs },
    );
    dispatcher.start();
    try {
      await sleep(400);
      expect(claims).toBe(0);
      const made = await fetch(`${t.url}/v1/webhooks`, {
        method: "POST",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ url: "https://hooks.example/x", events: ["session.released"] }),
      });
      expect(made.status).toBe(201);
      // The app's node said so (pub/sub): the dispatcher here looks again at once and polls from then on.
      for (let i = 0; i < 100 && claims < 3; i++) await sleep(20);
      expect(claims).toBeGreaterThanOrEqual(3);
    } finally {
      await dispatcher.stop();
    }
  });
});
