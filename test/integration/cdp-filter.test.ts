import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { CdpClientFilter } from "../../src/browser/cdp-filter.ts";
import { plainlyHarmless, policyRefusal, redirectedDownloads, suspiciousMarkers } from "../../src/browser/cdp-policy.ts";

const downloads = "/tmp/vessel-test/session/downloads";

describe("the CDP method policy", () => {
  it.each([
    [{ method: "Page.navigate", params: { url: "file:///etc/passwd" } }],
    [{ method: "Page.navigate", params: { url: " FILE:///etc/passwd" } }],
    [{ method: "Target.createTarget", params: { url: "chrome://settings" } }],
    [{ method: "Target.createTarget", params: { url: "devtools://devtools/bundled/inspector.html" } }],
    [{ method: "Network.loadNetworkResource", params: { url: "file:///etc/shadow", frameId: "x", options: {} } }],
    [{ method: "DOM.setFileInputFiles", params: { files: ["/etc/passwd"], nodeId: 1 } }],
    [{ method: "Extensions.loadUnpacked", params: { path: "/tmp/ext" } }],
    [{ method: "Page.navigate", params: { url: "FILE:///etc/passwd" } }],
    [{ method: "Page.navigate", params: { url: "fi\tle:///etc/passwd" } }],
    [{ method: "Page.navigate", params: { url: "\u0000 view-source:file:///etc/passwd" } }],
    [{ method: "Input.dispatchDragEvent", params: { type: "drop", x: 1, y: 1, data: { items: [], files: ["/etc/passwd"], dragOperationsMask: 1 } } }],
    [{ method: "PWA.install", params: { manifestId: "x", installUrlOrBundleUrl: "file:///tmp/app.swbn" } }],
    [{ method: "Browser.setDownloadBehavior", params: { behavior: "allow", downloadPath: "/etc" } }],
    [{ method: "Page.setDownloadBehavior", params: { behavior: "allow", downloadPath: `${downloads}/../../escape` } }],
    [{ method: "Browser.setDownloadBehavior", params: { behavior: "allow" } }],
    [{ method: "Target.createBrowserContext", params: { proxyServer: "http://10.0.0.1:3128" } }],
    [{ method: "Browser.executeBrowserCommand", params: { commandId: "openTabSearch" } }],
  ])("refuses %j", (message) => {
    expect(policyRefusal(message, downloads)).toEqual(expect.any(String));
  });
  it.each([
    [{ method: "Page.navigate", params: { url: "https://example.com/file:thing" } }],
    [{ method: "Runtime.evaluate", params: { expression: "'file:///' + 1" } }],
    [{ method: "Browser.setDownloadBehavior", params: { behavior: "allow", downloadPath: `${downloads}/sub` } }],
    [{ method: "Browser.setDownloadBehavior", params: { behavior: "deny" } }],
    [{ method: "DOM.setFileInputFiles", params: { files: [`${downloads}/report.pdf`], nodeId: 1 } }],
    [{ method: "Target.createBrowserContext", params: { disposeOnDetach: true } }],
  ])("lets %j through", (message) => {
    expect(policyRefusal(message, downloads)).toBeNull();
  });
});

