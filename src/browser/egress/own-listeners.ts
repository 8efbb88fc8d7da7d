import net from "node:net";
import os from "node:os";
import { normalizeAddress } from "./address.ts";

/**
 * What this process listens on (its HTTP server, its egress listeners' loopback ports, the internal
 * address peers reach it at), so that the egress policy can refuse them whatever the allow-list
 * says: an allow for 127.0.0.2 or 10.0.0.0/8 must not open the node's own 0.0.0.0:8080 to a
 * session's browser or to a webhook (security.md §1.13). A listener on 0.0.0.0 or :: answers on
 * every address of this machine, so for it every local address counts (loopback, the unspecified
 * address, and each interface's).
 */

interface Listener {
  /** Normalized (address.ts); undefined for the wildcard. */
  address: string | undefined;
  port: number;
}

const listeners = new Set<Listener>();

/** Registers address:port as this process's until the returned function is called. */
export function addOwnListener(address: string, port: number): () => void {
  const wildcard = address === "" || address === "0.0.0.0" || address === "::";
  const entry: Listener = { address: wildcard ? undefined : (normalizeAddress(address)?.address ?? address.toLowerCase()), port };
  listeners.add(entry);
  return () => void listeners.delete(entry);
}

/** Registers a server's address while it listens (TCP only: a Unix socket is no destination). */
export function ownServer(server: net.Server): void {
  let remove: (() => void) | undefined;
  const track = () => {
    remove?.();
    const at = server.address();
    remove = at && typeof at === "object" ? addOwnListener(at.address, at.port) : undefined;
  };
  if (server.listening) track();
  server.on("listening", track);
  server.once("close", () => remove?.());
}

/** Does a connection to address:port reach something this process listens on? */
export function listensOn(address: string, port: number): boolean {
  const target = normalizeAddress(address);
  if (!target) return false;
  for (const l of listeners) {
    if (l.port !== port) continue;
    if (l.address === undefined ? isLocal(target.address, target.family) : l.address === target.address) return true;
    // The unspecified address reaches this machine's listeners, whichever address they bound.
    if (target.address === "0.0.0.0" || target.address === "::") return true;
  }
  return false;
}

const local = new net.BlockList();
local.addSubnet("127.0.0.0", 8, "ipv4");
local.addSubnet("0.0.0.0", 8, "ipv4");
local.addAddress("::1", "ipv6");
local.addAddress("::", "ipv6");

/** Interfaces' addresses change rarely (DHCP, a new pod IP never while running): read again at most this often. */
const INTERFACES_TTL_MS = 2_000;
let interfaces: { at: number; addresses: Set<string> } | undefined;

function isLocal(address: string, family: "ipv4" | "ipv6"): boolean {
  if (local.check(address, family)) return true;
  const now = Date.now();
  if (!interfaces || now - interfaces.at > INTERFACES_TTL_MS) {
    const addresses = new Set<string>();
    for (const list of Object.values(os.networkInterfaces())) {
      for (const i of list ?? []) {
        const n = normalizeAddress(i.address.split("%")[0]!);
        if (n) addresses.add(n.address);
      }
    }
    interfaces = { at: now, addresses };
  }
  return interfaces.addresses.has(address);
}
