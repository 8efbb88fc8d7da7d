import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { relayFolder, sharedRelayHost } from "../../src/browser/cdp/relay/host.ts";
import { HOST_CALL_IDS, PipeMux, type Control } from "../../src/browser/cdp/relay/mux.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";
import { createSession, eventually, getSession, handshake } from "../support/sessions.ts";

// The relay host (src/browser/cdp/relay/host.ts): a session's CDP client is relayed by a process of
// its own, so its commands reach the browser while the node's main thread is busy. Checked with a
// real client in a process of its own (test/support/cdp-pinger.ts: a command every 20 ms, each
// reporting the browser's clock when it ran) while this thread is held for 1.5 s; the node's
// relay (`inline`) is the contrast, and shows the check can fail.

const cleanups: (() => unknown)[] = [];

/** The relay hosts an app's browsers go to (the process shares them between apps of one count). */
const hostsOf = (t: TestApp) => sharedRelayHost(t.app.deps.log, t.app.deps.config.browser.cdpRelayHosts);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The browser-clock times of the pinger's commands that ran while this thread was held. */
async function commandsRunWhileBlocked(relay: "process" | "inline"): Promise<{ during: number; total: number }> {
  const t: TestApp = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_CDP_RELAY: relay } });
  cleanups.push(() => t.stop());
  const seeded = await seedWorkspace(t);
  const { body } = await createSession(t, seeded.key);
  expect(body.connect_url).toMatch(/^ws:/);
  const pinger = spawn(process.execPath, ["--import", "tsx", "test/support/cdp-pinger.ts", body.connect_url!, "20"], { stdio: ["ignore", "pipe", "inherit"] });
  cleanups.push(() => pinger.kill("SIGKILL"));
  const ran: number[] = [];
  let buffered = "";
  pinger.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const line = JSON.parse(buffered.slice(0, nl)) as { ran?: number };
      buffered = buffered.slice(nl + 1);
      if (typeof line.ran === "number") ran.push(line.ran);
    }
  });
  const deadline = Date.now() + 20_000;
  while (ran.length < 10) {
    if (Date.now() > deadline) throw new Error("the pinger's commands did not run");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Holds this thread: nothing of the node runs (the API, timers, any relay on this loop).
  const from = Date.now();
  while (Date.now() - from < 1_500);
  const to = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 500));
  // A margin on both sides: commands sent before the hold, and answered as it ends, do not count.
  return { during: ran.filter((at) => at > from + 200 && at < to - 200).length, total: ran.length };
}

describe("the CDP relay in a process of its own", () => {
  it("process: a client's commands reach the browser while the node's main thread is held", async () => {
    const { during } = await commandsRunWhileBlocked("process");
    // About 55 in 1.1 s at one per 20 ms; a busy machine runs fewer.
    expect(during).toBeGreaterThan(5);
  });

  it("inline (the contrast): none reach it while the thread is held", async () => {
    const { during, total } = await commandsRunWhileBlocked("inline");
    expect(total).toBeGreaterThan(10);
    expect(during).toBe(0);
  });
});

/** One raw WebSocket handshake to `connectUrl`, then `Browser.getVersion` in a masked frame; resolves with the answer's text. */
function rawCall(connectUrl: string, firstWithHandshake: boolean): Promise<string> {
  const url = new URL(connectUrl);
  const payload = Buffer.from(JSON.stringify({ id: 1, method: "Browser.getVersion" }));
  const mask = Buffer.from([1, 2, 3, 4]);
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((b, i) => b ^ mask[i % 4]!)]);
  const handshake = Buffer.from(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const timer = setTimeout(() => (socket.destroy(), reject(new Error("no answer"))), 10_000);
    let got = Buffer.alloc(0);
    socket.on("error", reject);
    socket.once("connect", () => socket.write(firstWithHandshake ? Buffer.concat([handshake, frame]) : handshake));
    socket.on("data", (chunk: Buffer) => {
      const before = got.length;
      got = Buffer.concat([got, chunk]);
      const headersEnd = got.indexOf("\r\n\r\n");
      // The command goes the moment the 101 is read, as a client on a fast path sends it.
      if (!firstWithHandshake && before === 0 && headersEnd !== -1) socket.write(frame);
      const text = got.toString("latin1");
      if (text.includes('"product"')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text.slice(headersEnd + 4));
      }
    });
  });
}

