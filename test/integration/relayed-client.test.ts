import type { IncomingMessage } from "node:http";
import net from "node:net";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forwardUpgrade } from "../../src/cluster/forward.ts";
import { InternalAuth } from "../../src/peers/internal-auth.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

/**
 * The client address across a relay between nodes (cluster/forward.ts): the relaying node writes
 * the client as it resolved it, in place of anything the client sent, and the owner believes that
 * address only when the relay's signature verifies for it.
 */

describe("the client address of a relayed request", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  const ipOfLastHealth = async () => {
    await t.app.deps.audit.flush();
    const [entry] = await t.app.deps.db.prisma.auditEntry.findMany({ where: { keyPrefix: ws.prefix, action: "health.get" }, orderBy: { id: "desc" }, take: 1 });
    return entry?.ip;
  };
  const health = (headers: Record<string, string>) => fetch(`${t.url}/v1/health`, { headers: { ...bearer(ws.key), ...headers } });

  it("the owner believes X-Forwarded-For only under a peer's signature for it", async () => {
    // No trusted proxies here: a client's own header is ignored.
    expect((await health({ "x-forwarded-for": "203.0.113.9" })).status).toBe(200);
    expect(await ipOfLastHealth()).toBe("127.0.0.1");
    // Signed by a node (the same master key) for this node: the relayed client's address.
    const signed = t.app.cluster.auth.sign(t.app.deps.nodeId, "GET", "/v1/health");
    expect((await health({ ...signed, "x-forwarded-for": "203.0.113.9" })).status).toBe(200);
    expect(await ipOfLastHealth()).toBe("203.0.113.9");
    // Signed for another node, or by another master key: ignored.
    expect((await health({ ...t.app.cluster.auth.sign("another-node", "GET", "/v1/health"), "x-forwarded-for": "203.0.113.10" })).status).toBe(200);
    expect(await ipOfLastHealth()).toBe("127.0.0.1");
    const stranger = new InternalAuth(Buffer.alloc(32, 9), "stranger");
    expect((await health({ ...stranger.sign(t.app.deps.nodeId, "GET", "/v1/health"), "x-forwarded-for": "203.0.113.11" })).status).toBe(200);
    expect(await ipOfLastHealth()).toBe("127.0.0.1");
  });

  it("a relayed upgrade carries the client the relaying node resolved, never the client's own header", async () => {
    let head = "";
    const owner = net.createServer((s) => s.on("data", (d) => (head += d.toString("latin1"))));
    await new Promise<void>((r) => owner.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (owner.address() as net.AddressInfo).port;
      const auth = new InternalAuth(Buffer.alloc(32, 1), "relay");
      const req = {
        method: "GET",
        url: "/cdp?token=x",
        rawHeaders: ["Host", "vessel.example", "X-Forwarded-For", "6.6.6.6", "x-vessel-signature", "forged", "Upgrade", "websocket"],
      } as unknown as IncomingMessage;
      const client = new PassThrough();
      await forwardUpgrade(
        auth,
        { id: "owner", internalUrl: `http://127.0.0.1:${port}`, region: "us-east1", capacity: 1, freeSlots: 1, draining: false, alive: true },
        req,
        "198.51.100.4",
        client,
        Buffer.alloc(0),
        { track: () => {}, check: async () => "held", stallMs: 60_000, connectMs: 5_000 },
      );
      while (!head.includes("\r\n\r\n")) await new Promise((r) => setTimeout(r, 10));
      const lines = head.split("\r\n");
      expect(lines.filter((l) => /^x-forwarded-for:/i.test(l))).toEqual(["X-Forwarded-For: 198.51.100.4"]);
      expect(lines.filter((l) => /^x-vessel-signature:/i.test(l))).toHaveLength(1);
      expect(head).not.toContain("forged");
      client.destroy();
    } finally {
      owner.close();
    }
  });
});
