import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { seedWorkspace } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { addMember, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";

/**
 * security.md G42 (lifetime): a graphql-ws socket lives no longer than its credential. The dashboard's
 * access token lasts an hour; once the app's clock passes its `exp`, the next re-check closes the
 * socket with 4403, which the dashboard answers by refreshing its cookie and reconnecting.
 */
describe("graphql-ws: a socket does not outlive its credential", () => {
  let db: TestDatabase;
  let t: DashboardApp;
  let user: SignedInUser;
  let clockOffsetMs = 0;

  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    t = await startDashboardApp({ db: db.db, credentialRecheckMs: 150, now: () => new Date(Date.now() + clockOffsetMs) });
    const ws = await seedWorkspace(t);
    user = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
  });
  afterAll(async () => {
    await t?.stop();
    await db?.dispose();
  });

  test("G42: when the access token reaches exp, the socket is closed with 4403 at the next re-check", async () => {
    let closed: (code: number) => void = () => {};
    const closedWith = new Promise<number>((resolve) => (closed = resolve));
    const client = createClient({
      url: `${t.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
      connectionParams: user.bearer,
      on: { closed: (event) => closed((event as { code: number }).code) },
    });
    try {
      const me = await new Promise<unknown>((resolve, reject) => {
        let value: unknown;
        client.subscribe({ query: "{ me { email } }" }, { next: (v) => (value = v), error: reject, complete: () => resolve(value) });
      });
      expect(me).toEqual({ data: { me: { email: user.email } } });
      // Re-checked many times within the token's hour: still open.
      await new Promise((r) => setTimeout(r, 600));
      let stillOpen = true;
      void closedWith.then(() => (stillOpen = false));
      expect(stillOpen).toBe(true);
      clockOffsetMs = 61 * 60_000;
      expect(await closedWith).toBe(4403);
    } finally {
      clockOffsetMs = 0;
      await client.dispose();
    }
  });
});
