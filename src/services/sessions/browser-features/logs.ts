import { startSessionLogs } from "../../session-logs/capture.ts";
import { defineFeature } from "./feature.ts";

/**
 * `logs` (default: the deployment's): the node's own capture, on channels of its own, written to the
 * pipe before the create is answered. A browser opens its capture as it launches (the pool's
 * `logCapture`); a session that keeps no logs closes it.
 */
export const sessionLogs = defineFeature({
  name: "logs",
  reads: ["logs"],
  phase: "running",
  // The capture only listens; a lease given back unused drops its sink (browser/pool/lease.ts).
  dirtiesSpare: false,
  wanted: () => true,
  apply: ({ ctx, session, lease }) => {
    if (session.logs) startSessionLogs(ctx.deps, session, lease);
    else lease.logCapture?.close();
  },
});
