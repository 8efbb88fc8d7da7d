// The settings of several nodes sharing PostgreSQL: heartbeats, leases (fencing) and when a silent
// node counts as dead. Their own file because the lease and skew defaults derive from the node timeout;
// src/settings.ts lists them in their place among every setting.
import type { Setting } from "./settings-shape.ts";

/** The node timeout a partial configuration names (seconds), or its default. */
function nodeTimeoutOf(c: Record<string, unknown>): number {
  const t = Number((c.cluster as Record<string, unknown> | undefined)?.nodeTimeoutSeconds ?? 30);
  return Number.isFinite(t) && t > 0 ? t : 30;
}
const skewDefault = (c: Record<string, unknown>) => Math.min(2, nodeTimeoutOf(c) / 10);
const leaseDefault = (c: Record<string, unknown>) => nodeTimeoutOf(c) / 2;

export const clusterSettings: readonly Setting[] = [
  {
    key: "cluster.heartbeatSeconds",
    env: "VESSEL_HEARTBEAT_SECONDS",
    kind: "number",
    description: "How often a node records its heartbeat, capacity and free slots (PostgreSQL deployments)",
    fallback: () => 5,
  },
  {
    key: "cluster.nodeTimeoutSeconds",
    env: "VESSEL_NODE_TIMEOUT_SECONDS",
    kind: "number",
    description: "A node silent this long is dead: a peer ends its sessions (node_shutdown); must exceed the lease plus the clock-skew margin",
    fallback: () => 30,
  },
  {
    key: "cluster.leaseSeconds",
    env: "VESSEL_LEASE_SECONDS",
    kind: "number",
    description:
      "How long a renewed lease lets a node run its sessions: a node that cannot renew it in time closes its sessions' sockets (4503) and browsers; default: half the node timeout",
    fallback: (c) => leaseDefault(c),
    derived: true,
  },
  {
    key: "cluster.clockSkewSeconds",
    env: "VESSEL_CLOCK_SKEW_SECONDS",
    kind: "number",
    description:
      "Margin between a lease running out and peers taking the node for dead (timers firing late, clocks running at different rates); default: a tenth of the node timeout, at most 2",
    fallback: (c) => skewDefault(c),
    derived: true,
  },
  {
    key: "cluster.placementTimeoutMs",
    env: "VESSEL_PLACEMENT_TIMEOUT_MS",
    kind: "number",
    description:
      "Longest a create waits to reach another node (or the database) before it is placed elsewhere or answered 503; also bounds connecting a relayed socket to its node",
    fallback: () => 2000,
  },
];
