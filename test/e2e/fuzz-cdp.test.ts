import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { closeCodeIn, mutate, mutatedFrames, rawConversation, Rng, websocketHeaders, wsFrame } from "../support/fuzz.ts";
import { createSession, releaseSession, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

// Issue 18, the CDP relay: malformed, binary, fragmented and oversized frames over real WebSockets
// to a real session's connect_url (fixed seed), a 16 MiB message, and a 300 MiB frame. The relay
// must answer or close with a code (never 1006 or 1011), the node must keep answering /healthz, and
// another session's CDP, and the fuzzed session's own browser, must keep working. No timing is asserted.

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const SEED = 0xcdf00d;
const MiB = 1024 * 1024;

/** One CDP command and its answer over an ordinary client (what Puppeteer and Playwright use). */
async function roundTrip(url: string, message: Record<string, unknown> = { id: 1, method: "Browser.getVersion" }): Promise<Record<string, unknown>> {
  const ws = new WebSocket(url, { maxPayload: 256 * MiB });
  try {
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    ws.send(JSON.stringify(message));
    const data = await new Promise<WebSocket.RawData>((resolve, reject) => {
      ws.on("message", (d) => {
        if ((JSON.parse(String(d)) as { id?: unknown }).id === message.id) resolve(d);
      });
      ws.once("close", (code) => reject(new Error(`closed with ${code} before answering`)));
    });
    return JSON.parse(String(data)) as Record<string, unknown>;
  } finally {
    ws.close();
  }
}

const version = async (url: string) => ((await roundTrip(url)).result as { product: string }).product;

describe.skipIf(!hasChromium)("the CDP relay takes malformed and oversized frames (real Chromium)", () => {
  let t: TestApp;
  let ws: Seeded;
  let fuzzed: SessionBody;
  let other: SessionBody;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "3" } });
    ws = await seedWorkspace(t, { rateLimitPerMinute: 100_000 });
    port = Number(new URL(t.url).port);
    fuzzed = (await createSession(t, ws.key)).body;
    other = (await createSession(t, ws.key)).body;
    expect([fuzzed.status, other.status]).toEqual(["RUNNING", "RUNNING"]);
  });
  afterAll(async () => {
    if (fuzzed) await releaseSession(t, ws.key, fuzzed.id);
    if (other) await releaseSession(t, ws.key, other.id);
    await t?.stop();
  });

  /** The node answers, the other session's CDP answers, and the fuzzed session's browser still answers a new client. */
  async function allStillAnswer(when: string): Promise<void> {
    expect((await fetch(`${t.url}/healthz`)).status, when).toBe(200);
    expect(await version(other.connect_url!), when).toMatch(/Chrom/);
    expect(await version(fuzzed.connect_url!), when).toMatch(/Chrom/);
  }

  it("malformed, binary, fragmented and oversized frames: answered with CDP errors or closed with a code, never a crash", async () => {
    const target = new URL(fuzzed.connect_url!);
    const handshake = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: vessel.test\r\n${websocketHeaders}\r\n`);
    const commands = [
      '{"id":1,"method":"Browser.getVersion"}',
      '{"id":2,"method":"Target.getTargets","params":{}}',
      '{"id":3,"method":"Target.setDiscoverTargets","params":{"discover":true}}',
      '{"id":4,"method":"Target.attachToTarget","params":{"targetId":"x","flatten":true}}',
      '{"id":5,"method":"Runtime.evaluate","params":{"expression":"1+1"},"sessionId":"nope"}',
      '{"id":6,"method":"Browser.setDownloadBehavior","params":{"behavior":"allow","downloadPath":"/tmp"}}',
      '{"id":7,"method":"Target.createTarget","params":{"url":"file:///etc/passwd"}}',
      '{"id":9007199254740993,"method":"Browser.getVersion"}',
      "[1,2,3]",
      '"just a string"',
    ];
    const rng = new Rng(SEED);
    const failures: string[] = [];
    const total = 600;
    for (let done = 0; done < total; done += 100) {
      let next = 0;
      const cases = Array.from({ length: 100 }, () => mutatedFrames(rng, rng.chance(0.2) ? commands.map((c) => mutate(rng, c)) : commands));
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < cases.length) {
            const c = cases[next++]!;
            const answer = await rawConversation(port, [{ send: handshake }, { send: c.bytes, after: " 101 " }]);
            const code = closeCodeIn(answer.body);
            if (answer.status !== 101) failures.push(`${c.what} → handshake answered ${answer.status}`);
            else if (code === 1006 || code === 1011) failures.push(`${c.what} → closed with ${code}`);
          }
        }),
      );
      await allStillAnswer(`after cases ${done}–${done + 100}`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
  }, 600_000);

  it("relays a 16 MiB message (or refuses it by policy) without harm", async () => {
    const list = (await (await fetch(`${t.url}/cdp/json/list?token=${new URL(fuzzed.connect_url!).searchParams.get("token")}`)).json()) as Array<{
      type: string;
      webSocketDebuggerUrl: string;
    }>;
    const page = list.find((x) => x.type === "page")!.webSocketDebuggerUrl;
    const literal = "a".repeat(16 * MiB);
    const answer = await roundTrip(page, { id: 16, method: "Runtime.evaluate", params: { expression: `'${literal}'.length`, returnByValue: true } });
    const relayed = (answer.result as { result?: { value?: unknown } } | undefined)?.result?.value === literal.length;
    const refused = /Vessel policy/.test(String((answer.error as { message?: string } | undefined)?.message));
    expect(relayed || refused, JSON.stringify(answer).slice(0, 300)).toBe(true);
    await allStillAnswer("after the 16 MiB message");
  }, 120_000);

  it("closes a 300 MiB frame with 1009 as soon as it is announced; the node and the other session go on", async () => {
    const target = new URL(fuzzed.connect_url!);
    const socket = net.connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (d: Buffer) => received.push(d));
    socket.on("error", () => {}); // the server resets what is still on its way once it has closed
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: vessel.test\r\n${websocketHeaders}\r\n`);
    await new Promise<void>((resolve) => {
      const check = () => (Buffer.concat(received).includes(" 101 ") ? resolve() : socket.once("data", check));
      check();
    });
    // The frame as a client sends it: the header announcing 300 MiB, then the payload, streamed until the server closes.
    const size = 300 * MiB;
    socket.write(wsFrame({ opcode: 1, payload: Buffer.alloc(0), length: size }).subarray(0, 14));
    const chunk = Buffer.alloc(MiB, 0x61);
    let sent = 0;
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      const pump = () => {
        while (sent < size && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once("drain", pump);
        }
        socket.end();
      };
      pump();
    });
    const all = Buffer.concat(received);
    expect(closeCodeIn(all.subarray(all.indexOf("\r\n\r\n") + 4))).toBe(1009);
    await allStillAnswer("after the 300 MiB frame");
  }, 300_000);
});
