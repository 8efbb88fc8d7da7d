import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EgressPolicy, normalizeAddress } from "../../src/browser/egress/policy.ts";
import { openEgressListener } from "../../src/browser/egress/proxy.ts";
import { type EgressListener, type EgressRefusal, type EgressRoute } from "../../src/browser/egress/shared.ts";
import { createLogger } from "../../src/logger.ts";

const log = createLogger("silent");

describe("the egress policy", () => {
  const policy = new EgressPolicy();
  it.each([
    ["127.0.0.1"],
    ["127.8.9.10"],
    ["10.1.2.3"],
    ["172.16.0.1"],
    ["172.31.255.255"],
    ["192.168.1.1"],
    ["169.254.169.254"],
    ["100.64.0.1"],
    ["0.0.0.0"],
    ["224.0.0.1"],
    ["255.255.255.255"],
    ["::1"],
    ["::"],
    ["fe80::1"],
    ["fd00:ec2::254"],
    ["::ffff:127.0.0.1"],
    ["::ffff:7f00:1"],
    ["0:0:0:0:0:ffff:a9fe:a9fe"],
    ["[::ffff:10.0.0.1]"],
    ["64:ff9b::a00:1"],
    ["2002:7f00:1::"],
    ["::127.0.0.1"],
    ["::a9fe:a9fe"],
    ["::ffff:0:7f00:1"],
    ["::ffff:0:a00:1"],
    ["not-an-address"],
    [""],
  ])("refuses %s", (address) => {
    expect(policy.addressAllowed(address)).toBe(false);
  });
  it.each([["8.8.8.8"], ["93.184.216.34"], ["172.32.0.1"], ["2606:4700:4700::1111"], ["::ffff:8.8.8.8"]])("allows the public address %s", (address) => {
    expect(policy.addressAllowed(address)).toBe(true);
  });
  it("reads IPv4-mapped IPv6 as IPv4", () => {
    expect(normalizeAddress("::ffff:a9fe:a9fe")).toEqual({ address: "169.254.169.254", family: "ipv4" });
    expect(normalizeAddress("::FFFF:127.0.0.1")).toEqual({ address: "127.0.0.1", family: "ipv4" });
  });
  it("an allowlist opens exactly what it names", () => {
    const p = new EgressPolicy({ cidrs: ["127.0.0.2/32", "10.9.0.0/16"], hosts: ["fixture.test", "*.corp.example"] });
    expect(p.addressAllowed("127.0.0.2")).toBe(true);
    expect(p.addressAllowed("127.0.0.1")).toBe(false);
    expect(p.addressAllowed("10.9.200.1")).toBe(true);
    expect(p.addressAllowed("10.10.0.1")).toBe(false);
    expect(p.hostAllowed("FIXTURE.test.")).toBe(true);
    expect(p.hostAllowed("a.corp.example")).toBe(true);
    expect(p.hostAllowed("corp.example.evil")).toBe(false);
    expect(() => new EgressPolicy({ cidrs: ["10.0.0.0/33"], hosts: [] })).toThrow(/prefix/);
  });
});

/** A raw CONNECT through the proxy; resolves with the status line and, when tunnelled, the socket. */
function connectThrough(proxyPort: number, authority: string): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: proxyPort }, () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered)?.[1] ?? 0), socket });
    };
    socket.on("data", onData);
    socket.once("error", reject);
  });
}

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

