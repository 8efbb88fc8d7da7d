import { getHealth, type Health } from "../../services/health.ts";
import type { BrowserPoolReport } from "../../services/context.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";

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

const HealthType = builder.objectRef<Health>("Health").implement({
  description: "The state of the database and the browser pool, the version, and the regions served.",
  fields: (t) => ({
    status: t.field({ type: HealthStatus, resolve: (h) => h.status }),
    version: t.exposeString("version"),
    regions: t.exposeStringList("regions"),
    database: t.field({ type: DatabaseHealth, resolve: (h) => h.database }),
    browserPool: t.field({ type: BrowserPoolHealth, resolve: (h) => h.browserPool }),
  }),
});

builder.queryField("health", (t) =>
  t.field({ type: HealthType, description: "Service health.", resolve: (_root, _args, ctx) => audited(ctx, "health", getHealth) }),
);
