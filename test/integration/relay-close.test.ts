import type { IncomingMessage } from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { forwardUpgrade } from "../../src/cluster/forward.ts";
import { InternalAuth } from "../../src/peers/internal-auth.ts";
import type { RelayedConnection } from "../../src/cluster/relayed-connection.ts";
import { eventually } from "../support/sessions.ts";

/**
 * A relayed WebSocket closed by the relaying node (a stop after a drain: 1001): a real `ws` client
 * and a real `ws` server on either side, a relay (cluster/forward.ts) in between. Each side gets a
 * close frame, written between two frames of the stream, never inside one: a client in the middle
 * of a large message still reads that message whole, then 1001.
 */

interface Setup {
  client: WebSocket;
  server: WebSocket;
  relayed: RelayedConnection;
  serverClosed: Promise<number>;
  stop(): Promise<void>;
}

async function relayed(): Promise<Setup> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", maxPayload: 64 * 1024 * 1024 });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const ownerPort = (wss.address() as net.AddressInfo).port;
  const serverSide = new Promise<WebSocket>((r) => wss.once("connection", (s) => r(s)));
  let tracked: RelayedConnection | undefined;
  // The relaying node: a plain TCP server whose upgrade requests go through forwardUpgrade.
  const front = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buffered = Buffer.concat([buffered, d]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      socket.pause();
      const lines = buffered.subarray(0, end).toString("latin1").split("\r\n");
      const [method, url] = lines[0]!.split(" ");
      const rawHeaders = lines.slice(1).flatMap((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]);
      const req = { method, url, rawHeaders } as unknown as IncomingMessage;
      void forwardUpgrade(
        new InternalAuth(Buffer.alloc(32, 1), "relay"),
        { id: "owner", internalUrl: `http://127.0.0.1:${ownerPort}`, region: "us-east1", capacity: 1, freeSlots: 1, draining: false, alive: true },
        req,
        "198.51.100.4",
        socket,
        buffered.subarray(end + 4),
        { track: (c) => (tracked = c), check: async () => "held", stallMs: 60_000, connectMs: 2000 },
      ).then(() => socket.resume());
    };
    socket.on("data", onData);
  });
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", () => r()));
  const client = new WebSocket(`ws://127.0.0.1:${(front.address() as net.AddressInfo).port}/cdp`, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  client.on("error", () => {});
  await new Promise<void>((r, j) => (client.once("open", () => r()), client.once("unexpected-response", () => j(new Error("refused")))));
  const server = await serverSide;
  const serverClosed = new Promise<number>((r) => server.once("close", (code) => r(code)));
  return {
    client,
    server,
    relayed: tracked!,
    serverClosed,
    async stop() {
      client.terminate();
      await new Promise((r) => wss.close(r));
      await new Promise((r) => front.close(r));
    },
  };
}

describe("a relay closes a relayed WebSocket with 1001, between frames", () => {
  it("in the middle of a large message from the owner: the client reads it whole, then 1001; the owner gets 1001 too", async () => {
    const s = await relayed();
    try {
      const received: number[] = [];
      s.client.on("message", (data: Buffer) => received.push(data.length));
      const clientClosed = new Promise<number>((r) => s.client.once("close", (code) => r(code)));
      const big = Buffer.alloc(8 * 1024 * 1024, 1);
      // The client reads nothing yet, so the relay (which waits for the client's socket to drain)
      // holds the message mid-frame however fast this machine is; on a quiet one the whole message
      // used to pass before the first look, and the close never began mid-frame.
      s.client.pause();
      s.server.send(big);
      // The message is on its way through the relay when the close begins.
      await eventually(
        async () => s.relayed.clientAtBoundary,
        (atBoundary) => !atBoundary,
        5_000,
      );
      const closing = s.relayed.close(1001, "the server is shutting down");
      s.client.resume();
      expect(await clientClosed).toBe(1001);
      expect(received).toEqual([big.length]);
      expect(await s.serverClosed).toBe(1001);
      await closing;
    } finally {
      await s.stop();
    }
  }, 30_000);

  it("messages both ways before the close arrive; afterwards both sides see 1001, none 1006", async () => {
    const s = await relayed();
    try {
      const atServer: string[] = [];
      s.server.on("message", (d: Buffer) => atServer.push(d.toString()));
      const atClient = new Promise<string>((r) => s.client.once("message", (d: Buffer) => r(d.toString())));
      s.client.send("ping");
      s.server.send("pong");
      expect(await atClient).toBe("pong");
      await eventually(
        async () => atServer,
        (m) => m.includes("ping"),
      );
      const clientClosed = new Promise<number>((r) => s.client.once("close", (code) => r(code)));
      await s.relayed.close(1001, "the server is shutting down");
      expect([await clientClosed, await s.serverClosed]).toEqual([1001, 1001]);
    } finally {
      await s.stop();
    }
  });
});
