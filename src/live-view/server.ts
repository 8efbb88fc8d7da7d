import type { AppDeps } from "../kernel/context.ts";
import { liveViewRoutes } from "./http.ts";
import { createViewerSockets, viewerSocketPath } from "./socket.ts";

/**
 * The live view, as the composition root mounts it: the page and its assets (Express), the viewer
 * socket (the upgrade dispatcher) and a close for shutdown.
 */
export function createLiveView(deps: AppDeps) {
  const sockets = createViewerSockets(deps);
  return {
    routes: liveViewRoutes(deps),
    socketPath: viewerSocketPath,
    handleUpgrade: sockets.handleUpgrade,
    close: sockets.close,
  };
}
