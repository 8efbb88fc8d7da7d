import { createHash, randomBytes } from "node:crypto";
import net from "node:net";

/** RFC 6455 §1.3: the value a server answers a client's Sec-WebSocket-Key with. */
export function acceptFor(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/** A Sec-WebSocket-Key as RFC 6455 §4.1 has it: 16 bytes, base64. */
export const isWebSocketKey = (key: string | undefined): key is string => typeof key === "string" && /^[A-Za-z0-9+/]{22}==$/.test(key);

/**
 * A WebSocket connection to a browser's DevTools endpoint (`path` on 127.0.0.1:`port`), handshake
 * done with a key of its own and Chromium's answer checked, paused for its future client: the socket,
 * or undefined when the browser did not answer as it should within `timeoutMs`.
 *
 * Why: a session's first CDP client would otherwise wait, after its own handshake reached this
 * process, for a connection to the browser and the browser's answer (about a millisecond on these
 * machines, more when the browser's IO thread is idle). With a connection opened as the session
 * starts, the proxy answers the client's handshake itself (cdp-proxy.ts) and frames flow at once.
 * Frames pass through unchanged either way: both handshakes leave out extensions and subprotocols.
 */
export function openUpstream(port: number, path: string, timeoutMs = 2_000): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const key = randomBytes(16).toString("base64");
    const socket = net.connect({ host: "127.0.0.1", port, noDelay: true });
    let head = Buffer.alloc(0);
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", fail);
      socket.off("close", fail);
      if (!ok) {
        socket.destroy();
        return resolve(undefined);
      }
      // While it waits for its client, a reset (the browser gone) must not throw: it just closes.
      socket.on("error", () => socket.destroy());
      socket.pause();
      resolve(socket);
    };
    const fail = () => finish(false);
    const timer = setTimeout(fail, timeoutMs);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return void (head.length > 16 * 1024 && fail());
      const lines = head.subarray(0, end).toString("latin1").split("\r\n");
      const accept = lines.find((l) => /^sec-websocket-accept:/i.test(l))?.replace(/^[^:]*:\s*/, "").trim();
      // Anything after the answer would be a frame nobody asked for: not from a browser we trust.
      if (!/^HTTP\/1\.1 101 /.test(lines[0] ?? "") || accept !== acceptFor(key) || head.length > end + 4) return fail();
      finish(true);
    };
    socket.on("data", onData);
    socket.once("error", fail);
    socket.once("close", fail);
    socket.once("connect", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
  });
}
