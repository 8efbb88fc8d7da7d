import fs from "node:fs";

/**
 * The host users jailed programs run as (docs/threat-model.md, layer 3). Inside its jail a browser is
 * uid 1000; outside, that uid is whoever started bwrap. Before, that was the service itself: root
 * when the service ran as root, so a browser that escaped its jail was root on the host, and as any
 * other user it could read the data folder and its master key.
 *
 * A service that may switch users (root, or CAP_SETUID + CAP_SETGID + CAP_CHOWN) starts each jail
 * as a host user of its own, taken from a range no one else uses (VESSEL_BROWSER_UID and
 * VESSEL_BROWSER_GID name its first ids): every browser and every recording encoder has a uid no
 * other process has, owning its 0700 folder, so one that escapes its jail can read neither the
 * node's files nor another session's. A uid goes back to the range only once its processes are gone.
 * Taking one and handing a fresh folder to it costs a few chowns (decision 0141).
 *
 * A service that cannot switch users runs jails as itself (there is no setuid helper: bwrap maps one
 * uid, its caller's, and newuidmap ranges are not used), and says so loudly at start.
 */

export interface JailUser {
  uid: number;
  gid: number;
}

/** How many ids the range holds: far more than the browsers and encoders one node runs at once. */
export const JAIL_USER_RANGE = 65_536;

/** Capability bits (linux/capability.h) a service needs to start jails as other users and give them their folders. */
const CAP_CHOWN = 0n;
const CAP_SETGID = 6n;
const CAP_SETUID = 7n;

/** Why this process cannot start programs as the users of `range`, or undefined when it can. */
export function cannotSwitchUsers(range: JailUser, proc = readProc): string | undefined {
  const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(proc("status"))?.[1];
  if (!caps) return "its capabilities cannot be read (/proc/self/status)";
  const effective = BigInt(`0x${caps}`);
  const missing = [
    ["CAP_SETUID", CAP_SETUID],
    ["CAP_SETGID", CAP_SETGID],
    ["CAP_CHOWN", CAP_CHOWN],
  ]
    .filter(([, bit]) => ((effective >> (bit as bigint)) & 1n) === 0n)
    .map(([name]) => name);
  if (missing.length > 0) return `it runs as uid ${process.getuid?.()} without ${missing.join(", ")}`;
  // Root in a user namespace of its own (a rootless container) has those capabilities, but only over the ids it maps.
  for (const [file, first] of [
    ["uid_map", range.uid],
    ["gid_map", range.gid],
  ] as const) {
    if (!mapped(proc(file), first, JAIL_USER_RANGE))
      return `ids ${first}–${first + JAIL_USER_RANGE - 1} are not mapped in its user namespace (/proc/self/${file})`;
  }
  return undefined;
}

/** Whether ids first…first+count-1 lie in one extent of a uid_map / gid_map ("inside outside count" lines). */
function mapped(map: string, first: number, count: number): boolean {
  return map.split("\n").some((line) => {
    const [inside, , length] = line.trim().split(/\s+/).map(Number);
    return inside !== undefined && length !== undefined && first >= inside && first + count <= inside + length;
  });
}

function readProc(file: string): string {
  try {
    return fs.readFileSync(`/proc/self/${file}`, "utf8");
  } catch {
    return "";
  }
}

export class JailUsers {
  readonly #taken = new Set<number>();
  #next = 0;

  /** `undefined` when jails run as this process's own user (it cannot switch). */
  constructor(readonly range: JailUser | undefined) {}

  get switching(): boolean {
    return this.range !== undefined;
  }

  /** A user of its own, or undefined when jails run as this process (or, never in practice, every id is taken). */
  take(): JailUser | undefined {
    if (!this.range) return undefined;
    for (let i = 0; i < JAIL_USER_RANGE; i++) {
      const offset = (this.#next + i) % JAIL_USER_RANGE;
      if (this.#taken.has(offset)) continue;
      this.#taken.add(offset);
      // Round-robin, not lowest-free: a uid just given back is the last to be used again.
      this.#next = (offset + 1) % JAIL_USER_RANGE;
      return { uid: this.range.uid + offset, gid: this.range.gid + offset };
    }
    return undefined;
  }

  /** Gives a user back, once every process that ran as it is gone. */
  release(user: JailUser | undefined): void {
    if (user && this.range) this.#taken.delete(user.uid - this.range.uid);
  }
}

/** Hands `paths` (fresh, empty folders and sockets this process made) to `user`; nothing when undefined. */
export function handOver(paths: readonly string[], user: JailUser | undefined): void {
  if (!user) return;
  for (const p of paths) fs.chownSync(p, user.uid, user.gid);
}

let current = new JailUsers(undefined);

/** The node's jail users, set once at start (jail.ts detectIsolation). */
export function jailUsers(): JailUsers {
  return current;
}

export function setJailUsers(users: JailUsers): void {
  current = users;
}