describe("a client's handshake handed to the relay host", () => {
  it("loses no byte: a command sent with the handshake, or the moment the 101 is read, is answered; a page the browser lacks is refused 404", async () => {
    const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_CDP_RELAY: "process" } });
    cleanups.push(() => t.stop());
    const seeded = await seedWorkspace(t);
    const { body } = await createSession(t, seeded.key);
    for (let i = 0; i < 10; i++) {
      expect(await rawCall(body.connect_url!, i % 2 === 0)).toContain("Chrome");
    }
    // Refused by the host (no such page in this browser) with the node's problem document, and the session's clients still work.
    const url = new URL(body.connect_url!);
    expect(await handshake(`${url.origin}/cdp/devtools/page/ABCDEF0123${url.search}`)).toBe(404);
    expect(await rawCall(body.connect_url!, false)).toContain("Chrome");
  });
});

describe("the relay host's own socket, from a local process without a browser's key", () => {
  it("closes a connection that does not start with a hello, and gives one with an unknown key nothing of any browser", async () => {
    const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_CDP_RELAY: "process" } });
    cleanups.push(() => t.stop());
    const seeded = await seedWorkspace(t);
    const { body } = await createSession(t, seeded.key);
    const socketPath = hostsOf(t).socketPaths[0]!;
    expect((fs.statSync(path.dirname(socketPath)).mode & 0o777).toString(8)).toBe("700");
    const open = (first: string) => {
      const socket = net.connect(socketPath);
      cleanups.push(() => socket.destroy());
      const got: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => got.push(chunk));
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.on("error", () => {});
      socket.write(first);
      return { got, closed };
    };
    // CDP straight away, no hello: cut, unanswered.
    const raw = open('{"id":1,"method":"Browser.getVersion","params":{}}\0');
    await raw.closed;
    expect(Buffer.concat(raw.got).length).toBe(0);
    // A well-formed hello with a key no browser has, then CDP: nothing comes back while the session's own client is answered.
    const guess = open(
      `{"vessel":"hello","key":"${"ab".repeat(32)}"}\0{"id":1,"method":"Browser.getVersion","params":{}}\0{"id":2,"method":"Target.getTargets","params":{}}\0`,
    );
    expect(await rawCall(body.connect_url!, false)).toContain("Chrome");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(Buffer.concat(guess.got).length).toBe(0);
    expect((await getSession(t, seeded.key, body.id)).status).toBe("RUNNING");
  });
});

describe("when the relay host goes", () => {
  it("its browsers' sessions fail as crashed (they lost their only connection), and the next session gets a new host", async () => {
    const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_CDP_RELAY: "process", VESSEL_CDP_RELAY_HOSTS: "1" } });
    cleanups.push(() => t.stop());
    const seeded = await seedWorkspace(t);
    const { body } = await createSession(t, seeded.key);
    expect(body.status).toBe("RUNNING");
    const host = hostsOf(t); // this app's, shared by the process
    const folder = path.dirname(host.socketPaths[0]!);
    expect(fs.existsSync(folder)).toBe(true);
    host.stop(); // SIGKILL
    const ended = await eventually(
      () => getSession(t, seeded.key, body.id),
      (s) => s.status !== "RUNNING",
    );
    expect([ended.status, ended.end_reason]).toEqual(["FAILED", "browser_crash"]);
    // Its folder (the link's socket) went with it, though it could not remove it itself.
    expect(
      await eventually(
        async () => fs.existsSync(folder),
        (exists) => !exists,
      ),
    ).toBe(false);
    const next = await createSession(t, seeded.key);
    expect(next.body.status).toBe("RUNNING");
    const pinger = spawn(process.execPath, ["--import", "tsx", "test/support/cdp-pinger.ts", next.body.connect_url!, "50"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    cleanups.push(() => pinger.kill("SIGKILL"));
    const firstLine = await new Promise<string>((resolve) => pinger.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8"))));
    expect(firstLine).toContain('"ready":true');
  });

  it("with two hosts, two sessions' browsers are on different ones: killing one host fails its session only", async () => {
    const t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "2", VESSEL_CDP_RELAY: "process", VESSEL_CDP_RELAY_HOSTS: "2" } });
    cleanups.push(() => t.stop());
    const seeded = await seedWorkspace(t);
    const host = hostsOf(t);
    expect(host.count).toBe(2);
    // The two spares started side by side, one on each host.
    await eventually(
      async () => host.pids.length,
      (n) => n === 2,
    );
    const [a, b] = await Promise.all([createSession(t, seeded.key), createSession(t, seeded.key)]);
    for (const s of [a, b]) expect(await rawCall(s.body.connect_url!, false)).toContain("Chrome");
    process.kill(host.pids[0]!, "SIGKILL");
    const ended = await eventually(
      () => Promise.all([a, b].map((s) => getSession(t, seeded.key, s.body.id))),
      (both) => both.some((s) => s.status !== "RUNNING"),
    );
    // Exactly one failed; the other's client is still relayed, by the other host.
    expect(ended.map((s) => s.status).sort()).toEqual(["FAILED", "RUNNING"]);
    const survivor = [a, b][ended.findIndex((s) => s.status === "RUNNING")]!;
    expect(await rawCall(survivor.body.connect_url!, false)).toContain("Chrome");
    expect((await getSession(t, seeded.key, survivor.body.id)).status).toBe("RUNNING");
  });
});