describe("the pre-check", () => {
  const message = (expression: string) => Buffer.from(JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { expression } }));
  it.each(suspiciousMarkers.map((m) => [m.toString("latin1")]))("finds %s in short and long messages", (marker) => {
    expect(plainlyHarmless(message(`x ${marker} y`))).toBe(false);
    expect(plainlyHarmless(message(`${"a".repeat(4000)}${marker}`))).toBe(false);
  });
  it.each([
    ["a scheme in capitals", '{"id":1,"method":"Page.navigate","params":{"url":"FILE:///etc/passwd"}}'],
    ["a JSON escape", '{"id":1,"method":"Page.navigate","params":{"url":"\\u0066ile:///etc/passwd"}}'],
    ["an escaped method name", '{"id":1,"method":"Browser.set\\u0044ownloadBehavior","params":{}}'],
    ["a raw tab inside the scheme", '{"id":1,"method":"Page.navigate","params":{"url":"fi\tle:///etc/passwd"}}'],
  ])("looks closer at %s, short or long", (_name, text) => {
    expect(plainlyHarmless(Buffer.from(text))).toBe(false);
    expect(plainlyHarmless(Buffer.from(text.replace('"params":{', `"pad":"${"a".repeat(2000)}","params":{`)))).toBe(false);
  });
  it("passes messages without markers, short and long (regex-looking text included)", () => {
    expect(plainlyHarmless(message("1+1"))).toBe(true);
    expect(plainlyHarmless(message(`${"a|b.*(".repeat(1000)}`))).toBe(true);
    expect(plainlyHarmless(message("files: profile"))).toBe(true);
  });
});

describe("download folders", () => {
  it.each([
    [{ method: "Browser.setDownloadBehavior", params: { behavior: "allowAndName", downloadPath: "/etc", eventsEnabled: true } }],
    [{ method: "Browser.setDownloadBehavior", params: { behavior: "allowAndName", downloadPath: `${downloads}/../../escape`, eventsEnabled: true } }],
    [{ method: "Page.setDownloadBehavior", params: { behavior: "allowAndName", downloadPath: "relative/path" } }],
  ])("outside the session's own with Chromium's names (Playwright) are replaced by it: %j", (message) => {
    expect(redirectedDownloads(message, downloads)).toEqual({ ...message.params, downloadPath: downloads });
    expect(policyRefusal(message, downloads)).toBeNull();
  });
  it("inside it, or denied, are left alone; `allow` elsewhere is refused, not replaced", () => {
    expect(redirectedDownloads({ method: "Browser.setDownloadBehavior", params: { behavior: "allow", downloadPath: `${downloads}/x` } }, downloads)).toBeNull();
    expect(redirectedDownloads({ method: "Browser.setDownloadBehavior", params: { behavior: "deny" } }, downloads)).toBeNull();
    expect(redirectedDownloads({ method: "Browser.setDownloadBehavior", params: { behavior: "allow", downloadPath: "/etc" } }, downloads)).toBeNull();
  });
});

