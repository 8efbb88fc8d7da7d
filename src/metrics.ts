import { timingSafeEqual, createHash } from "node:crypto";
import type { Request, Response } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Database } from "./db/client.ts";
import type { BrowserPoolReport } from "./browser/pool/types.ts";

/** The batch writers that set entries aside (kernel/set-aside.ts): the `writer` label of `setAside`. */
export const batchWriters = ["audit", "logs", "events", "webhooks"] as const;
export type BatchWriter = (typeof batchWriters)[number];

/**
 * What the scrape-time gauges read from the composed app: only these, typed structurally, so the
 * metrics registry (which the kernel's context names) never imports the context back.
 */
export interface MetricsSources {
  browsers: { report(): BrowserPoolReport };
  runtime: { ids(): string[]; clientCount(id: string): number; viewerCount(id: string): number };
  audit: { readonly pending: number };
  cluster?: { readonly draining: boolean };
  db: Pick<Database, "prisma">;
  now(): Date;
  nodeId: string;
}

/**
 * Prometheus metrics of one node. Gauges are read when scraped (from the pool, the runtime, the
 * audit writer and one grouped count of sessions), so the hot paths only touch counters and
 * histograms. Each app has its own registry (tests run several in one process).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<"route" | "method" | "status">;
  readonly httpDuration: Histogram<"route" | "method">;
  readonly sessionCreate: Histogram<"outcome">;
  readonly rateLimited: Counter<"kind">;
  readonly forwarded: Counter<"kind">;
  /** Entries a batch writer set aside instead of storing (kernel/set-aside.ts). */
  readonly setAside: Counter<"writer">;
  readonly extensionZipsUnpacked: Counter;
  /** From enqueue to start of each session the admission queue started on this node. */
  readonly queueWait: Histogram;
  private deps: MetricsSources | undefined;

  constructor() {
    const registers = [this.registry];
    // Process and Node.js runtime figures: vessel_process_cpu_seconds_total, vessel_nodejs_eventloop_lag_seconds, …
    collectDefaultMetrics({ register: this.registry, prefix: "vessel_" });
    this.httpRequests = new Counter({
      name: "vessel_http_requests_total",
      help: "HTTP requests answered, by route template, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
    });
    this.httpDuration = new Histogram({
      name: "vessel_http_request_duration_seconds",
      help: "Time to answer HTTP requests, by route template.",
      labelNames: ["route", "method"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.sessionCreate = new Histogram({
      name: "vessel_session_create_seconds",
      help: "Time from a create request to a RUNNING session (or its refusal).",
      labelNames: ["outcome"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.rateLimited = new Counter({
      name: "vessel_rate_limited_total",
      help: "Requests refused by a rate limit.",
      labelNames: ["kind"],
      registers,
    });
    this.forwarded = new Counter({
      name: "vessel_forwarded_connections_total",
      help: "CDP and live-view connections relayed to the node that runs their session.",
      labelNames: ["kind"],
      registers,
    });
    this.setAside = new Counter({
      name: "vessel_batch_entries_set_aside_total",
      help: "Entries a batch writer set aside because the database refused them (or would have) for their content, by writer; audit and events store an escaped copy.",
      labelNames: ["writer"],
      registers,
    });
    // Every writer shows, at 0 until it sets something aside.
    for (const writer of batchWriters) this.setAside.inc({ writer }, 0);
    this.extensionZipsUnpacked = new Counter({
      name: "vessel_extension_zips_unpacked_total",
      help: "Extension zips this node read and unpacked (off the event loop): one per upload, and one per stored extension a node prepares; never one per session.",
      registers,
    });
    this.queueWait = new Histogram({
      name: "vessel_queue_wait_seconds",
      help: "Time sessions waited in the admission queue before they started (on the node that started them).",
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    });
    new Gauge({
      name: "vessel_queue_length",
      help: "Sessions waiting in the admission queue, cluster-wide, by workspace (id).",
      labelNames: ["workspace"],
      registers,
      async collect() {
        const deps = self.deps;
        if (!deps) return;
        const rows = await deps.db.prisma.$queryRaw<{ workspace: string; n: number }[]>`SELECT q."workspace_id" AS "workspace", count(*)::int AS "n"
            FROM "session_queue" q JOIN "sessions" s ON s."id" = q."session_id" AND s."status" = 'QUEUED'::"SessionStatus" GROUP BY 1`.catch(() => undefined);
        if (!rows) return;
        this.reset();
        for (const r of rows) this.set({ workspace: r.workspace }, r.n);
      },
    });
    // Read at scrape time from the parts attached once the app is composed.
    const self = this;
    const read = (fn: (deps: MetricsSources) => number) =>
      function (this: Gauge) {
        if (self.deps) this.set(fn(self.deps));
      };
    const gauge = (name: string, help: string, fn: (deps: MetricsSources) => number) => new Gauge({ name, help, registers, collect: read(fn) });
    gauge("vessel_pool_capacity", "Browsers this node may run at once.", (d) => d.browsers.report().capacity);
    gauge("vessel_pool_in_use", "Browsers serving sessions.", (d) => d.browsers.report().inUse);
    gauge("vessel_pool_free_slots", "Sessions this node can still start.", (d) => Math.max(0, d.browsers.report().capacity - d.browsers.report().inUse));
    gauge("vessel_pool_warm", "Spare browsers launched and waiting.", (d) => d.browsers.report().warm);
    gauge("vessel_cdp_connections", "Open CDP client connections on this node.", (d) => d.runtime.ids().reduce((n, id) => n + d.runtime.clientCount(id), 0));
    gauge("vessel_live_view_connections", "Open live viewers on this node.", (d) => d.runtime.ids().reduce((n, id) => n + d.runtime.viewerCount(id), 0));
    gauge("vessel_audit_queue_depth", "Audit entries waiting to be written.", (d) => d.audit.pending);
    gauge("vessel_node_draining", "1 while this node drains (after SIGTERM), else 0.", (d) => (d.cluster?.draining ? 1 : 0));
    new Gauge({
      name: "vessel_sessions",
      help: "Sessions owned by this node, by status (live ones; ended ones in the last hour).",
      labelNames: ["status"],
      registers,
      async collect() {
        const deps = self.deps;
        if (!deps) return;
        const since = new Date(deps.now().getTime() - 3_600_000);
        // While the database is unreachable the scrape still answers (with these figures left out).
        const rows = await deps.db.prisma.session
          .groupBy({
            by: ["status"],
            where: { nodeId: deps.nodeId, OR: [{ endedAt: null }, { endedAt: { gte: since } }] },
            _count: { _all: true },
          })
          .catch(() => undefined);
        if (!rows) return;
        this.reset();
        for (const status of ["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"]) {
          this.set({ status }, rows.find((r) => r.status === status)?._count._all ?? 0);
        }
      },
    });
  }

  /** Binds the scrape-time gauges to the app's parts. */
  attach(deps: MetricsSources): void {
    this.deps = deps;
  }

  /** Express middleware: counts and times every request by its route template (never the raw path, which holds ids). */
  observe() {
    return (req: Request, res: Response, next: () => void) => {
      const end = this.httpDuration.startTimer();
      res.once("finish", () => {
        const route = routeTemplate(req);
        end({ route, method: req.method });
        this.httpRequests.inc({ route, method: req.method, status: String(res.statusCode) });
      });
      next();
    };
  }

  /** `GET /metrics`, behind a bearer token when one is configured (scrapers send it). */
  handler(token: string | undefined) {
    const expected = token ? createHash("sha256").update(token).digest() : undefined;
    return async (req: Request, res: Response) => {
      if (expected) {
        const presented = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
        if (!timingSafeEqual(createHash("sha256").update(presented).digest(), expected)) {
          res.status(401).setHeader("WWW-Authenticate", 'Bearer realm="metrics"').type("text/plain").send("metrics need the configured token\n");
          return;
        }
      }
      res.setHeader("Content-Type", this.registry.contentType);
      res.setHeader("Cache-Control", "no-store");
      res.send(await this.registry.metrics());
    };
  }
}

/** The matched route's template (`/v1/sessions/:id`), or a fixed label for everything unmatched. */
function routeTemplate(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === "string") return `${req.baseUrl}${path}`;
  return "unmatched";
}
