import type net from "node:net";
import type { Logger } from "../../../logger.ts";
import { RelayHostChild } from "./host-child.ts";
import type { RelayLink } from "../pipe/relay-link.ts";

export { relayFolder } from "./host-child.ts";

/**
 * The node's relay hosts (host-child.ts says what one is and why it exists): processes of
 * their own, each owning the pipes of the browsers given to it and relaying their sessions' CDP
 * clients. A browser goes to the host relaying the fewest, so one client's traffic (a 96 MiB
 * message being received and checked, a flood of commands) holds up only the sessions that share
 * its host, and the relaying of different sessions runs on different cores. A host starts with
 * the first browser given to it.
 */
export class RelayHost {
  readonly #hosts: RelayHostChild[];

  constructor(log: Logger, count = 1) {
    this.#hosts = Array.from({ length: Math.max(1, Math.floor(count)) }, () => new RelayHostChild(log));
  }

  /**
   * Hands a launched browser's pipe ends to the host relaying the fewest browsers (the first of
   * equals; one that could not start is passed over) and answers the node's link to them;
   * undefined when no host can run (the ends stay here: the node relays that browser itself).
   */
  adopt(cdpIn: net.Socket, cdpOut: net.Socket): Promise<RelayLink | undefined> {
    const usable = this.#hosts.filter((h) => h.usable);
    const host = usable.length === 0 ? this.#hosts[0]! : usable.reduce((least, h) => (h.browsers < least.browsers ? h : least));
    return host.adopt(cdpIn, cdpOut);
  }

  /** How many hosts browsers are spread over (VESSEL_CDP_RELAY_HOSTS). */
  get count(): number {
    return this.#hosts.length;
  }

  /** How many browsers each host relays now (diagnostics and tests). */
  get browsersPerHost(): number[] {
    return this.#hosts.map((h) => h.browsers);
  }

  /** The running hosts' pids (the benches read their CPU time). */
  get pids(): number[] {
    return this.#hosts.flatMap((h) => (h.pid === undefined ? [] : [h.pid]));
  }

  /** Where each running host listens for the node's links (tests and diagnostics). */
  get socketPaths(): string[] {
    return this.#hosts.flatMap((h) => (h.socketPath === undefined ? [] : [h.socketPath]));
  }

  /** Ends every host (tests; the node's exit ends them anyway). */
  stop(): void {
    for (const h of this.#hosts) h.stop();
  }
}

const shared = new Map<number, RelayHost>();

/** The process's relay hosts of that count (every app in a process shares them, as they share the launcher). */
export function sharedRelayHost(log: Logger, count = 1): RelayHost {
  let hosts = shared.get(count);
  if (!hosts) shared.set(count, (hosts = new RelayHost(log, count)));
  return hosts;
}
