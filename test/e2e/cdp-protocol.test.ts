import CDP from "chrome-remote-interface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession, startPageServer } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** Issue 45 point 11: chrome-remote-interface's default connect fetches `/json/protocol` from the connect_url's host. */
describe.skipIf(!hasChromium)("the DevTools protocol description", () => {
  let t: TestApp;
  let ws: Seeded;
  let page: Awaited<ReturnType<typeof startPageServer>>;
  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
    page = await startPageServer();
  });
  afterAll(async () => {
    await t?.stop();
    await page?.close();
  });

  it("is served at /json/protocol and /cdp/json/protocol as Chromium's is: {version, domains}", async () => {
    for (const path of ["/json/protocol", "/cdp/json/protocol"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = (await res.json()) as { version: { major: string; minor: string }; domains: Array<{ domain: string; commands?: Array<{ name: string }> }> };
      expect(body.version.major).toBe("1");
      const names = body.domains.map((d) => d.domain);
      for (const d of ["Browser", "Target", "Page", "Runtime", "Network", "DOM"]) expect(names).toContain(d);
      expect(body.domains.find((d) => d.domain === "Target")?.commands?.map((c) => c.name)).toContain("attachToTarget");
    }
  });

  it("chrome-remote-interface connects with its defaults (no local protocol) and drives a page through the typed API", async () => {
    const { body } = await createSession(t, ws.key);
    // No `local: true`: the client fetches the description from the connect_url's host first.
    const client = (await CDP({ target: body.connect_url! })) as unknown as {
      Target: {
        createTarget(p: { url: string }): Promise<{ targetId: string }>;
        attachToTarget(p: { targetId: string; flatten: boolean }): Promise<{ sessionId: string }>;
      };
      send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
      close(): Promise<void>;
    };
    // The typed domains exist only when the description was fetched and read.
    const { targetId } = await client.Target.createTarget({ url: page.url });
    const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
    const greeting = () =>
      client.send("Runtime.evaluate", { expression: "document.querySelector('#greeting')?.textContent ?? null", returnByValue: true }, sessionId) as Promise<{
        result: { value: string | null };
      }>;
    expect((await eventually(greeting, (e) => e.result.value !== null)).result.value).toBe("hello from loopback");
    await client.close();
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
  });
});
