import { z } from "zod";
import type { Limits, WorkspaceSettingsView } from "../../services/workspaces/workspace-settings.ts";
import { UpdateWorkspaceSettingsInput } from "../../services/workspaces/workspace-settings-input.ts";
import { operations } from "../../services/operations.ts";
import { defineRoute } from "../define-route.ts";

const LimitsDto = (id: string, what: string) =>
  z
    .object({
      max_sessions: z.number().int().nullable().describe("Most live sessions at once, cluster-wide (null: no cap)."),
      max_session_seconds: z.number().int().nullable().describe("The longest a session may live, in seconds."),
      queue_weight: z.number().int().nullable().describe("Its share of each turn of the admission queue."),
      rate_limit_per_minute: z.number().int().nullable().describe("API requests per minute per key."),
    })
    .describe(what)
    .meta({ id });

const WorkspaceSettingsDto = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    created_at: z.string(),
    limits: LimitsDto("WorkspaceLimits", "The workspace's own values; null = the deployment's default applies."),
    effective: LimitsDto("WorkspaceEffectiveLimits", "What applies to its next session: its own value, else the deployment's default."),
    owner_bounds: LimitsDto(
      "WorkspaceOwnerBounds",
      "The most an owner may set each limit to (what the deployment grants; null: only the hard bound). Organization admins may go up to the hard bounds.",
    ),
  })
  .meta({ id: "WorkspaceSettings" });

const limitsDto = (l: Limits) => ({ ...l });

const toDto = (v: WorkspaceSettingsView): z.output<typeof WorkspaceSettingsDto> => ({
  id: v.workspace.id,
  slug: v.workspace.slug,
  name: v.workspace.name,
  created_at: v.workspace.createdAt.toISOString(),
  limits: limitsDto(v.limits),
  effective: limitsDto(v.effective),
  owner_bounds: limitsDto(v.ownerBounds),
});

/** Dashboard users name the workspace; API keys act in their own. */
const Ws = z.object({ workspace: z.string().min(1).max(64).optional().describe("Dashboard users name the workspace (slug); API keys act in their own.") });
const tags = ["Workspace"];

export const workspaceSettingsRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/workspace",
    operation: operations.workspaceSettings,
    summary: "Get the workspace's name and limits",
    description: "Any member, or a key of the workspace. `limits` are its own values (null: the deployment's default), `effective` what applies.",
    tags,
    auth: "apiKeyOrUser",
    input: { query: Ws },
    status: 200,
    response: WorkspaceSettingsDto,
    problems: ["forbidden", "not-found"],
    handler: async (ctx, _input, _http, run) => toDto(await run(ctx)),
  }),
  defineRoute({
    method: "patch",
    path: "/v1/workspace",
    operation: operations.updateWorkspaceSettings,
    summary: "Rename the workspace or change its limits",
    description:
      "Workspace owners, within what the deployment grants (`owner_bounds`; a value sent back unchanged is always accepted); organization " +
      "admins within the hard bounds (max_sessions 1–10000, max_session_seconds 60–86400, queue_weight 1–1000, rate_limit_per_minute 1–100000). " +
      "Above an owner's bound: 403 with `field`, `bound` and `setting` members. Absent fields are unchanged, null puts a limit back to the deployment's default. Admins, members and API keys: 403. New sessions " +
      "take the new limits at once (a key's cached limits on another node within a minute); running sessions keep theirs.",
    tags,
    auth: "apiKeyOrUser",
    input: { query: Ws, body: UpdateWorkspaceSettingsInput },
    status: 200,
    response: WorkspaceSettingsDto,
    problems: ["forbidden", "not-found"],
    bodyLimit: "4kb",
    handler: async (ctx, { body }, _http, run) => toDto(await run(ctx, body)),
  }),
];
