import { z } from "zod";
import { WorkspaceName } from "./workspaces.ts";

/**
 * The hard bounds of a workspace's limits: what even an organization admin may set (the
 * queue_weight column has a CHECK for 1–1000; a session never lives longer than a day).
 */
export const hardBounds = {
  max_sessions: { min: 1, max: 10_000 },
  max_session_seconds: { min: 60, max: 86_400 },
  queue_weight: { min: 1, max: 1_000 },
  rate_limit_per_minute: { min: 1, max: 100_000 },
} as const;

export type LimitField = keyof typeof hardBounds;
export const limitFields = Object.keys(hardBounds) as LimitField[];

const limit = (field: LimitField, what: string) =>
  z
    .number({ error: "must be a whole number or null" })
    .int("must be a whole number")
    .min(hardBounds[field].min, `must be at least ${hardBounds[field].min}`)
    .max(hardBounds[field].max, `must be at most ${hardBounds[field].max}`)
    .nullable()
    .optional()
    .describe(`${what} null = back to the deployment's default; absent = unchanged.`);

/** PATCH /v1/workspace: each field absent = unchanged, null = the deployment's default. */
export const UpdateWorkspaceSettingsInput = z
  .strictObject({
    name: WorkspaceName.optional().describe("The workspace's display name (1–100 characters)."),
    max_sessions: limit("max_sessions", "Most live sessions at once, cluster-wide."),
    max_session_seconds: limit("max_session_seconds", "The longest a session may live, in seconds."),
    queue_weight: limit("queue_weight", "The workspace's share of each turn of the admission queue (organization admins only may raise it above 1)."),
    rate_limit_per_minute: limit("rate_limit_per_minute", "API requests per minute per key."),
  })
  .meta({ id: "UpdateWorkspaceSettingsInput" });

export type UpdateWorkspaceSettingsInput = z.input<typeof UpdateWorkspaceSettingsInput>;
