import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, describe } from "vitest";
import { FORWARDER_PL } from "../../src/browser/jail/forwarder.ts";

/**
 * The jail's egress forwarder (browser/jail/forwarder.ts) run as the jail runs it, outside a jail: a TCP port
 * on 127.0.0.1 joined to a Unix socket, where a stand-in for the egress listener records what comes.
 * It answers a SOCKS5 greeting that offers "no authentication" itself, at once, and drops the
 * listener's own answer to it; everything else passes byte for byte, both ways.
 */
describe("the jail's egress forwarder", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-fwd-"));
  const socketPath = path.join(dir, "egress.sock");
  let port = 0;
  let group = 0;
  /** What the stand-in listener does with each connection: it gets the socket and every chunk so far. */
  let serve: (socket: net.Socket, received: () => Buffer) => void = () => {};
  const received: Buffer[] = [];
  const listener = net.createServer((socket) => {
    let bytes = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      bytes = Buffer.concat([bytes, chunk]);
      received.push(chunk);
    });
    serve(socket, () => bytes);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    port = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    // A process group of its own: the forwarder's child stays in it (as in the jail), and goes with it.
    const perl = spawn("/usr/bin/perl", ["-e", FORWARDER_PL, String(port), socketPath], { stdio: ["ignore", "ignore", "inherit"], detached: true });
    group = perl.pid!;
    expect(await new Promise((resolve) => perl.once("exit", resolve))).toBe(0); // ready: it listens, its child goes on
  });
  afterAll(async () => {
    try {
      if (group) process.kill(-group, "SIGKILL");
    } catch {
      // already gone
    }
    await new Promise((resolve) => listener.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const connect = async () => {
    const client = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => client.once("connect", resolve));
    let bytes = Buffer.alloc(0);
    client.on("data", (chunk) => (bytes = Buffer.concat([bytes, chunk])));
    return { client, got: () => bytes };
  };
  const until = async (what: string, cond: () => boolean) => {
    for (const deadline = Date.now() + 5_000; !cond(); await new Promise((r) => setTimeout(r, 5))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  };

  it("answers a greeting offering no authentication at once, and drops the listener's answer to it", async () => {
    let answerGreeting = () => {};
    serve = (socket, got) => {
      answerGreeting = () => socket.write(Buffer.from([5, 0])); // later, as a busy listener would
      socket.on("data", () => {
        if (got().length === 4 + 10) socket.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x48, 0x49]));
      });
    };
    const { client, got } = await connect();
    client.write(Buffer.from([5, 2, 2])); // split: the greeting's last byte comes later
    await new Promise((r) => setTimeout(r, 50));
    expect(got()).toEqual(Buffer.alloc(0));
    client.write(Buffer.from([0]));
    await until("the forwarder's answer", () => got().length === 2);
    expect(got()).toEqual(Buffer.from([5, 0])); // before the listener said anything
    client.write(Buffer.from([5, 1, 0, 1, 10, 0, 0, 1, 0, 80])); // CONNECT 10.0.0.1:80
    answerGreeting();
    await until("the CONNECT answer and the first bytes", () => got().length === 2 + 12);
    expect(got()).toEqual(Buffer.from([5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x48, 0x49]));
    client.destroy();
  });

  it("passes everything else as it is: a greeting without 'no authentication', an HTTP proxy request", async () => {
    for (const first of [Buffer.from([5, 1, 2]), Buffer.from("CONNECT example.com:443 HTTP/1.1\r\n\r\n")]) {
      const answer = first[0] === 5 ? Buffer.from([5, 0xff]) : Buffer.from("HTTP/1.1 403 Forbidden\r\n\r\n");
      serve = (socket, got) => socket.on("data", () => got().length === first.length && socket.end(answer));
      const { client, got } = await connect();
      client.write(first);
      await until("the listener's answer", () => got().length === answer.length);
      expect(got()).toEqual(answer);
      client.destroy();
    }
  });

  it("cuts the pair when the listener's answer to the greeting is not the one it gave", async () => {
    serve = (socket) => socket.once("data", () => socket.write(Buffer.from([5, 0xff])));
    const { client, got } = await connect();
    const closed = new Promise((resolve) => client.once("close", resolve));
    client.write(Buffer.from([5, 1, 0]));
    await closed;
    expect(got()).toEqual(Buffer.from([5, 0]));
  });
});
