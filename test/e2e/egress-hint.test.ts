import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressHint } from "../../src/browser/logs/network.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { Vessel } from "@vessel/client";
import { eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/**
 * Issue 25: a destination the egress policy refuses reaches the page only as
 * net::ERR_SOCKS_CONNECTION_FAILED; the session's log entry for it says where to look.
 */
describe.skipIf(!executablePath)("a refused destination in the session's log", () => {
  let t: TestApp;
  let ws: Seeded;
  let id = "";
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
  }, 60_000);
  afterAll(async () => {
    if (id) await releaseSession(t, ws.key, id).catch(() => undefined);
    await t?.stop();
  });

  it("adds the hint to the SOCKS errors only", () => {
    expect(egressHint("net::ERR_SOCKS_CONNECTION_FAILED")).toMatch(
      /^net::ERR_SOCKS_CONNECTION_FAILED \(refused by the egress policy .*egress\.refused.*VESSEL_EGRESS_ALLOW/,
    );
    expect(egressHint("net::ERR_NAME_NOT_RESOLVED")).toBe("net::ERR_NAME_NOT_RESOLVED");
  });

  it("names the egress.refused event and VESSEL_EGRESS_ALLOW on the failed request", async () => {
    // 10.0.0.0/8 is a private range: refused by the default policy.
    // Through the TypeScript client: its startUrl is the create's start_url.
    const session = await new Vessel({ apiKey: ws.key, baseUrl: t.url }).sessions.create({ region: "us-east1", logs: true, startUrl: "http://10.1.2.3/" });
    id = session.id;
    const failure = await eventually(
      async () => {
        const list = (await (await fetch(`${t.url}/v1/sessions/${id}/logs?type=network`, { headers: bearer(ws.key) })).json()) as {
          items: Array<{ url?: string; failure?: string | null }>;
        };
        return list.items.find((e) => e.url?.startsWith("http://10.1.2.3"))?.failure;
      },
      (f) => typeof f === "string",
      30_000,
    );
    expect(failure).toMatch(
      /ERR_SOCKS_CONNECTION_FAILED \(refused by the egress policy or unreachable: see this session's egress\.refused events; the server's VESSEL_EGRESS_ALLOW/,
    );
    const events = (await (await fetch(`${t.url}/v1/sessions/${id}/events?types=egress.refused`, { headers: bearer(ws.key) })).json()) as {
      items: Array<{ data: { host: string } }>;
    };
    expect(events.items.some((e) => e.data.host === "10.1.2.3")).toBe(true);
  });

  it("refuses a start_url that is not an http(s) address (a host file, a browser page, script), creating nothing", async () => {
    const before = await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } });
    for (const start_url of [
      "file:///etc/passwd",
      "chrome://settings",
      "javascript:alert(1)",
      "view-source:http://127.0.0.1/",
      "devtools://devtools/bundled/inspector.html",
      "data:text/html,hi",
    ]) {
      const res = await fetch(`${t.url}/v1/sessions`, {
        method: "POST",
        headers: { ...bearer(ws.key), "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify({ region: "us-east1", start_url }),
      });
      expect(res.status, start_url).toBe(400);
      expect(((await res.json()) as { type: string }).type).toMatch(/\/errors\/validation-failed$/);
    }
    expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(before);
  });
});
