import type { IncomingMessage } from "node:http";
import net from "node:net";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { forwardUpgrade, type OwnerCheck } from "../../src/cluster/forward.ts";
import { InternalAuth } from "../../src/peers/internal-auth.ts";

/**
 * A relay between nodes after a stall (cluster/forward.ts): once the owner has been silent with the
 * client's bytes unanswered, the next bytes wait for the owner's lease to be confirmed, and are
 * dropped, with the client's socket closed 4503 (lease lost) or 1013 (unknown), when it is not.
 */

async function relayTo(answer: OwnerCheck | "ask") {
  const received: Buffer[] = [];
  // The owner accepts the handshake (101) and then only listens.
  const owner = net.createServer((s) => {
    s.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    s.on("data", (d: Buffer) => received.push(d));
  });
  await new Promise<void>((r) => owner.listen(0, "127.0.0.1", () => r()));
  const port = (owner.address() as net.AddressInfo).port;
  const req = { method: "GET", url: "/cdp?token=x", rawHeaders: ["Host", "vessel.example", "Upgrade", "websocket"] } as unknown as IncomingMessage;
  const client = new PassThrough();
  const toClient: Buffer[] = [];
  // What the relay writes to the client (PassThrough: both directions share the stream; the relay writes, the test reads).
  const checks: number[] = [];
  client.write = ((chunk: Buffer) => (toClient.push(Buffer.from(chunk)), true)) as typeof client.write;
  client.end = ((chunk?: Buffer) => {
    if (chunk) toClient.push(Buffer.from(chunk));
    return client;
  }) as typeof client.end;
  await forwardUpgrade(
    new InternalAuth(Buffer.alloc(32, 1), "relay"),
    { id: "owner", internalUrl: `http://127.0.0.1:${port}`, region: "us-east1", capacity: 1, freeSlots: 1, draining: false, alive: true },
    req,
    "198.51.100.4",
    client,
    Buffer.alloc(0),
    { track: () => {}, check: async () => (checks.push(Date.now()), answer === "ask" ? "held" : answer), stallMs: 100, connectMs: 2000 },
  );
  await new Promise((r) => setTimeout(r, 50)); // the 101 has reached the client
  const fromClient = (text: string) => client.emit("data", Buffer.from(text));
  const ownerGot = () => Buffer.concat(received).toString("latin1");
  return { owner, client, toClient, fromClient, ownerGot, checks };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a relayed connection after a stall", () => {
  it("bytes sent while the owner answers go on without a check", async () => {
    const r = await relayTo("lost");
    try {
      r.fromClient("one;");
      await settle(20);
      expect(r.ownerGot()).toContain("one;");
      expect(r.checks).toEqual([]);
    } finally {
      r.client.destroy();
      r.owner.close();
    }
  });

  it("after a stall, bytes wait for the lease and are dropped with 4503 when the owner lost it", async () => {
    const r = await relayTo("lost");
    try {
      r.fromClient("first;");
      await settle(250); // the owner says nothing: a stall
      r.fromClient("queued;");
      await settle(100);
      expect(r.checks).toHaveLength(1);
      expect(r.ownerGot()).toContain("first;");
      expect(r.ownerGot()).not.toContain("queued;");
      const frame = r.toClient.at(-1)!; // after the owner's 101
      expect(frame[0]).toBe(0x88);
      expect(frame.readUInt16BE(2)).toBe(4503);
    } finally {
      r.client.destroy();
      r.owner.close();
    }
  });

  it("after a stall, bytes go on once the lease is confirmed; an unknown answer closes with 1013", async () => {
    const held = await relayTo("held");
    try {
      held.fromClient("first;");
      await settle(250);
      held.fromClient("after;");
      await settle(100);
      expect(held.checks).toHaveLength(1);
      expect(held.ownerGot()).toContain("after;");
    } finally {
      held.client.destroy();
      held.owner.close();
    }
    const unknown = await relayTo("unknown");
    try {
      unknown.fromClient("first;");
      await settle(250);
      unknown.fromClient("after;");
      await settle(100);
      expect(unknown.ownerGot()).not.toContain("after;");
      expect(unknown.toClient.at(-1)!.readUInt16BE(2)).toBe(1013);
    } finally {
      unknown.client.destroy();
      unknown.owner.close();
    }
  });
});
