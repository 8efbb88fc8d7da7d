import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { ownServer } from "./own-listeners.ts";
import { judgeByRules } from "./rules.ts";
import { readSocksRequest, socksReply } from "./socks5.ts";
import { type EgressRefusal, type EgressRoute, type EgressListener, type EgressOptions, defaultResolve, Refused, parseAuthority, endToEnd } from "./shared.ts";

/**
 * One proxy listener per browser (Chromium starts with `--proxy-server` pointing at it and
 * `--proxy-bypass-list=<-loopback>`, so loopback goes through it too). It speaks SOCKS5, which
 * Chromium uses for every connection (plain HTTP too, so each is a byte tunnel with Chromium's own
 * keep-alive inside), and HTTP proxying (CONNECT and absolute-URI requests) for other clients.
 * For each tunnel or plain-HTTP request it resolves the destination itself, keeps only addresses
 * the policy allows, and connects to one of those exact addresses — directly, or through the
 * session's upstream proxy by address — so what was checked is what is reached. A refusal fails the
 * tunnel (SOCKS5 "not allowed", HTTP 403) or drops the plain-HTTP request unanswered, so the page
 * sees a failed navigation, and is reported to `onRefused`.
 */
export async function openEgressListener(options: EgressOptions): Promise<EgressListener> {
  const resolve = options.resolve ?? defaultResolve;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const sockets = new Set<Duplex>();
  /** Where each open connection to a destination leads (the address judged), so a change of rules can end those they now refuse. */
  const destinations = new WeakMap<net.Socket, { host: string; port: number; address: string }>();
  /** Open tunnels: the destination's socket and the browser's end of it. */
  const tunnels = new Map<net.Socket, Duplex>();
  let rules: EgressRoute["rules"];
  const route: EgressRoute = {};
  // New rules apply to new connections and, at once, to the tunnels already open: Chromium keeps
  // them alive and would reach a destination the rules now refuse through one opened before.
  Object.defineProperty(route, "rules", {
    enumerable: true,
    get: () => rules,
    set: (next: EgressRoute["rules"]) => {
      rules = next;
      if (next && next.length > 0) for (const [upstream, client] of tunnels) rejudge(upstream, client, next);
    },
  });
  const rejudge = (upstream: net.Socket, client: Duplex, layers: NonNullable<EgressRoute["rules"]>) => {
    const to = destinations.get(upstream);
    if (!to) return;
    const judged = judgeByRules(layers, to.host, to.port, [to.address]);
    if (Array.isArray(judged)) return;
    refuse(new Refused({ host: to.host, port: to.port, reason: "blocked-by-policy", rule: judged }), to.host, to.port);
    upstream.destroy();
    client.destroy();
  };

  const pickAddress = async (host: string, port: number, reasonIfBlocked: EgressRefusal["reason"]): Promise<string> => {
    const literal = net.isIP(host) ? [host] : null;
    let addresses: string[];
    try {
      addresses = literal ?? (await resolve(host));
    } catch {
      throw new Refused({ host, port, reason: "unresolvable" });
    }
    const byName = !literal && options.policy.hostAllowed(host);
    // A name the allow-list names may lead anywhere but to this node itself.
    const usable = addresses.filter((a) => (byName ? !options.policy.reachesNode(a, port) : options.policy.destinationAllowed(a, port)));
    if (usable.length === 0) throw new Refused({ host, port, reason: addresses.length === 0 ? "unresolvable" : reasonIfBlocked });
    // The session's own rules only narrow what the node allows (the upstream proxy is the node's business alone).
    const rules = reasonIfBlocked === "blocked-address" ? route.rules : undefined;
    if (!rules || rules.length === 0) return usable[0]!;
    const judged = judgeByRules(rules, host, port, usable);
    if (!Array.isArray(judged)) throw new Refused({ host, port, reason: "blocked-by-policy", rule: judged });
    return judged[0]!;
  };

  const dial = (host: string, port: number): Promise<net.Socket> =>
    new Promise((resolveSocket, reject) => {
      const socket = net.connect({ host, port, noDelay: true });
      socket.setTimeout(connectTimeoutMs, () => socket.destroy(new Error("connect timeout")));
      socket.once("connect", () => {
        socket.setTimeout(0);
        resolveSocket(socket);
      });
      socket.once("error", reject);
    });

  /** A TCP stream to host:port after the policy check, through the upstream proxy when the route has one. */
  const open = async (host: string, port: number): Promise<net.Socket> => {
    const address = await pickAddress(host, port, "blocked-address");
    const socket = await connectTo(host, port, address);
    destinations.set(socket, { host, port, address });
    return socket;
  };

  const connectTo = async (host: string, port: number, address: string): Promise<net.Socket> => {
    const upstream = route.upstream;
    if (!upstream) return dial(address, port);
    const u = new URL(upstream.server);
    const upstreamPort = Number(u.port || 80);
    // The customer's proxy is judged too: it must not be a way into private networks either.
    const upstreamAddress = await pickAddress(u.hostname, upstreamPort, "upstream-blocked");
    const socket = await dial(upstreamAddress, upstreamPort);
    const target = net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
    const auth =
      upstream.username !== undefined
        ? `Proxy-Authorization: Basic ${Buffer.from(`${upstream.username}:${upstream.password ?? ""}`).toString("base64")}\r\n`
        : "";
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
    return new Promise((resolveSocket, reject) => {
      let buffered = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) {
          if (buffered.length > 16 * 1024) fail();
          return;
        }
        socket.off("data", onData);
        if (!/^HTTP\/1\.[01] 2\d\d/.test(buffered.subarray(0, end).toString("latin1"))) return fail();
        const rest = buffered.subarray(end + 4);
        if (rest.length > 0) socket.unshift(rest);
        resolveSocket(socket);
      };
      const fail = () => {
        socket.destroy();
        reject(new Refused({ host, port, reason: "upstream-failed" }));
      };
      socket.on("data", onData);
      socket.once("error", fail);
    });
  };

  const refuse = (err: unknown, host: string, port: number): EgressRefusal => {
    const refusal = err instanceof Refused ? err.refusal : { host, port, reason: "upstream-failed" as const };
    if (err instanceof Refused) {
      options.onRefused?.({ ...route }, refusal);
      route.watch?.(refusal);
    } else options.log.debug({ err, sessionId: route.sessionId }, "egress: connection failed");
    return refusal;
  };

  const server = http.createServer((req, res) => {
    // Plain HTTP through a proxy arrives with an absolute URI.
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new Error("only http");
    } catch {
      options.onRefused?.({ ...route }, { host: "", port: 0, reason: "bad-request" });
      res.writeHead(400, { "content-type": "text/plain", connection: "close" }).end("Bad proxy request");
      return;
    }
    const port = Number(url.port || 80);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    open(host, port).then(
      (socket) => {
        const headers = { ...req.headers };
        for (const h of ["proxy-connection", "proxy-authorization", "connection", "keep-alive"]) delete headers[h];
        const upstreamReq = http.request({
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers,
          createConnection: () => socket,
        });
        upstreamReq.once("response", (upstreamRes) => {
          res.writeHead(upstreamRes.statusCode ?? 502, endToEnd(upstreamRes.headers));
          upstreamRes.pipe(res);
        });
        upstreamReq.once("error", () => res.destroy());
        // The browser hung up first (a cancelled download, a stopped load): so does the site's connection.
        res.once("close", () => {
          if (!res.writableFinished) upstreamReq.destroy();
        });
        req.pipe(upstreamReq);
      },
      (err: unknown) => {
        refuse(err, host, port);
        // No answer at all: the browser reports a failed navigation (net::ERR_EMPTY_RESPONSE), as it
        // does for a refused tunnel, instead of showing a page that looks like the site's own.
        res.socket?.destroy();
      },
    );
  });

  /**
   * Joins the browser's stream to the destination's, both ways. The browser going away, or any
   * error, ends both at once. The destination ending normally (a response ended by closing, HTTP/1.0
   * or `Connection: close`) ends the browser's stream through the pipe instead, after every byte it
   * sent is written: destroying it on the destination's close dropped what the browser had not read
   * yet (64 parallel jailed clients, some fetching 16 MiB: 1–2 of 1280 transfers came back short).
   */
  const splice = (client: Duplex, upstream: net.Socket, head: Buffer) => {
    sockets.add(upstream);
    tunnels.set(upstream, client);
    upstream.once("close", () => {
      sockets.delete(upstream);
      tunnels.delete(upstream);
    });
    upstream.setNoDelay(true);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    const end = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.once("error", end);
    upstream.once("close", () => {
      if (!upstream.readableEnded) end();
    });
    client.once("close", end);
  };

  server.on("connect", (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const target = parseAuthority(req.url ?? "");
    if (!target) {
      options.onRefused?.({ ...route }, { host: "", port: 0, reason: "bad-request" });
      client.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      return;
    }
    open(target.host, target.port).then(
      (upstream) => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        splice(client, upstream, head);
      },
      (err: unknown) => {
        const refusal = refuse(err, target.host, target.port);
        client.end(`HTTP/1.1 ${refusal.reason === "upstream-failed" ? "502 Bad Gateway" : "403 Forbidden"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      },
    );
  });

  /** SOCKS5 (RFC 1928), CONNECT only and without authentication: the same checks as a CONNECT tunnel. */
  const socks = (client: net.Socket, first: Buffer) => {
    readSocksRequest(client, first).then(
      (target) => {
        if (!target) {
          options.onRefused?.({ ...route }, { host: "", port: 0, reason: "bad-request" });
          return void client.destroy();
        }
        open(target.host, target.port).then(
          (upstream) => {
            client.write(socksReply(0x00));
            splice(client, upstream, target.rest);
          },
          (err: unknown) => {
            const refusal = refuse(err, target.host, target.port);
            // 0x02: not allowed by the ruleset; 0x04: host unreachable (the upstream failed).
            client.end(socksReply(refusal.reason === "upstream-failed" ? 0x04 : 0x02));
          },
        );
      },
      () => client.destroy(),
    );
  };

  // One port, two protocols: a SOCKS5 greeting starts with 5, an HTTP request with a letter.
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.setNoDelay(true);
    socket.once("data", (first: Buffer) => {
      if (first[0] === 0x05) return socks(socket, first);
      socket.unshift(first);
      server.emit("connection", socket);
    });
  });

  const socketPath = options.socketPath;
  // A socket left by a crashed run at the same path would make listen() fail with EADDRINUSE.
  if (socketPath && fs.lstatSync(socketPath, { throwIfNoEntry: false })?.isSocket()) fs.unlinkSync(socketPath);
  await new Promise<void>((resolveListen, reject) => {
    listener.once("error", reject);
    if (socketPath) listener.listen(socketPath, () => resolveListen());
    else listener.listen(0, "127.0.0.1", () => resolveListen());
  });
  // No browser may reach another browser's listener (or its own) as a destination.
  if (!socketPath) ownServer(listener);
  // Only this user may connect, and the jail: its user is this one mapped, or owns the socket (browser/launch/chromium.ts hands it over).
  if (socketPath) fs.chmodSync(socketPath, 0o600);
  return {
    port: socketPath ? 0 : (listener.address() as net.AddressInfo).port,
    ...(socketPath ? { socketPath } : {}),
    route,
    async close() {
      for (const s of sockets) s.destroy();
      // net.Server removes its own socket file on close.
      await new Promise<void>((r) => listener.close(() => r()));
    },
  };
}
