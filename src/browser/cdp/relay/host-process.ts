// The relay host: the process that owns every browser's pipe and relays the sessions' CDP clients
// (host.ts starts it and says why). Nothing of the node's main thread (the API, the embedded
// database, GraphQL) is on a client's message path here.
//
// Protocol with the node:
//   over the IPC channel (handles attached where said):
//     host → node  { ready: true, socketPath }                 once, when it listens
//     node → host  { op: "pipe", key, fd: 3 | 4 } + socket      a browser's pipe ends (3 into it, 4 out)
//     node → host  { op: "client", key, client, … } + socket    a client's authorised handshake, not answered yet
//   over each browser's link (a connection to socketPath whose first message is { vessel: "hello", key }):
//     the browser's pipe protocol, and control messages (mux.ts, handled in host-clients.ts).
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { nulFramed } from "../pipe/wire.ts";
import { HostClients } from "./host-clients.ts";
import type { ClientHandOver } from "../pipe/relay-link.ts";
import { PipeMux, type Control } from "./mux.ts";

interface Browser {
  in?: net.Socket;
  out?: net.Socket;
  link?: { socket: net.Socket; early: Buffer[] };
  mux?: PipeMux;
}

/** A link, or pipe ends, whose other half has not come within this long is dropped. */
const PAIRING_MS = 30_000;

const browsers = new Map<string, Browser>();
const clients = new HostClients((key) => browsers.get(key)?.mux);

// The node's shutdown ends its sessions; a signal sent to the whole process group must not cut
// the clients' sockets first. The node going away ends this process (and with it every pipe).
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
process.on("disconnect", () => process.exit(0));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-relay-"));
const socketPath = path.join(dir, "s");
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

function entry(key: string): Browser {
  const known = browsers.get(key);
  if (known) return known;
  const browser: Browser = {};
  browsers.set(key, browser);
  setTimeout(() => {
    if (browsers.get(key) === browser && !browser.mux) forget(key);
  }, PAIRING_MS).unref();
  return browser;
}

function forget(key: string): void {
  const browser = browsers.get(key);
  if (!browser) return;
  browsers.delete(key);
  if (!browser.mux) for (const socket of [browser.in, browser.out, browser.link?.socket]) socket?.destroy();
}

/** Both pipe ends and the link have come: the browser is shared from here on. */
function pair(key: string, browser: Browser): void {
  if (browser.mux || !browser.in || !browser.out || !browser.link) return;
  const { socket, early } = browser.link;
  socket.removeAllListeners("data");
  const mux = new PipeMux(browser.in, browser.out, socket, (control: Control) => clients.control(key, control));
  browser.mux = mux;
  socket.once("close", () => {
    clients.browserGone(key);
    if (browsers.get(key) === browser) browsers.delete(key);
  });
  for (const chunk of early) socket.emit("data", chunk);
  socket.resume();
}

const server = net.createServer((socket) => {
  socket.on("error", () => socket.destroy());
  let key: string | undefined;
  const early: Buffer[] = [];
  const hello = nulFramed((message) => {
    if (key !== undefined) return;
    try {
      const parsed = JSON.parse(message.toString("utf8")) as Control;
      if (parsed.vessel === "hello" && typeof parsed.key === "string" && /^[0-9a-f]{64}$/.test(parsed.key)) key = parsed.key;
    } catch {
      // not a hello: closed below
    }
    if (key === undefined) return void socket.destroy();
  });
  socket.on("data", (chunk: Buffer) => {
    if (key !== undefined) return void early.push(chunk);
    const nul = chunk.indexOf(0);
    hello(nul === -1 ? chunk : chunk.subarray(0, nul + 1));
    if (key === undefined) return;
    // What followed the hello in the same chunk is the link's first CDP traffic.
    if (nul + 1 < chunk.length) early.push(chunk.subarray(nul + 1));
    const browser = entry(key);
    if (browser.link) return void socket.destroy(); // one link per browser
    browser.link = { socket, early };
    pair(key, browser);
  });
});

process.on("message", (message: { op?: string; key?: unknown; fd?: unknown } & Partial<ClientHandOver>, handle?: net.Socket) => {
  if (typeof message?.key !== "string") return handle?.destroy();
  if (message.op === "pipe" && handle && (message.fd === 3 || message.fd === 4)) {
    const browser = entry(message.key);
    if (message.fd === 3) browser.in = handle;
    else browser.out = handle;
    handle.pause();
    pair(message.key, browser);
  } else if (message.op === "client" && handle) {
    // A failure costs only this client's socket, never the host (and with it every session's pipe).
    clients.handOver(message as ClientHandOver, handle).catch(() => handle.destroy());
  } else {
    handle?.destroy();
  }
});

server.listen(socketPath, () => {
  fs.chmodSync(socketPath, 0o600);
  process.send?.({ ready: true, socketPath });
});
