import { version } from "../../config.ts";
import { requirePrincipal } from "../../kernel/authz.ts";
import type { BrowserPoolReport } from "../../browser/pool/types.ts";
import type { ServiceContext } from "../../kernel/context.ts";

export interface Health {
  status: "ok" | "degraded";
  version: string;
  regions: string[];
  database: { status: "ok" | "unavailable"; kind: "postgres" | "pglite"; latencyMs: number | null };
  browserPool: BrowserPoolReport;
  /**
   * How sessions are kept from this node and from each other (docs/threat-model.md): `jail` when every
   * browser runs in its own bubblewrap jail, `none` when only the CDP policy and the egress listener stand.
   */
  isolation: { level: "jail" | "none"; cdpPolicy: "on" | "off" };
}

/** The service's own view of its dependencies. Never throws: a failing dependency is reported, not raised. */
export async function getHealth(ctx: ServiceContext): Promise<Health> {
  requirePrincipal(ctx);
  const { db, config, browsers } = ctx.deps;
  const started = performance.now();
  let latencyMs: number | null = null;
  try {
    await db.ping();
    latencyMs = Math.round((performance.now() - started) * 10) / 10;
  } catch (err) {
    ctx.log.warn({ err }, "health: database ping failed");
  }
  const pool = browsers.report();
  const healthy = latencyMs !== null && pool.state === "ready";
  return {
    status: healthy ? "ok" : "degraded",
    version,
    regions: [...config.regions],
    database: { status: latencyMs === null ? "unavailable" : "ok", kind: db.kind, latencyMs },
    browserPool: pool,
    isolation: { level: browsers.isolation.level, cdpPolicy: browsers.enforcesCdpPolicy ? "on" : "off" },
  };
}
