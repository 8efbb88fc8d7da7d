import { z } from "zod";
import { type Health } from "../../services/health/health.ts";
import { defineRoute } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

export const HealthDto = z
  .object({
    status: z.enum(["ok", "degraded"]).describe("`ok` when the database answers and browsers can be launched."),
    version: z.string(),
    regions: z.array(z.string()).describe("Regions this deployment serves."),
    database: z.object({
      status: z.enum(["ok", "unavailable"]),
      kind: z.enum(["postgres", "pglite"]),
      latency_ms: z.number().nullable(),
    }),
    browser_pool: z.object({
      state: z.enum(["ready", "unavailable"]),
      capacity: z.number().int(),
      in_use: z.number().int(),
      warm: z.number().int(),
    }),
    isolation: z
      .object({
        level: z
          .enum(["jail", "none"])
          .describe(
            "`jail`: every browser runs in its own jail (bubblewrap: no view of this node's files or processes, no network but its egress listener). `none`: the kernel or the configuration (`VESSEL_BROWSER_JAIL`) does not allow it.",
          ),
        cdp_policy: z.enum(["on", "off"]).describe("Whether clients' CDP commands are judged by the method policy (`off` only in isolation tests)."),
      })
      .describe("How sessions are kept from this node and from each other (docs/threat-model.md)."),
  })
  .meta({ id: "Health" });

export function toHealthDto(h: Health): z.infer<typeof HealthDto> {
  return {
    status: h.status,
    version: h.version,
    regions: h.regions,
    database: { status: h.database.status, kind: h.database.kind, latency_ms: h.database.latencyMs },
    browser_pool: { state: h.browserPool.state, capacity: h.browserPool.capacity, in_use: h.browserPool.inUse, warm: h.browserPool.warm },
    isolation: { level: h.isolation.level, cdp_policy: h.isolation.cdpPolicy },
  };
}

export const healthRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/health",
    operation: operations.health,
    summary: "Service health",
    description: "The state of the database and the browser pool, the version, the regions served, and how sessions are isolated.",
    tags: ["Service"],
    input: {},
    status: 200,
    response: HealthDto,
    handler: async (ctx, _input, _http, run) => toHealthDto(await run(ctx)),
  }),
];
