// What load balancers and orchestrators ask of this node, and the one answer every other call gets
// while the node cannot reach the database: liveness, readiness (unready while draining or fenced) and
// the fence itself. Apart from src/app.ts because all three read the node's state in the cluster.
import type { Express, NextFunction, Request, Response } from "express";
import type { Cluster } from "./cluster/cluster.ts";
import { internalPrefix } from "./cluster/internal-api.ts";
import type { Database } from "./db/client.ts";
import { AppError } from "./errors.ts";
import { sendProblem } from "./kernel/problems.ts";
import type { Logger } from "./logger.ts";

/** Mounts the fence, then `/healthz` and `/readyz`: before every other route, so the fence answers for them all. */
export function mountProbes(app: Express, { cluster, db, log }: { cluster: Cluster; db: Database; log: Logger }): void {
  // A node that lost its lease (cluster/lease.ts) cannot reach the database: every call that would
  // wait for it is answered at once instead (health, readiness, metrics and peers' calls go on).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!cluster.fenced || ["/healthz", "/readyz", "/metrics"].includes(req.path) || req.path.startsWith(internalPrefix)) return next();
    sendProblem(
      req,
      res,
      new AppError(
        "service-unavailable",
        "This node cannot reach the database right now; retry shortly (through the load balancer).",
        {},
        { "Retry-After": "2" },
      ),
    );
  });

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (req, res) => {
    if (cluster.draining) {
      // Load balancers stop sending new work here; running sessions go on (and stay reachable).
      return sendProblem(req, res, new AppError("service-unavailable", "This node is shutting down.", {}, { "Retry-After": "5" }));
    }
    if (cluster.fenced)
      return sendProblem(req, res, new AppError("service-unavailable", "This node cannot reach the database (its lease ran out).", {}, { "Retry-After": "2" }));
    try {
      await db.ping();
      res.json({ status: "ready" });
    } catch (err) {
      log.warn({ err }, "readiness: database unreachable");
      sendProblem(req, res, new AppError("service-unavailable", "The database is not reachable."));
    }
  });
}
