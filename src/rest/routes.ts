import { dashboardRoutes } from "./routes/dashboard.ts";
import { downloadRoutes } from "./routes/downloads.ts";
import { healthRoutes } from "./routes/health.ts";
import { profileRoutes } from "./routes/profiles.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import type { AnyRoute } from "./route.ts";

/** Every /v1 operation. The same table registers Express handlers and builds /openapi.json. */
export const routes: readonly AnyRoute[] = [...healthRoutes, ...sessionRoutes, ...downloadRoutes, ...profileRoutes, ...dashboardRoutes];
