// The MCP server (issue 22) through the SDK's own client, over Streamable HTTP (/mcp) and over stdio
// (`vessel mcp` spawned against the running server): tools listed, a session driven on a loopback
// page by snapshot references, a PNG decoded, "ask a human" answered by a real browser clicking Done
// and timing out, another workspace's session refused, and no key refused.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "../../src/browser/launch/command.ts";
import { addKey, bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { eventually, getSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = findChromium();
const viewerPath = chromiumPath();
if ((!executablePath || !viewerPath) && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");
const expectedTools = [
  "create_session",
  "list_sessions",
  "release_session",
  "navigate",
  "snapshot",
  "click",
  "type",
  "press_key",
  "scroll",
  "screenshot",
  "list_tabs",
  "switch_tab",
  "save_profile",
  "ask_human",
  "wait_for_human",
  "fill_credential",
];

/** A form whose button writes the typed name into the heading: the change a click must cause. */
const fixtureHtml = `<!doctype html><title>MCP fixture</title>
<h1 id="status">Waiting</h1><label>Name <input id="name" onkeydown="if (event.key === 'Escape') this.value = 'escaped'"></label>
<button onclick="document.getElementById('status').textContent = 'Hello ' + document.getElementById('name').value">Say hello</button>
<a href="/second" target="_blank">Open the second page</a><div style="height:3000px"></div>`;
const secondHtml = `<!doctype html><title>Second</title><h1>The second page</h1>`;

type ToolResult = {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};
const textOf = (r: ToolResult) =>
  r.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;

/** The ref of the first snapshot line that matches. */
function refOf(snapshot: string, line: RegExp): string {
  const found = snapshot.split("\n").find((l) => line.test(l));
  const ref = found && /\[ref=(e\d+)\]/.exec(found)?.[1];
  if (!ref) throw new Error(`no line matching ${line} in:\n${snapshot}`);
  return ref;
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe.skipIf(!executablePath || !viewerPath)("MCP server", () => {
  let t: TestApp;
  let ws: Seeded;
  let other: Seeded;
  let fixture: http.Server;
  let fixtureUrl: string;
  let forbidden: http.Server;
  let forbiddenHits = 0;
  let viewer: Browser;

  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "4" } });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    fixture = http.createServer((req, res) => res.setHeader("content-type", "text/html").end(req.url === "/second" ? secondHtml : fixtureHtml));
    await new Promise<void>((r) => fixture.listen(0, "127.0.0.1", () => r()));
    // On a loopback address the egress policy of the test app does not open (it opens 127.0.0.1 only).
    forbidden = http.createServer((_req, res) => {
      forbiddenHits++;
      res.end("reached");
    });
    await new Promise<void>((r) => forbidden.listen(0, "127.0.0.2", () => r()));
    fixtureUrl = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}/`;
    viewer = await puppeteer.launch({
      executablePath: viewerPath,
      args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
  }, 60_000);

  afterAll(async () => {
    await viewer?.close();
    await new Promise<void>((r) => (fixture ? fixture.close(() => r()) : r()));
    await new Promise<void>((r) => (forbidden ? forbidden.close(() => r()) : r()));
    await t?.stop();
  });

  const httpTransport = (key: string) => new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(key) } });
  const stdioTransport = (key: string) =>
    new StdioClientTransport({
      command: path.join(root, "node_modules/.bin/tsx"),
      args: [path.join(root, "clients/typescript/src/bin.ts"), "mcp"],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", VESSEL_API_KEY: key, VESSEL_BASE_URL: t.url },
      cwd: root,
      stderr: "inherit",
    });

  async function connect(transport: Transport): Promise<Client> {
    const client = new Client({ name: "vessel-test", version: "1.0.0" });
    await client.connect(transport);
    return client;
  }

  /** The person: opens the link in their own browser and clicks Done. */
  async function clickDone(url: string): Promise<void> {
    const page = await viewer.newPage();
    try {
      await page.goto(url);
      await page.waitForSelector("#done:not([hidden])");
      expect(await page.$eval("#instructions", (e) => e.textContent)).toBe("Type your name, then click Done.");
      await page.click("#done");
      await page.waitForFunction(() => /^Done sent/.test(document.getElementById("done-status")?.textContent ?? ""));
    } finally {
      await page.close();
    }
  }

  for (const [name, transportFor] of [
    ["Streamable HTTP", httpTransport],
    ["stdio (vessel mcp)", stdioTransport],
  ] as const) {
    it(`drives a session, hands it to a person and refuses another workspace over ${name}`, async () => {
      const client = await connect(transportFor(ws.key));
      const intruder = await connect(transportFor(other.key));
      try {
        const logged: Array<Record<string, unknown>> = [];
        client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params.data as Record<string, unknown>));
        const { tools } = await client.listTools();
        expect(tools.map((x) => x.name).sort()).toEqual([...expectedTools].sort());
        for (const tool of tools) {
          expect(tool.description!.length).toBeGreaterThan(40);
          expect(tool.inputSchema.type).toBe("object");
        }

        const created = await call(client, "create_session", { settings: { viewport: { width: 1000, height: 700 } } });
        expect(created.isError, textOf(created)).toBeFalsy();
        const sessionId = created.structuredContent!.id as string;
        expect(sessionId).toMatch(/^ses_/);

        const navigated = await call(client, "navigate", { url: fixtureUrl });
        expect(textOf(navigated)).toContain("HTTP 200");
        const before = textOf(await call(client, "snapshot"));
        expect(before).toMatch(/heading "Waiting"/);
        // Text boxes of the layout repeat their text: not in a snapshot (issue 45).
        expect(before).not.toMatch(/InlineTextBox/);
        const field = refOf(before, /textbox "Name"/);
        const button = refOf(before, /button "Say hello"/);

        expect((await call(client, "type", { ref: field, text: "Ada" })).isError).toBeFalsy();
        const clicked = await call(client, "click", { session_id: sessionId, ref: button });
        expect(clicked.isError, textOf(clicked)).toBeFalsy();
        const after = textOf(await call(client, "snapshot", { session_id: sessionId }));
        expect(after).toMatch(/heading "Hello Ada"/);
        // The same element keeps its reference across snapshots.
        expect(refOf(after, /button "Say hello"/)).toBe(button);
        expect(textOf(await call(client, "click", { ref: "e999999" }))).toMatch(/no longer on the page/);

        const shot = await call(client, "screenshot");
        expect(shot.content[0]).toMatchObject({ type: "image", mimeType: "image/png" });
        expect(pngSize(Buffer.from(shot.content[0]!.data!, "base64"))).toEqual({ width: 1000, height: 700 });

        // Keys, scrolling, tabs.
        await call(client, "type", { ref: field, text: "Bob", clear: true });
        expect(textOf(await call(client, "snapshot"))).toMatch(/textbox "Name" value="Bob"/);
        expect((await call(client, "press_key", { key: "Escape" })).isError).toBeFalsy();
        expect(textOf(await call(client, "snapshot"))).toMatch(/textbox "Name" value="escaped"/);
        expect(textOf(await call(client, "press_key", { key: "NoSuchKey" }))).toMatch(/Unknown key/);
        expect(textOf(await call(client, "scroll", { direction: "down", amount: 500 }))).toMatch(/scrolled to x=0, y=500/);
        expect(textOf(await call(client, "list_tabs"))).toMatch(/^\* t1 {2}http:\/\/127\.0\.0\.1/);
        await call(client, "click", { ref: refOf(textOf(await call(client, "snapshot")), /link "Open the second page"/) });
        const tabs = await eventually(
          async () => textOf(await call(client, "list_tabs")),
          (l) => l.includes("t2"),
        );
        expect(tabs).toMatch(/^ {2}t2 {2}http:\/\/127\.0\.0\.1:\d+\/second/m);
        expect(textOf(await call(client, "switch_tab", { tab_id: "t2" }))).toMatch(/\/second/);
        expect(textOf(await call(client, "snapshot"))).toMatch(/heading "The second page"/);
        expect(textOf(await call(client, "switch_tab", { tab_id: "t1" }))).toMatch(/MCP fixture/);

        // The browser is driven through the session's own CDP connection: the egress policy applies.
        const refused = await call(client, "navigate", { url: `http://127.0.0.2:${(forbidden.address() as AddressInfo).port}/` });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/net::ERR_/);
        expect(forbiddenHits).toBe(0);

        const saved = await call(client, "save_profile", { label: "mcp test" });
        expect(saved.isError, textOf(saved)).toBeFalsy();
        const profileId = saved.structuredContent!.profile_id as string;
        expect(profileId).toMatch(/^prof_/);
        expect((await call(client, "save_profile", { profile_id: profileId })).structuredContent).toMatchObject({ profile_id: profileId });

        // Another workspace's key: the session does not exist for it.
        for (const [tool, args] of [
          ["navigate", { url: fixtureUrl }],
          ["snapshot", {}],
          ["ask_human", { instructions: "x" }],
          ["release_session", {}],
        ] as const) {
          const refused = await call(intruder, tool, { session_id: sessionId, ...args });
          expect(refused.isError, tool).toBe(true);
          expect(textOf(refused)).toMatch(/No session with this id in this workspace/);
        }

        // A view-only link handed out before does not gain control: it is revoked as the session turns interactive.
        const watchOnly = (await getSession(t, ws.key, sessionId)).live_view_url!;
        expect((await fetch(watchOnly)).status).toBe(200);

        // Nobody comes: the wait ends at its timeout, with progress on the way.
        const progress: Array<{ progress: number; message?: string }> = [];
        const lonely = (await client.callTool({ name: "ask_human", arguments: { instructions: "Nobody will come.", timeout_seconds: 2 } }, undefined, {
          onprogress: (p) => void progress.push(p),
        })) as ToolResult;
        expect(lonely.isError, textOf(lonely)).toBeFalsy();
        expect(lonely.structuredContent).toMatchObject({ outcome: "timed_out", session_id: sessionId });
        expect(progress[0]?.message).toMatch(/Waiting for the person .*http:\/\/127\.0\.0\.1:\d+\/\?token=/);
        expect((await fetch(watchOnly)).status).toBe(401);

        // The link at once, the wait in a second call (a model sees results, not progress).
        const handed = await call(client, "ask_human", { instructions: "Nobody will come either.", timeout_seconds: 2, wait: false });
        expect(handed.structuredContent).toMatchObject({ outcome: "waiting", live_view_url: expect.stringMatching(/\?token=/) });
        expect(textOf(handed)).toContain(handed.structuredContent!.live_view_url as string);
        expect((await call(client, "wait_for_human")).structuredContent).toMatchObject({ outcome: "timed_out" });
        expect(textOf(await call(client, "wait_for_human"))).toMatch(/No hand-off is open/);

        // A person clicks Done in the live view the agent passed on.
        let opened: Promise<void> | undefined;
        const asked = (await client.callTool(
          { name: "ask_human", arguments: { instructions: "Type your name, then click Done.", timeout_seconds: 120 } },
          undefined,
          {
            resetTimeoutOnProgress: true,
            onprogress: (p) => {
              const url = /(http:\/\/\S+\?token=\S+)/.exec(p.message ?? "")?.[1];
              if (url && !opened) opened = clickDone(url);
            },
          },
        )) as ToolResult;
        await opened;
        expect(asked.isError, textOf(asked)).toBeFalsy();
        expect(asked.structuredContent).toMatchObject({ outcome: "done", session_id: sessionId });
        expect(textOf(asked)).toMatch(/clicked Done/);
        // The link also came as a log message (for clients that show those).
        expect(logged.at(-1)).toMatchObject({ live_view_url: asked.structuredContent!.live_view_url });

        const released = await call(client, "release_session");
        expect(released.isError, textOf(released)).toBeFalsy();
        expect((await getSession(t, ws.key, sessionId)).status).toBe("RELEASED");

        // Each tool call is audited under the key, refusals of the other workspace's key too.
        // (The audit writer batches: the entries land shortly after the answers.)
        const audited = await eventually(
          () => t.app.deps.db.prisma.auditEntry.findMany({ where: { target: sessionId } }),
          (rows) => rows.some((a) => a.action === "session.release" && a.keyPrefix === ws.prefix),
        );
        const mine = audited.filter((a) => a.keyPrefix === ws.prefix).map((a) => `${a.action} ${a.httpStatus}`);
        for (const entry of ["mcp.navigate 200", "mcp.click 200", "mcp.screenshot 200", "session.ask_human 200", "session.release 200"])
          expect(mine).toContain(entry);
        expect(audited.filter((a) => a.keyPrefix === other.prefix).map((a) => `${a.action} ${a.httpStatus}`)).toContain("mcp.navigate 404");
      } finally {
        await client.close();
        await intruder.close();
      }
    }, 180_000);
  }

  for (const [name, transportFor] of [
    ["Streamable HTTP (DELETE /mcp)", httpTransport],
    ["stdio (stdin closes)", stdioTransport],
  ] as const) {
    it(`closes its browser connection when the MCP session ends over ${name}`, async () => {
      const transport = transportFor(ws.key);
      const client = await connect(transport);
      const sessionId = (await call(client, "create_session")).structuredContent!.id as string;
      expect((await call(client, "navigate", { url: fixtureUrl })).isError).toBeFalsy();
      const eventsOf = async (type: string) =>
        ((await (await fetch(`${t.url}/v1/sessions/${sessionId}/events?type=${type}`, { headers: bearer(ws.key) })).json()) as { items: unknown[] }).items;
      // (Connection events are written shortly after they happen.)
      await eventually(
        () => eventsOf("cdp.connected"),
        (e) => e.length === 1,
      );
      expect(await eventsOf("cdp.disconnected")).toHaveLength(0);
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
      await client.close();
      await eventually(
        () => eventsOf("cdp.disconnected"),
        (e) => e.length === 1,
      );
      // The browser session itself goes on until it is released.
      expect((await getSession(t, ws.key, sessionId)).status).toBe("RUNNING");
      await fetch(`${t.url}/v1/sessions/${sessionId}`, {
        method: "PATCH",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ status: "REQUEST_RELEASE" }),
      });
    }, 60_000);
  }

  it("ends a wait for a person when the session ends first", async () => {
    const client = await connect(httpTransport(ws.key));
    try {
      const sessionId = (await call(client, "create_session")).structuredContent!.id as string;
      let released: Promise<Response> | undefined;
      const asked = (await client.callTool({ name: "ask_human", arguments: { instructions: "Too late.", timeout_seconds: 120 } }, undefined, {
        resetTimeoutOnProgress: true,
        onprogress: () => {
          released ??= fetch(`${t.url}/v1/sessions/${sessionId}`, {
            method: "PATCH",
            headers: { ...bearer(ws.key), "content-type": "application/json" },
            body: JSON.stringify({ status: "REQUEST_RELEASE" }),
          });
        },
      })) as ToolResult;
      expect((await released)?.status).toBe(204);
      expect(asked.structuredContent).toMatchObject({ outcome: "session_ended", session_id: sessionId });
      expect(textOf(asked)).toMatch(/The session ended \(RELEASED\)/);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answers a stdio agent whose key is refused with an error, not silence", async () => {
    await expect(connect(stdioTransport("vs_live_nottherealkey"))).rejects.toThrow(/401/);
  });

  it("refuses /mcp without a valid key, with a problem document", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    for (const auth of [{}, { authorization: "Bearer vs_live_nottherealkey" }] as Array<Record<string, string>>) {
      const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: { ...headers, ...auth }, body });
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    // An MCP session belongs to the key that opened it.
    const opened = await fetch(`${t.url}/mcp`, { method: "POST", headers: { ...headers, ...bearer(ws.key) }, body });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id")!;
    await opened.body?.cancel();
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const stolen = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { ...headers, ...bearer(other.key), "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      body: list,
    });
    expect(stolen.status).toBe(404);
  });

  it("keeps at most 16 MCP sessions per key, ending the least recently used", async () => {
    const own = await seedWorkspace(t);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(own.key) };
    const ids: string[] = [];
    for (let i = 0; i < 17; i++) {
      const res = await fetch(`${t.url}/mcp`, { method: "POST", headers, body });
      ids.push(res.headers.get("mcp-session-id")!);
      await res.body?.cancel();
    }
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const status = async (id: string) => {
      const res = await fetch(`${t.url}/mcp`, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
        body: ping,
      });
      await res.body?.cancel();
      return res.status;
    };
    expect(await status(ids[0]!)).toBe(404);
    expect(await status(ids[1]!)).toBe(200);
    expect(await status(ids[16]!)).toBe(200);
  });

  it("keeps at most 64 MCP sessions per workspace whatever number of keys it makes, ending its own least recently used", async () => {
    const own = await seedWorkspace(t);
    const keys = [own.key, ...(await Promise.all([1, 2, 3, 4].map(async () => (await addKey(t, own.workspace.id)).key)))];
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const headers = (key: string) => ({ "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(key) });
    const bystander = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(ws.key), body });
    const bystanderId = bystander.headers.get("mcp-session-id")!;
    await bystander.body?.cancel();
    const opened: Array<{ key: string; id: string }> = [];
    // 13 on each of 5 keys: 65, within every key's 16.
    for (let i = 0; i < 65; i++) {
      const key = keys[i % keys.length]!;
      const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(key), body });
      expect(res.status).toBe(200);
      opened.push({ key, id: res.headers.get("mcp-session-id")! });
      await res.body?.cancel();
    }
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const status = async (key: string, id: string) => {
      const res = await fetch(`${t.url}/mcp`, {
        method: "POST",
        headers: { ...headers(key), "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
        body: ping,
      });
      await res.body?.cancel();
      return res.status;
    };
    expect(await status(opened[0]!.key, opened[0]!.id)).toBe(404);
    expect(await status(opened[1]!.key, opened[1]!.id)).toBe(200);
    expect(await status(opened[64]!.key, opened[64]!.id)).toBe(200);
    // Another workspace's MCP session is not the one that made room.
    expect(await status(ws.key, bystanderId)).toBe(200);
  }, 60_000);

  it("refuses the very next request of an open MCP session once its key is revoked, and lets go of its browser connection", async () => {
    const extra = await addKey(t, ws.workspace.id);
    const owner = await seedUser(t, ws.workspace.id, "OWNER");
    const client = await connect(httpTransport(extra.key));
    try {
      expect((await client.listTools()).tools.length).toBe(expectedTools.length);
      const created = await call(client, "create_session");
      expect(created.isError, textOf(created)).toBeFalsy();
      const sessionId = created.structuredContent!.id as string;
      expect(textOf(await call(client, "navigate", { url: fixtureUrl }))).toContain("HTTP 200");
      expect(t.app.deps.runtime.clientCount(sessionId)).toBe(1);
      const revoked = await fetch(`${t.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${extra.keyId}`, { method: "DELETE", headers: userAuth(owner) });
      expect(revoked.status).toBe(204);
      await expect(client.listTools()).rejects.toThrow(/401/);
      // The MCP session ended with its key: its CDP connection to the browser is closed, not kept until it idles out.
      const deadline = Date.now() + 10_000;
      while (t.app.deps.runtime.clientCount(sessionId) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(t.app.deps.runtime.clientCount(sessionId)).toBe(0);
      const released = await fetch(`${t.url}/v1/sessions/${sessionId}`, {
        method: "PATCH",
        headers: { ...bearer(ws.key), "content-type": "application/json" },
        body: JSON.stringify({ status: "REQUEST_RELEASE" }),
      });
      expect(released.status).toBe(204);
    } finally {
      await client.close();
    }
  });

  it("spends the key's rate limit on every /mcp request", async () => {
    const limited = await seedWorkspace(t, { rateLimitPerMinute: 2 });
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(limited.key) };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${t.url}/mcp`, { method: "POST", headers, body });
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get("content-type")).toContain("application/problem+json");
      await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
