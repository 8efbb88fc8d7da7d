import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { promisify } from "node:util";

/**
 * Several "hosts" on one machine, for cluster tests that need a real network between nodes: each
 * host is a network namespace with its own address, joined to this (the test's) namespace by a veth
 * on a bridge made by the test. What the hosts share (PostgreSQL and Redis on this machine's
 * loopback, and each other's internal addresses) they reach through forwarders in this namespace,
 * listening on the bridge's address; the forwarders add a user-space delay, because this kernel
 * may lack netem (`tc qdisc … netem`). A partition takes a host's veth down on our side: its
 * packets are dropped silently (its TCP connections hang in retransmits, new ones time out), as
 * with a firewall's DROP, and bringing it up heals it.
 *
 * Needs root and `ip netns` (checked by {@link netnsUnavailable}); everything made is removed by
 * {@link Network.destroy}, names carry a random tag so test files never collide.
 */

const run = promisify(execFile);
const ip = (...args: string[]) => run("ip", args);

/** Why namespaces cannot be used here (a reason to print when skipping), or undefined when they can. */
export async function netnsUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return "the multi-host tests need root (network namespaces and veths)";
  const probe = `vprobe${randomBytes(3).toString("hex")}`;
  try {
    await ip("netns", "add", probe);
    await ip("netns", "del", probe);
    return undefined;
  } catch (err) {
    return `network namespaces are not permitted here (ip netns add: ${(err as Error).message.split("\n")[0]})`;
  }
}

export interface Host {
  /** The namespace (`ip netns exec <ns> …`). */
  ns: string;
  /** The host's address on the bridge (reachable from the test's namespace). */
  address: string;
  /** Drops every packet to and from this host until {@link heal}. */
  partition(): Promise<void>;
  heal(): Promise<void>;
}

export interface Forwarder {
  /** host:port on the bridge's address, reachable from every host. */
  host: string;
  port: number;
  close(): Promise<void>;
}

export interface Network {
  /** This namespace's address on the bridge, where the forwarders listen. */
  gateway: string;
  hosts: Host[];
  /**
   * A TCP forwarder on the bridge to `target` (host:port), delaying each chunk by half of
   * `rttMs` each way (so a round trip through it costs `rttMs` more): the latency between hosts.
   */
  forward(targetHost: string, targetPort: number, rttMs: number): Promise<Forwarder>;
  destroy(): Promise<void>;
}

/** `count` hosts on a private bridge. */
export async function createNetwork(count: number): Promise<Network> {
  const tag = randomBytes(3).toString("hex");
  const subnet = `10.${200 + (randomBytes(1)[0]! % 50)}.${randomBytes(1)[0]! % 250}`;
  const bridge = `vb${tag}`;
  const gateway = `${subnet}.1`;
  const made: Array<() => Promise<unknown>> = [];
  const forwarders: Forwarder[] = [];
  const destroy = async () => {
    for (const f of forwarders.splice(0)) await f.close().catch(() => {});
    for (const undo of made.splice(0).reverse()) await undo().catch(() => {});
  };
  try {
    await ip("link", "add", bridge, "type", "bridge");
    made.push(() => ip("link", "del", bridge));
    await ip("addr", "add", `${gateway}/24`, "dev", bridge);
    await ip("link", "set", bridge, "up");
    const hosts: Host[] = [];
    for (let i = 0; i < count; i++) {
      const ns = `vessel-${tag}-${i}`;
      const outside = `vh${tag}${i}`;
      const inside = `vn${tag}${i}`;
      const address = `${subnet}.${10 + i}`;
      await ip("netns", "add", ns);
      made.push(() => ip("netns", "del", ns));
      await ip("link", "add", outside, "type", "veth", "peer", "name", inside);
      made.push(() => ip("link", "del", outside));
      await ip("link", "set", inside, "netns", ns);
      await ip("link", "set", outside, "master", bridge);
      await ip("link", "set", outside, "up");
      const inNs = (...args: string[]) => run("ip", ["netns", "exec", ns, "ip", ...args]);
      await inNs("addr", "add", `${address}/24`, "dev", inside);
      await inNs("link", "set", inside, "up");
      await inNs("link", "set", "lo", "up");
      await inNs("route", "add", "default", "via", gateway);
      hosts.push({
        ns,
        address,
        partition: async () => void (await ip("link", "set", outside, "down")),
        heal: async () => void (await ip("link", "set", outside, "up")),
      });
    }
    return {
      gateway,
      hosts,
      async forward(targetHost, targetPort, rttMs) {
        const f = await delayForwarder(gateway, targetHost, targetPort, rttMs / 2);
        forwarders.push(f);
        return f;
      },
      destroy,
    };
  } catch (err) {
    await destroy();
    throw err;
  }
}

/** Writes each chunk `delayMs` after it arrived, in order (a link's latency, in user space). */
function delayedPipe(from: net.Socket, to: net.Socket, delayMs: number): void {
  if (delayMs <= 0) return void from.pipe(to);
  const queue: Array<{ due: number; chunk: Buffer }> = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.due <= now) to.write(queue.shift()!.chunk);
    if (queue.length > 0) timer = setTimeout(flush, queue[0]!.due - now);
  };
  from.on("data", (chunk: Buffer) => {
    queue.push({ due: performance.now() + delayMs, chunk });
    timer ??= setTimeout(flush, delayMs);
  });
  from.on("end", () => {
    const finish = () => (queue.length === 0 ? to.end() : setTimeout(finish, delayMs));
    finish();
  });
}

async function delayForwarder(listenHost: string, targetHost: string, targetPort: number, delayMs: number): Promise<Forwarder> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort });
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.once("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
    delayedPipe(client, upstream, delayMs);
    delayedPipe(upstream, client, delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, listenHost, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    host: listenHost,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface LoneHost {
  /** The namespace (`ip netns exec <ns> …`). */
  ns: string;
  /** Its one address that is not loopback, on a veth pair whose both ends stay inside it. */
  address: string;
  destroy(): Promise<void>;
}

/**
 * A namespace of its own with loopback and one other address, reachable from nowhere but itself: a
 * machine with a network interface, for a test of what a server started inside answers on each
 * address. All its traffic stays inside the namespace.
 */
export async function loneHost(): Promise<LoneHost> {
  const tag = randomBytes(3).toString("hex");
  const ns = `vessel-lone-${tag}`;
  const address = `10.${200 + (randomBytes(1)[0]! % 50)}.${randomBytes(1)[0]! % 250}.2`;
  const inNs = (...args: string[]) => ip("-n", ns, ...args);
  await ip("netns", "add", ns);
  const destroy = async () => void (await ip("netns", "del", ns).catch(() => {}));
  try {
    await inNs("link", "add", `va${tag}`, "type", "veth", "peer", "name", `vb${tag}`);
    await inNs("addr", "add", `${address}/24`, "dev", `va${tag}`);
    for (const dev of [`va${tag}`, `vb${tag}`, "lo"]) await inNs("link", "set", dev, "up");
    return { ns, address, destroy };
  } catch (err) {
    await destroy();
    throw err;
  }
}
