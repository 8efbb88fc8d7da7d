import { type Health } from "../../services/health/health.ts";
import type { BrowserPoolReport } from "../../browser/pool/types.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const HealthStatus = builder.enumType("HealthStatus", {
  values: { OK: { value: "ok" }, DEGRADED: { value: "degraded" } } as const,
});
const DependencyStatus = builder.enumType("DependencyStatus", {
  values: { OK: { value: "ok" }, UNAVAILABLE: { value: "unavailable" } } as const,
});
const DatabaseKind = builder.enumType("DatabaseKind", {
  values: { POSTGRES: { value: "postgres" }, PGLITE: { value: "pglite" } } as const,
});
const PoolState = builder.enumType("BrowserPoolState", {
  values: { READY: { value: "ready" }, UNAVAILABLE: { value: "unavailable" } } as const,
});

const IsolationLevel = builder.enumType("IsolationLevel", {
  values: {
    JAIL: { value: "jail", description: "Every browser runs in its own jail (no view of this node's files or processes, no network but its egress listener)." },
    NONE: { value: "none", description: "Browsers run unjailed: the kernel or the configuration (VESSEL_BROWSER_JAIL) does not allow the jail." },
  } as const,
});
const CdpPolicyState = builder.enumType("CdpPolicyState", {
  values: { ON: { value: "on" }, OFF: { value: "off" } } as const,
});

const DatabaseHealth = builder.objectRef<Health["database"]>("DatabaseHealth").implement({
  fields: (t) => ({
    status: t.field({ type: DependencyStatus, resolve: (d) => d.status }),
    kind: t.field({ type: DatabaseKind, resolve: (d) => d.kind }),
    latencyMs: t.float({ nullable: true, resolve: (d) => d.latencyMs }),
  }),
});

const BrowserPoolHealth = builder.objectRef<BrowserPoolReport>("BrowserPoolHealth").implement({
  fields: (t) => ({
    state: t.field({ type: PoolState, resolve: (p) => p.state }),
    capacity: t.exposeInt("capacity"),
    inUse: t.exposeInt("inUse"),
    warm: t.exposeInt("warm"),
  }),
});

const IsolationHealth = builder.objectRef<Health["isolation"]>("IsolationHealth").implement({
  description: "How sessions are kept from this node and from each other (docs/threat-model.md).",
  fields: (t) => ({
    level: t.field({ type: IsolationLevel, resolve: (i) => i.level }),
    cdpPolicy: t.field({ type: CdpPolicyState, description: "Whether clients' CDP commands are judged by the method policy.", resolve: (i) => i.cdpPolicy }),
  }),
});

const HealthType = builder.objectRef<Health>("Health").implement({
  description: "The state of the database and the browser pool, the version, the regions served, and how sessions are isolated.",
  fields: (t) => ({
    status: t.field({ type: HealthStatus, resolve: (h) => h.status }),
    version: t.exposeString("version"),
    regions: t.exposeStringList("regions"),
    database: t.field({ type: DatabaseHealth, resolve: (h) => h.database }),
    browserPool: t.field({ type: BrowserPoolHealth, resolve: (h) => h.browserPool }),
    isolation: t.field({ type: IsolationHealth, resolve: (h) => h.isolation }),
  }),
});

builder.queryField(operations.health.id, (t) =>
  t.field({
    extensions: { operation: operations.health },
    type: HealthType,
    description: "Service health.",
    resolve: (_root, _args, ctx) => audited(ctx, operations.health, (svc, run) => run(svc)),
  }),
);