describe("the client→Chromium frame filter", () => {
  // A real WebSocket client and server with the filter spliced into the client→server direction.
  let server: WebSocketServer;
  let relay: net.Server;
  let relayPort: number;
  const received: string[] = [];
  const refused: string[] = [];
  const configured: Array<string | null> = [];

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
    server.on("connection", (ws) => ws.on("message", (data) => {
      received.push(data.toString());
      ws.send(data.toString());
    }));
    await new Promise((r) => server.once("listening", r));
    const upstreamPort = (server.address() as net.AddressInfo).port;
    relay = net.createServer((client) => {
      const upstream = net.connect({ host: "127.0.0.1", port: upstreamPort });
      // The HTTP upgrade goes through as is (the proxy writes its own); frames after it are filtered.
      let head = Buffer.alloc(0);
      const onHandshake = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        client.off("data", onHandshake);
        upstream.write(head.subarray(0, end + 4));
        const filter = new CdpClientFilter({
          downloads,
          onRefused: (method, reason) => refused.push(`${method}: ${reason}`),
          onDownloadBehaviour: (context) => configured.push(context),
        });
        filter.pipe(upstream);
        if (head.length > end + 4) filter.write(head.subarray(end + 4));
        client.pipe(filter);
      };
      client.on("data", onHandshake);
      upstream.pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, "127.0.0.1", () => r()));
    relayPort = (relay.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    relay?.close();
    server?.close();
  });

  async function roundTrip(send: (ws: WebSocket) => void, expected: number): Promise<string[]> {
    received.length = 0;
    const ws = new WebSocket(`ws://127.0.0.1:${relayPort}/`, { perMessageDeflate: false });
    const echoes: string[] = [];
    await new Promise((r) => ws.once("open", r));
    const all = new Promise<void>((resolve) => ws.on("message", (d) => {
      echoes.push(d.toString());
      if (echoes.length === expected) resolve();
    }));
    send(ws);
    await all;
    ws.close();
    return echoes;
  }

  it("passes every size of message and fragmented messages through unchanged", async () => {
    const messages = [
      JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { expression: "1+1" } }),
      JSON.stringify({ id: 2, method: "Runtime.evaluate", params: { expression: "x".repeat(300) } }),
      JSON.stringify({ id: 3, method: "Runtime.evaluate", params: { expression: "y".repeat(70_000) } }),
      JSON.stringify({ id: 4, method: "Runtime.evaluate", params: { expression: "'é✓'.repeat(5000)" } }),
    ];
    const echoes = await roundTrip((ws) => {
      for (const m of messages) ws.send(m);
      // One message in three fragments, with a ping between them.
      ws.send('{"id":5,"method":"Page.', { fin: false });
      ws.ping();
      ws.send('navigate","params":{"url":"https://', { fin: false });
      ws.send('example.com/"}}', { fin: true });
    }, 5);
    expect(echoes).toEqual([...messages, '{"id":5,"method":"Page.navigate","params":{"url":"https://example.com/"}}']);
    expect(refused).toEqual([]);
  });

  it("replaces a refused command by a stand-in with the same id and sessionId, even when fragmented", async () => {
    refused.length = 0;
    const echoes = await roundTrip((ws) => {
      ws.send(JSON.stringify({ id: 7, sessionId: "S1", method: "Page.navigate", params: { url: "file:///etc/passwd" } }));
      ws.send('{"id":8,"method":"Target.createTarget","params":{"url":"chr', { fin: false });
      ws.send('ome://version"}}', { fin: true });
      ws.send(JSON.stringify({ id: 9, method: "Runtime.evaluate", params: { expression: "2" } }));
    }, 3);
    const [first, second, third] = echoes.map((e) => JSON.parse(e) as { id: number; method: string; sessionId?: string; params: unknown });
    expect(first).toMatchObject({ id: 7, sessionId: "S1", params: {} });
    expect(first!.method).toMatch(/^Vessel\.policy: Page\.navigate refused: file: /);
    expect(JSON.stringify(first)).not.toContain("/etc/passwd");
    expect(second!.id).toBe(8);
    expect(second!.method).toMatch(/^Vessel\.policy: Target\.createTarget refused/);
    expect(third).toEqual({ id: 9, method: "Runtime.evaluate", params: { expression: "2" } });
    expect(refused).toHaveLength(2);
  });

  it("sends a download folder outside the session's own as the session's own", async () => {
    const [echo] = await roundTrip((ws) => {
      ws.send(JSON.stringify({ id: 11, method: "Browser.setDownloadBehavior", params: { behavior: "allowAndName", downloadPath: "/etc", eventsEnabled: true } }));
    }, 1);
    expect(JSON.parse(echo!)).toEqual({ id: 11, method: "Browser.setDownloadBehavior", params: { behavior: "allowAndName", downloadPath: downloads, eventsEnabled: true } });
  });

  it("tells which browser contexts a client set a download behaviour for, and not the refused ones", async () => {
    configured.length = 0;
    await roundTrip((ws) => {
      ws.send(JSON.stringify({ id: 12, method: "Browser.setDownloadBehavior", params: { behavior: "allowAndName", downloadPath: "/x", browserContextId: "CTX1" } }));
      ws.send(JSON.stringify({ id: 13, method: "Browser.setDownloadBehavior", params: { behavior: "deny" } }));
      ws.send(JSON.stringify({ id: 14, method: "Browser.setDownloadBehavior", params: { behavior: "allow", downloadPath: "/etc", browserContextId: "CTX2" } }));
    }, 3);
    expect(configured).toEqual(["CTX1", null]);
  });
});
