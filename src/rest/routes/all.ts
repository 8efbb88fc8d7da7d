import { credentialRoutes } from "./credentials.ts";
import { dashboardRoutes } from "./dashboard.ts";
import { downloadRoutes } from "./downloads.ts";
import { sessionFileRoutes } from "./session-files.ts";
import { extensionRoutes } from "./extensions.ts";
import { healthRoutes } from "./health.ts";
import { profileRoutes } from "./profiles.ts";
import { recordingRoutes } from "./recordings.ts";
import { sessionExportRoutes } from "./session-exports.ts";
import { sessionRoutes } from "./sessions.ts";
import { sessionLogRoutes } from "./session-logs.ts";
import { webhookRoutes } from "./webhooks.ts";
import { networkPolicyRoutes } from "./network-policy.ts";
import { workspaceSettingsRoutes } from "./workspace-settings.ts";
import type { AnyRoute } from "../define-route.ts";

/** Every /v1 operation. The same table registers Express handlers and builds /openapi.json. */
export const routes: readonly AnyRoute[] = [
  ...healthRoutes,
  ...sessionRoutes,
  ...sessionLogRoutes,
  ...recordingRoutes,
  ...sessionExportRoutes,
  ...downloadRoutes,
  ...sessionFileRoutes,
  ...extensionRoutes,
  ...profileRoutes,
  ...credentialRoutes,
  ...webhookRoutes,
  ...networkPolicyRoutes,
  ...workspaceSettingsRoutes,
  ...dashboardRoutes,
];