/** A mux over fake browser pipe ends and a real socket pair for the node's link. */
async function mux() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-mux-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(path.join(dir, "s"), resolve));
  cleanups.push(() => server.close());
  const hostSide = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  const node = net.connect(path.join(dir, "s"));
  cleanups.push(() => node.destroy());
  const link = await hostSide;
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const controls: Control[] = [];
  const m = new PipeMux(toBrowser, fromBrowser, link, (c) => controls.push(c));
  const browserGot: string[] = [];
  toBrowser.on("data", (chunk: Buffer) => browserGot.push(...chunk.toString("utf8").split("\0").filter(Boolean)));
  const nodeGot: string[] = [];
  node.on("data", (chunk: Buffer) => nodeGot.push(...chunk.toString("utf8").split("\0").filter(Boolean)));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  return { m, node, fromBrowser, controls, browserGot, nodeGot, settle };
}

describe("the relay host's mux of one browser pipe", () => {
  it("the node's CDP goes to the browser as sent; its control messages never do", async () => {
    const { node, controls, browserGot, settle } = await mux();
    node.write('{"id":1,"method":"Browser.getVersion","params":{}}\0{"vessel":"ahead"}\0{"id":2,"method":"Target.getTargets","params":{}}\0');
    await settle();
    expect(browserGot).toEqual(['{"id":1,"method":"Browser.getVersion","params":{}}', '{"id":2,"method":"Target.getTargets","params":{}}']);
    expect(controls).toEqual([{ vessel: "ahead" }]);
  });

  it("a browser cannot pass a control message to the node; its other messages go by who asked", async () => {
    const { m, fromBrowser, nodeGot, settle } = await mux();
    const hostCall = m.pipe.call("Browser.getVersion");
    fromBrowser.write('{"vessel":"closed","client":"x"}\0');
    fromBrowser.write(`{"id":${HOST_CALL_IDS},"result":{"product":"host's"}}\0`);
    fromBrowser.write('{"id":7,"result":{"product":"node\'s"}}\0{"method":"Target.targetCreated","params":{}}\0');
    expect(await hostCall).toEqual({ product: "host's" });
    await settle();
    expect(nodeGot).toEqual(['{"id":7,"result":{"product":"node\'s"}}', '{"method":"Target.targetCreated","params":{}}']);
  });

  it("a session's messages go to the host when one of its channels holds the session, else to the node", async () => {
    const { m, fromBrowser, nodeGot, settle } = await mux();
    const hosts = "a".repeat(32);
    const nodes = "b".repeat(32);
    const opened = m.pipe.open();
    fromBrowser.write(`{"id":${HOST_CALL_IDS},"result":{"sessionId":"${hosts}"}}\0`);
    const channel = await opened;
    const got: string[] = [];
    channel.onMessage = (message) => got.push(message.toString("utf8"));
    fromBrowser.write(`{"id":3,"result":{},"sessionId":"${hosts}"}\0{"id":4,"result":{},"sessionId":"${nodes}"}\0`);
    await settle();
    expect(got).toEqual(['{"id":3,"result":{}}']);
    expect(nodeGot).toEqual([`{"id":4,"result":{},"sessionId":"${nodes}"}`]);
  });
});

describe("the folder the node removes when its relay host goes", () => {
  it("is only ever a vessel-relay-XXXXXX folder in the temp folder, whatever socket path the host names", () => {
    const tmp = os.tmpdir();
    expect(relayFolder(path.join(tmp, "vessel-relay-Ab12Cd", "link.sock"))).toBe(path.join(tmp, "vessel-relay-Ab12Cd"));
    for (const named of [
      "/",
      "/link.sock",
      path.join(tmp, "link.sock"),
      path.join(tmp, "vessel-relay-Ab12Cd"),
      path.join(tmp, "vessel-relay-Ab12Cd", "deeper", "link.sock"),
      path.join(tmp, "vessel-relay-Ab12Cd", "..", "x", "link.sock"),
      path.join(tmp, "other-Ab12Cd", "link.sock"),
      "/var/lib/vessel/vessel-relay-Ab12Cd/link.sock",
      "vessel-relay-Ab12Cd/link.sock",
    ])
      expect(relayFolder(named), named).toBeUndefined();
  });
});
