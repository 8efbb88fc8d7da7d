import net from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { acceptFor, isWebSocketKey, openUpstream } from "../../src/browser/cdp-upstream.ts";

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A loopback server that answers a WebSocket handshake with `answer(key)`. */
async function fakeBrowser(answer: (key: string) => string): Promise<number> {
  const server = net.createServer((socket) => {
    socket.once("data", (chunk) => {
      const key = /sec-websocket-key: *(\S+)/i.exec(chunk.toString("latin1"))?.[1] ?? "";
      socket.write(answer(key));
    });
    socket.on("error", () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

const ok = (accept: string) => `HTTP/1.1 101 WebSocket Protocol Handshake\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`;

describe("a connection opened ahead for a session's first CDP client", () => {
  test("answers a client's key as RFC 6455 does, and knows a key from anything else", () => {
    expect(acceptFor("dGhlIHNhbXBsZSBub25jZQ==")).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    expect(isWebSocketKey("dGhlIHNhbXBsZSBub25jZQ==")).toBe(true);
    for (const bad of [undefined, "", "short==", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ==\r\nX: y"]) expect(isWebSocketKey(bad)).toBe(false);
  });

  test("is kept only when the browser answers its own key, with nothing after the answer", async () => {
    const good = await openUpstream(await fakeBrowser((key) => ok(acceptFor(key))), "/devtools/browser/x");
    expect(good).toBeDefined();
    expect(good!.isPaused()).toBe(true);
    // The browser going away while it waits closes it, and throws nothing.
    const closed = new Promise((resolve) => good!.once("close", resolve));
    good!.emit("error", new Error("read ECONNRESET"));
    await closed;
    expect(good!.destroyed).toBe(true);
    expect(await openUpstream(await fakeBrowser(() => ok(acceptFor("dGhlIHNhbXBsZSBub25jZQ=="))), "/x")).toBeUndefined();
    expect(await openUpstream(await fakeBrowser((key) => `HTTP/1.1 200 OK\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`), "/x")).toBeUndefined();
    expect(await openUpstream(await fakeBrowser((key) => `${ok(acceptFor(key))}\x81\x02{}`), "/x")).toBeUndefined();
    // A browser that never answers, or is not there.
    expect(await openUpstream(await fakeBrowser(() => ""), "/x", 200)).toBeUndefined();
    const gone = await fakeBrowser(() => "");
    servers.pop()!.close();
    expect(await openUpstream(gone, "/x", 2_000)).toBeUndefined();
  });
});
