import http from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer from "puppeteer-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath } from "../support/services.ts";

describe.skipIf(chromiumPath() === undefined)("block_ads (throwaway proof of the feature registry)", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "2", VESSEL_EGRESS_ALLOW: "127.0.0.1/32" } });
    ws = await seedWorkspace(t);
    site = http.createServer((_req, res) => res.setHeader("content-type", "text/html").end("<title>ok</title>"));
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    site?.close();
    await t?.stop();
  });

  it("block_ads is declared once and seen by REST, GraphQL and MCP", async () => {
    const created = await createSession(t, ws.key, { region: "us-east1", block_ads: true });
    expect(created.res.status).toBe(201);
    expect((created.body as unknown as Record<string, unknown>).block_ads).toBe(true);
    const auth = { authorization: `Bearer ${ws.key}`, "content-type": "application/json" };
    const rest = (await (await fetch(`${t.url}/v1/sessions/${created.body.id}`, { headers: auth })).json()) as Record<string, unknown>;
    expect(rest.block_ads).toBe(true);
    const gql = (await (await fetch(`${t.url}/graphql`, { method: "POST", headers: auth, body: JSON.stringify({ query: `{ session(id: "${created.body.id}") { blockAds } }` }) })).json()) as { data: { session: { blockAds: boolean } } };
    expect(gql.data.session.blockAds).toBe(true);
    const mcp = new Client({ name: "proof", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ws.key}` } } }));
    const tools = await mcp.listTools();
    const create = tools.tools.find((x) => x.name === "create_session")!;
    expect(Object.keys((create.inputSchema as { properties: object }).properties)).toContain("block_ads");
    await mcp.close();
    await releaseSession(t, ws.key, created.body.id);
  });

  for (const block of [true, false]) {
    it(`block_ads ${block}: an ad address ${block ? "is refused" : "loads"}; a page loads`, async () => {
      const created = await createSession(t, ws.key, { region: "us-east1", ...(block ? { block_ads: true } : {}) });
      expect(created.res.status).toBe(201);
      const browser = await puppeteer.connect({ browserWSEndpoint: created.body.connect_url! });
      try {
        const page = (await browser.pages())[0] ?? (await browser.newPage());
        await page.goto(`${url}/page`);
        const ad = await page.evaluate(async (u) => fetch(u).then(() => "loaded", () => "refused"), `${url}/ads/banner.js`);
        expect(ad).toBe(block ? "refused" : "loaded");
      } finally {
        await browser.disconnect();
        await releaseSession(t, ws.key, created.body.id);
      }
    });
  }
});
