import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { AppOptions } from "../../src/app.ts";
import type { Database } from "../../src/db/client.ts";
import { startTestApp, type TestApp } from "./app.ts";

/**
 * A load balancer on loopback, as dumb as a real one without sticky sessions: every HTTP request
 * and every WebSocket upgrade goes to the next backend in turn. Nodes use its address as their
 * public base URL, so every connect_url and live_view_url leads through it.
 */
export interface LoadBalancer {
  url: string;
  /** Which backend (index) each request went to, in order. */
  readonly picks: number[];
  setBackends(urls: string[]): void;
  close(): Promise<void>;
}

export async function startLoadBalancer(): Promise<LoadBalancer> {
  let backends: URL[] = [];
  let next = 0;
  const picks: number[] = [];
  const sockets = new Set<net.Socket>();
  const pick = () => {
    if (backends.length === 0) throw new Error("the load balancer has no backend");
    const i = next++ % backends.length;
    picks.push(i);
    return backends[i]!;
  };
  const server = http.createServer((req, res) => {
    const target = pick();
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "x-forwarded-for": req.socket.remoteAddress ?? "" },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  server.on("upgrade", (req, socket: net.Socket, head) => {
    const target = pick();
    const upstream = net.connect({ host: target.hostname, port: Number(target.port) });
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    const close = () => {
      upstream.destroy();
      socket.destroy();
    };
    upstream.once("error", close);
    socket.once("error", close);
    upstream.once("close", close);
    socket.once("close", close);
    upstream.once("connect", () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    picks,
    setBackends(urls) {
      backends = urls.map((u) => new URL(u));
      next = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TestCluster {
  lb: LoadBalancer;
  nodes: TestApp[];
  /** Where node `i` is reached directly (bypassing the load balancer). */
  direct(i: number, url: string): string;
  stop(): Promise<void>;
}

/**
 * `count` nodes sharing one PostgreSQL database and one Redis (under a prefix of their own), behind
 * a round-robin load balancer that is their public base URL. Heartbeats are fast so tests need not wait.
 */
export async function startCluster(
  count: number,
  opts: {
    db: Database;
    redisUrl: string;
    env?: Record<string, string>;
    nodeEnv?: Array<Record<string, string>>;
    options?: AppOptions;
    /** A database connection of node `i`'s own (e.g. through a relay the test can cut), instead of `db`. */
    nodeDb?: Array<Database | undefined>;
  },
): Promise<TestCluster> {
  const lb = await startLoadBalancer();
  const prefix = `vessel-test-${randomUUID()}:`;
  // Every node of a deployment shares the master key (it also keys their internal calls).
  const masterKey = randomBytes(32).toString("base64");
  const nodes: TestApp[] = [];
  try {
    for (let i = 0; i < count; i++) {
      nodes.push(
        await startTestApp({
          db: opts.nodeDb?.[i] ?? opts.db,
          redisPrefix: prefix,
          ...opts.options,
          env: {
            REDIS_URL: opts.redisUrl,
            VESSEL_MASTER_KEY: masterKey,
            VESSEL_PUBLIC_BASE_URL: lb.url,
            VESSEL_HEARTBEAT_SECONDS: "0.3",
            // A lease of 3 s (half the timeout): a node fences itself only after 3 s without a
            // recorded heartbeat, which a busy test machine's stalls do not reach.
            VESSEL_NODE_TIMEOUT_SECONDS: "6",
            ...opts.env,
            ...opts.nodeEnv?.[i],
          },
        }),
      );
    }
  } catch (err) {
    for (const n of nodes) await n.stop().catch(() => {});
    await lb.close();
    throw err;
  }
  lb.setBackends(nodes.map((n) => n.url));
  return {
    lb,
    nodes,
    direct(i, url) {
      const u = new URL(url);
      const node = new URL(nodes[i]!.url);
      u.host = node.host;
      return u.toString();
    },
    async stop() {
      await lb.close();
      for (const n of nodes) await n.stop().catch(() => {});
    },
  };
}