describe("the egress proxy", () => {
  // 127.0.0.2 plays "the internet" (allowlisted); 127.0.0.1 is this node's own loopback (refused).
  let allowedServer: http.Server;
  let ownServer: http.Server;
  let allowedPort: number;
  let ownPort: number;
  const connectionsTo = { allowed: 0, own: 0 };
  const refusals: Array<{ route: EgressRoute; refusal: EgressRefusal }> = [];
  let proxy: EgressListener;
  const names: Record<string, string[]> = {
    "rebind.test": ["10.0.0.7", "127.0.0.1"],
    "mixed.test": ["127.0.0.1", "127.0.0.2"],
    "fixture.test": ["127.0.0.1"],
  };

  beforeAll(async () => {
    allowedServer = http.createServer((req, res) => res.end(`allowed ${req.method} ${req.url} host=${req.headers.host}`));
    allowedServer.on("connection", () => connectionsTo.allowed++);
    ownServer = http.createServer((_req, res) => res.end("secret"));
    ownServer.on("connection", () => connectionsTo.own++);
    allowedPort = await listen(allowedServer, "127.0.0.2");
    ownPort = await listen(ownServer, "127.0.0.1");
    proxy = await openEgressListener({
      policy: new EgressPolicy({ cidrs: ["127.0.0.2/32"], hosts: [] }),
      log,
      resolve: async (host) => {
        const found = names[host];
        if (!found) throw new Error("ENOTFOUND");
        return found;
      },
      onRefused: (route, refusal) => refusals.push({ route, refusal }),
    });
    proxy.route.sessionId = "ses_test";
  });
  afterAll(async () => {
    await proxy?.close();
    allowedServer?.close();
    ownServer?.close();
  });
  afterEach(() => {
    refusals.length = 0;
    proxy.route.upstream = undefined;
  });

  it("tunnels to an allowed address", async () => {
    const { status, socket } = await connectThrough(proxy.port, `127.0.0.2:${allowedPort}`);
    expect(status).toBe(200);
    socket.write(`GET /hello HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n`);
    const body = await new Promise<string>((resolve) => {
      let text = "";
      socket.on("data", (c) => (text += c.toString()));
      socket.on("close", () => resolve(text));
    });
    expect(body).toContain("allowed GET /hello host=example.test");
    expect(refusals).toEqual([]);
  });

  it.each([
    ["the node's own loopback", () => `127.0.0.1:${ownPort}`],
    ["loopback as IPv4-mapped IPv6", () => `[::ffff:127.0.0.1]:${ownPort}`],
    ["IPv6 loopback", () => `[::1]:${ownPort}`],
    ["the cloud metadata address", () => "169.254.169.254:80"],
    ["a private network", () => "10.0.0.1:443"],
    ["a name that resolves only to private addresses (rebinding)", () => `rebind.test:${ownPort}`],
  ])("refuses %s with 403 and reports it, connecting nowhere", async (_name, authority) => {
    const before = { ...connectionsTo };
    const { status, socket } = await connectThrough(proxy.port, authority());
    socket.destroy();
    expect(status).toBe(403);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.route.sessionId).toBe("ses_test");
    expect(refusals[0]!.refusal.reason).toBe("blocked-address");
    expect(connectionsTo).toEqual(before);
  });

  /** A SOCKS5 client (what Chromium speaks to the listener): greeting and request in separate writes. */
  async function socksConnect(request: Buffer, greeting = Buffer.from([5, 1, 0])): Promise<{ replies: Buffer; socket: net.Socket }> {
    const socket = net.connect({ host: "127.0.0.1", port: proxy.port });
    await new Promise((r) => socket.once("connect", r));
    let replies = Buffer.alloc(0);
    const wanted = greeting.includes(0) ? 12 : 2;
    let sent = false;
    const done = new Promise<void>((resolve) => {
      socket.on("data", (c: Buffer) => {
        replies = Buffer.concat([replies, c]);
        if (replies.length === 2 && !greeting.includes(0)) resolve();
        if (!sent && replies.length >= 2 && replies[1] === 0) {
          sent = true;
          socket.write(request);
        }
        if (replies.length >= wanted) resolve();
      });
      socket.on("close", () => resolve());
    });
    socket.write(greeting);
    await done;
    socket.removeAllListeners("data");
    return { replies, socket };
  }
  const socksDomain = (host: string, port: number) =>
    Buffer.concat([Buffer.from([5, 1, 0, 3, host.length]), Buffer.from(host, "latin1"), Buffer.from([port >> 8, port & 255])]);
  const socksIPv4 = (ip: string, port: number) => Buffer.from([5, 1, 0, 1, ...ip.split(".").map(Number), port >> 8, port & 255]);

  it("tunnels SOCKS5 to an allowed address, and refuses the rest with 'not allowed' as a CONNECT would", async () => {
    const ok = await socksConnect(socksIPv4("127.0.0.2", allowedPort));
    expect([...ok.replies]).toEqual([5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    ok.socket.write(`GET /socks HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n`);
    const body = await new Promise<string>((resolve) => {
      let text = "";
      ok.socket.on("data", (c) => (text += c.toString()));
      ok.socket.on("close", () => resolve(text));
    });
    expect(body).toContain("allowed GET /socks host=example.test");

    const before = { ...connectionsTo };
    for (const request of [socksIPv4("127.0.0.1", ownPort), socksDomain("rebind.test", ownPort), socksIPv4("169.254.169.254", 80)]) {
      const { replies, socket } = await socksConnect(request);
      socket.destroy();
      expect(replies[3]).toBe(2); // connection not allowed by ruleset
    }
    expect(connectionsTo).toEqual(before);
    expect(refusals.map((r) => r.refusal.reason)).toEqual(["blocked-address", "blocked-address", "blocked-address"]);
  });

  it("refuses SOCKS5 commands other than CONNECT and clients that insist on authentication", async () => {
    const bind = await socksConnect(Buffer.from([5, 2, 0, 1, 127, 0, 0, 2, 0, 80]));
    expect(bind.replies[3]).toBe(7); // command not supported
    bind.socket.destroy();
    const auth = await socksConnect(Buffer.alloc(0), Buffer.from([5, 1, 2]));
    expect([...auth.replies]).toEqual([5, 0xff]);
    auth.socket.destroy();
  });

  it("connects to the allowed address of a name that resolves to several", async () => {
    const before = connectionsTo.own;
    const { status, socket } = await connectThrough(proxy.port, `mixed.test:${allowedPort}`);
    socket.destroy();
    expect(status).toBe(200);
    expect(connectionsTo.own).toBe(before);
  });

  it("refuses unresolvable names and malformed CONNECT targets", async () => {
    expect((await connectThrough(proxy.port, "nowhere.test:80")).status).toBe(403);
    expect((await connectThrough(proxy.port, "no-port")).status).toBe(400);
    expect((await connectThrough(proxy.port, "host:99999")).status).toBe(400);
    expect(refusals.map((r) => r.refusal.reason)).toEqual(["unresolvable", "bad-request", "bad-request"]);
  });

  it("judges plain HTTP requests the same way", async () => {
    const get = (url: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        // As a browser does: the absolute URI in the request line, the target in Host.
        const headers = url.startsWith("http") ? { host: new URL(url).host } : {};
        const req = http.request({ host: "127.0.0.1", port: proxy.port, path: url, method: "GET", headers }, (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.once("error", (err) => (/socket hang up|ECONNRESET/.test(err.message) ? resolve({ status: 0, body: "" }) : reject(err)));
        req.end();
      });
    const ok = await get(`http://127.0.0.2:${allowedPort}/plain?x=1`);
    expect(ok).toEqual({ status: 200, body: `allowed GET /plain?x=1 host=127.0.0.2:${allowedPort}` });
    // Refused plain HTTP gets no answer at all (the browser shows a failed navigation).
    const refused = await get(`http://127.0.0.1:${ownPort}/`);
    expect(refused).toEqual({ status: 0, body: "" });
    expect(refusals.at(-1)!.refusal).toMatchObject({ host: "127.0.0.1", reason: "blocked-address" });
    expect((await get("/relative")).status).toBe(400);
  });

  it("chains through the session's upstream proxy by address, with its credentials, and judges the upstream too", async () => {
    const seen: string[] = [];
    const upstream = http.createServer();
    upstream.on("connect", (req, client: net.Socket) => {
      seen.push(`${req.url} ${req.headers["proxy-authorization"] ?? "-"}`);
      const [host, port] = (req.url ?? "").split(":");
      const out = net.connect({ host, port: Number(port) }, () => {
        client.write("HTTP/1.1 200 OK\r\n\r\n");
        out.pipe(client);
        client.pipe(out);
      });
    });
    const upstreamPort = await listen(upstream, "127.0.0.2");
    try {
      proxy.route.upstream = { server: `http://127.0.0.2:${upstreamPort}`, username: "u", password: "p w" };
      const { status, socket } = await connectThrough(proxy.port, `mixed.test:${allowedPort}`);
      socket.destroy();
      expect(status).toBe(200);
      expect(seen).toEqual([`127.0.0.2:${allowedPort} Basic ${Buffer.from("u:p w").toString("base64")}`]);
      // The destination is judged before the upstream sees anything.
      expect((await connectThrough(proxy.port, `127.0.0.1:${ownPort}`)).status).toBe(403);
      expect(seen).toHaveLength(1);
      // An upstream on a refused address is refused itself.
      proxy.route.upstream = { server: `http://127.0.0.1:${ownPort}` };
      expect((await connectThrough(proxy.port, `127.0.0.2:${allowedPort}`)).status).toBe(403);
      expect(refusals.at(-1)!.refusal.reason).toBe("upstream-blocked");
    } finally {
      upstream.close();
    }
  });
});

describe("the egress listener on a Unix socket (what a jailed browser reaches)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-egress-"));
  const socketPath = path.join(dir, "b.egress.sock");
  const site = http.createServer((_req, res) => res.end("site"));
  let sitePort = 0;
  beforeAll(async () => {
    sitePort = await listen(site, "127.0.0.2");
  });
  afterAll(() => {
    site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Greeting and CONNECT to ip:port in one write; resolves with the 12 bytes of replies. */
  const socks = (ip: string, port: number) =>
    new Promise<Buffer>((resolve, reject) => {
      const socket = net.connect(socketPath, () => socket.write(Buffer.from([5, 1, 0, 5, 1, 0, 1, ...ip.split(".").map(Number), port >> 8, port & 255])));
      let replies = Buffer.alloc(0);
      socket.on("data", (c: Buffer) => {
        replies = Buffer.concat([replies, c]);
        if (replies.length >= 12) {
          socket.destroy();
          resolve(replies);
        }
      });
      socket.once("error", reject);
    });

  it("replaces a stale socket, is this user's alone, judges what it tunnels, and removes its socket on close", async () => {
    // A socket file left by a process that died without closing it (a crashed node).
    const stale = spawnSync(process.execPath, ["-e", "require('net').createServer().listen(process.argv[1], () => process.exit(0))", socketPath]);
    expect(stale.status).toBe(0);
    expect(fs.statSync(socketPath).isSocket()).toBe(true);

    const refusals: EgressRefusal[] = [];
    const listener = await openEgressListener({
      policy: new EgressPolicy({ cidrs: ["127.0.0.2/32"], hosts: [] }),
      log,
      socketPath,
      onRefused: (_route, r) => refusals.push(r),
    });
    expect(listener.socketPath).toBe(socketPath);
    expect(listener.port).toBe(0);
    expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
    expect([...(await socks("127.0.0.2", sitePort))]).toEqual([5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect((await socks("127.0.0.1", sitePort))[3]).toBe(2); // not allowed by the ruleset
    expect(refusals.map((r) => r.reason)).toEqual(["blocked-address"]);
    await listener.close();
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it("passes on all a site sent before it closed, however much of it the browser has not read yet", async () => {
    // The site writes its answer and closes; the client reads nothing until the site's side has
    // closed (or 200 ms), then everything. Where the answer outgrows the socket buffers by less than
    // what the listener reads at once, the listener holds its end when the site's side closes. That
    // close used to destroy the browser's side too, and what was held was lost: here every transfer
    // of 250,000 bytes came back short. Buffer sizes differ between machines, hence the range.
    let siteClosed = () => {};
    let body = Buffer.alloc(0);
    const bulk = net.createServer((s) => {
      s.on("error", () => {}).end(body);
      s.once("close", () => siteClosed());
    });
    const bulkPort = await listen(bulk, "127.0.0.2");
    const listener = await openEgressListener({ policy: new EgressPolicy({ cidrs: ["127.0.0.2/32"], hosts: [] }), log, socketPath });
    const transfer = async () => {
      const closed = new Promise<void>((resolve) => {
        siteClosed = resolve;
        setTimeout(resolve, 200);
      });
      const socket = net.connect(socketPath, () => socket.write(Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 2, bulkPort >> 8, bulkPort & 255])));
      socket.pause();
      await closed;
      let total = 0;
      return new Promise<number>((resolve, reject) => {
        socket.on("data", (chunk: Buffer) => (total += chunk.length));
        socket.once("end", () => resolve(total - 12)); // less the greeting's and the CONNECT's replies
        socket.once("error", reject);
        socket.resume();
      });
    };
    try {
      const sizes: number[] = [];
      for (let size = 160 * 1024; size <= 384 * 1024; size += 16 * 1024) sizes.push(size, size + 1000);
      const received: number[] = [];
      for (const size of sizes) {
        body = Buffer.alloc(size, 7);
        received.push(await transfer());
      }
      expect(received).toEqual(sizes);
    } finally {
      await listener.close();
      bulk.close();
    }
  });

  it("never removes a file that is not a socket", async () => {
    const file = path.join(dir, "not-a-socket");
    fs.writeFileSync(file, "keep");
    await expect(openEgressListener({ policy: new EgressPolicy(), log, socketPath: file })).rejects.toThrow(/EADDRINUSE/);
    expect(fs.readFileSync(file, "utf8")).toBe("keep");
  });
});
