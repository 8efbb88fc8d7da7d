import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { reapOrphans } from "../../src/browser/launch/processes.ts";
import { loadConfig } from "../../src/config.ts";
import { browserDataRoot } from "../../src/deps-browsers.ts";
import { createLogger } from "../../src/logger.ts";
import { freePort } from "./app.ts";

/**
 * Real processes for fault tests: Vessel nodes (`node --import tsx src/main.ts`), a private
 * redis-server on a spare loopback port (never the shared one), and a TCP relay that can cut the
 * connection to PostgreSQL and restore it. Everything started here is stopped by its `stop()`/`kill()`.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface NodeProcess {
  url: string;
  env: Record<string, string>;
  child: ChildProcess;
  /** The last lines the node logged (stdout and stderr). */
  log: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Where this node's browsers keep their folders (and pid files). */
  browserRoot: string;
  signal(sig: NodeJS.Signals): void;
  /** SIGINT (stop now), waits for the exit; SIGKILL if it takes more than `ms`. Kills leftover browsers. */
  stop(ms?: number): Promise<number | null>;
}

/**
 * Starts a node and waits until it answers /healthz (at most `timeoutMs`). With `netns`, the node
 * runs in that network namespace (support/netns.ts) and `address` is where the test reaches it.
 */
export async function spawnNode(env: Record<string, string>, timeoutMs = 90_000, where: { netns?: string; address?: string } = {}): Promise<NodeProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const full: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? os.tmpdir(),
    TMPDIR: os.tmpdir(),
    PORT: String(port),
    VESSEL_HOST: "127.0.0.1",
    VESSEL_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    VESSEL_INTERNAL_URL: `http://127.0.0.1:${port}`,
    VESSEL_BROWSER_WARM: "0",
    // The pages tests and benchmarks open live on loopback, which the egress policy refuses by default.
    VESSEL_EGRESS_ALLOW: "127.0.0.1/32,::1/128,localhost",
    VESSEL_WEBHOOK_ALLOW: "127.0.0.1/32,::1/128,localhost",
    LOG_LEVEL: "info",
    ...env,
  };
  // Checked here first (it throws on a bad setting), so nothing is spawned for a configuration the node would refuse.
  const config = loadConfig(full, "/nonexistent");
  const command = [process.execPath, "--import", "tsx", "src/main.ts"];
  // `ip netns exec` execs the command in place: the child's pid is the node's, and signals reach it.
  const [file, ...args] = where.netns ? ["ip", "netns", "exec", where.netns, ...command] : command;
  const child = spawn(file!, args, { cwd: root, env: full, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line) log.push(line);
    if (log.length > 400) log.splice(0, log.length - 400);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const browserRoot = browserDataRoot(config);
  const url = `http://${where.address ?? "127.0.0.1"}:${port}`;
  const node: NodeProcess = {
    url,
    env: full,
    child,
    log,
    exited,
    browserRoot,
    signal: (sig) => void child.kill(sig),
    async stop(ms = 30_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), ms);
        await exited;
        clearTimeout(timer);
      }
      // Whatever a killed node left behind goes too: no test leaves a Chromium running.
      await reapOrphans(browserRoot, createLogger("silent")).catch(() => {});
      fs.rmSync(browserRoot, { recursive: true, force: true });
      return (await exited).code;
    },
  };
  const until = Date.now() + timeoutMs;
  for (;;) {
    const early = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 200))]);
    if (early) throw new Error(`the node exited during start-up:\n${log.slice(-30).join("\n")}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return node;
    if (Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error(`the node did not answer within ${timeoutMs} ms:\n${log.slice(-30).join("\n")}`);
    }
  }
}

/** Pids of the browsers a node runs now (from their pid files). */
export function browserPids(browserRoot: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.existsSync(browserRoot) ? fs.readdirSync(browserRoot) : []) {
    try {
      pids.push((JSON.parse(fs.readFileSync(path.join(browserRoot, entry, "pid"), "utf8")) as { pid: number }).pid);
    } catch {
      // not a browser folder (yet)
    }
  }
  return pids;
}

export interface RedisProcess {
  url: string;
  port: number;
  start(): Promise<void>;
  /** SIGKILL: an outage, not a clean shutdown. */
  stop(): Promise<void>;
}

/** A private redis-server on a spare loopback port (never the shared one), with no persistence. */
export async function privateRedis(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const redis: RedisProcess = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      const until = Date.now() + 10_000;
      while (!(await ping(port))) {
        if (Date.now() > until) throw new Error(`redis-server did not start on port ${port}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      const gone = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await gone;
    },
  };
  await redis.start();
  return redis;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.once("connect", () => s.write("PING\r\n"));
    s.once("data", (d) => {
      resolve(d.toString().startsWith("+PONG"));
      s.destroy();
    });
    s.once("error", () => resolve(false));
  });
}

export interface TcpRelay {
  port: number;
  /** Rewrites a URL's host and port to go through the relay. */
  through(url: string): string;
  /** Drops every connection and refuses new ones: from the client's side, the server is gone. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  /**
   * Stops answering without a reset: connections stay open and new ones are accepted, but no byte
   * moves either way until `resume()` (then what was held goes on). A stalled server, or a network
   * that drops packets: the client sees silence, not an error.
   */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/** A TCP relay to `target` (host:port) on a spare loopback port. */
export async function tcpRelay(targetHost: string, targetPort: number): Promise<TcpRelay> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  /** Each relayed pair: joined (bytes flow) unless paused. */
  const pairs = new Set<{ join(): void; split(): void }>();
  let paused = false;
  let server: net.Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect({ host: targetHost, port: targetPort });
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.once("close", () => sockets.delete(s));
          s.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        const pair = {
          join() {
            client.pipe(upstream);
            upstream.pipe(client);
          },
          split() {
            // Unpiped streams stop flowing: what arrives waits in the sockets until joined again.
            client.unpipe(upstream);
            upstream.unpipe(client);
            client.pause();
            upstream.pause();
          },
        };
        pairs.add(pair);
        client.once("close", () => pairs.delete(pair));
        if (!paused) pair.join();
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (!s) return resolve();
      s.close(() => resolve());
    });
  await listen();
  return {
    port,
    through(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut: stopListening,
    restore: listen,
    pause() {
      paused = true;
      for (const pair of pairs) pair.split();
    },
    resume() {
      paused = false;
      for (const pair of pairs) pair.join();
    },
    close: stopListening,
  };
}
