import { AppError, validationError } from "../../errors.ts";
import type { Workspace } from "../../generated/prisma/client.ts";
import { DEFAULT_KEY_LIMIT_PER_MINUTE } from "../../auth/rate-limit.ts";
import { actingWorkspace, requirePrincipal, requireWorkspaceRole } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { parseInput, prismaOf } from "../../kernel/support.ts";
import { auditedTransaction, type Tx } from "../audit/audited.ts";
import { writeAuditInTx } from "../audit/audit.ts";
import { isOrganizationAdmin } from "../sign-ins/users.ts";
import { hardBounds, limitFields, UpdateWorkspaceSettingsInput, type LimitField } from "./workspace-settings-input.ts";

/**
 * A workspace's name and limits (issue 45; queue_weight from issue 43). Any member or key reads them
 * with the deployment's defaults applied; owners change them within what the deployment grants, so
 * one tenant cannot take more than the operator meant to give; organization admins (and the
 * operator's `npm run admin -- workspace`) within the hard bounds only.
 */

export type Limits = Record<LimitField, number | null>;

export interface WorkspaceSettingsView {
  workspace: Workspace;
  /** Its own values; null = the deployment's default applies. */
  limits: Limits;
  /** What applies now: its own value, else the deployment's default (max_sessions null = no cap). */
  effective: Limits;
  /** The most an owner may set each to (null = no bound below the hard one): shown by the dashboard. */
  ownerBounds: Limits;
}

function limitsOf(ws: Workspace): Limits {
  return {
    max_sessions: ws.maxSessions,
    max_session_seconds: ws.maxSessionSeconds,
    queue_weight: ws.queueWeight,
    rate_limit_per_minute: ws.rateLimitPerMinute,
  };
}

/** What the deployment grants a workspace that sets nothing of its own. */
function defaults(ctx: ServiceContext): Limits {
  return {
    max_sessions: ctx.deps.config.workspaceMaxSessions ?? null,
    max_session_seconds: ctx.deps.config.maxSessionSeconds,
    queue_weight: 1,
    rate_limit_per_minute: DEFAULT_KEY_LIMIT_PER_MINUTE,
  };
}

/** The setting each owner bound comes from, named in a refusal. */
const grantedBy: Record<LimitField, string> = {
  max_sessions: "VESSEL_WORKSPACE_MAX_SESSIONS",
  max_session_seconds: "VESSEL_MAX_SESSION_SECONDS",
  queue_weight: "the default queue weight (only an organization admin raises it)",
  rate_limit_per_minute: "the deployment's default request rate",
};

export function toView(ctx: ServiceContext, workspace: Workspace): WorkspaceSettingsView {
  const limits = limitsOf(workspace);
  const base = defaults(ctx);
  const effective = Object.fromEntries(limitFields.map((f) => [f, limits[f] ?? base[f]])) as Limits;
  return { workspace, limits, effective, ownerBounds: base };
}

/** GET /v1/workspace: any member (or an organization admin) names it; a key reads its own. */
export async function getWorkspaceSettings(ctx: ServiceContext): Promise<WorkspaceSettingsView> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "user" && isOrganizationAdmin(ctx.deps, principal.email)) return toView(ctx, await namedWorkspace(ctx));
  const id = await actingWorkspace(ctx, "read its settings");
  return toView(ctx, await prismaOf(ctx).workspace.findUniqueOrThrow({ where: { id } }));
}

/** An organization admin acts in any workspace by its slug, member or not. */
async function namedWorkspace(ctx: ServiceContext): Promise<Workspace> {
  if (ctx.workspace === undefined) throw validationError([{ field: "workspace", message: "name the workspace (its slug)" }]);
  const ws = await prismaOf(ctx).workspace.findUnique({ where: { slug: ctx.workspace } });
  if (!ws) throw new AppError("not-found", "No such workspace.");
  if (ctx.audit) ctx.audit.workspaceId = ws.id;
  return ws;
}

/**
 * PATCH /v1/workspace. Owners may rename and set limits up to what the deployment grants (a value
 * sent back unchanged is never refused, so a form round-trips); organization admins within the hard
 * bounds. Everyone else: 403. Audited as `workspace.update` with the changed fields' names (target
 * `<workspace id>#field,field`). Keys of the workspace cached on this node take the new limits at
 * once; other nodes' caches within a minute (auth/authenticate.ts, recordTtlMs).
 */
export async function updateWorkspaceSettings(ctx: ServiceContext, input: UpdateWorkspaceSettingsInput): Promise<WorkspaceSettingsView> {
  const principal = requirePrincipal(ctx);
  if (principal.kind !== "user") throw new AppError("forbidden", "API keys cannot change workspace settings; this is a dashboard action for owners.");
  const orgAdmin = isOrganizationAdmin(ctx.deps, principal.email);
  const ws = orgAdmin ? await namedWorkspace(ctx) : await requireWorkspaceRole(ctx, ["OWNER"], "change the workspace's settings");
  return applySettings(ctx, ws, input, !orgAdmin, (work) => auditedTransaction(ctx, work));
}

/**
 * The operator's path (`npm run admin -- workspace <slug> ...` over the admin socket): the hard
 * bounds only, as an organization admin. Audited as `workspace.update` with no actor (the
 * operator is whoever can reach the data folder) and logged.
 */
export async function updateWorkspaceSettingsAsOperator(ctx: ServiceContext, slug: string, input: unknown): Promise<WorkspaceSettingsView> {
  const ws = await prismaOf(ctx).workspace.findUnique({ where: { slug } });
  if (!ws) throw new AppError("not-found", `No workspace has the slug "${slug}".`);
  const entry = (target: string) => ({
    workspaceId: ws.id,
    keyPrefix: null,
    actorUserId: null,
    action: "workspace.update",
    target,
    httpStatus: 200,
    requestId: ctx.requestId,
    ip: null,
  });
  const view = await applySettings(ctx, ws, input, false, (work) =>
    prismaOf(ctx).$transaction((tx) => work(tx, (target) => writeAuditInTx(tx, entry(target)))),
  );
  ctx.log.info({ workspace: slug, limits: view.limits }, "the admin command changed a workspace's settings");
  return view;
}

/** Runs the change and its audit entry in one transaction. */
type InTransaction = (work: (tx: Tx, audit: (target: string) => Promise<void>) => Promise<Workspace>) => Promise<Workspace>;

async function applySettings(
  ctx: ServiceContext,
  ws: Workspace,
  input: unknown,
  asOwner: boolean,
  inTransaction: InTransaction,
): Promise<WorkspaceSettingsView> {
  const body = parseInput(UpdateWorkspaceSettingsInput, input);
  const current = limitsOf(ws);
  const changed = limitFields.filter((f) => body[f] !== undefined && body[f] !== current[f]);
  if (asOwner) checkOwnerBounds(ctx, changed, body);
  const renamed = body.name !== undefined && body.name !== ws.name;
  const fields = [...(renamed ? ["name"] : []), ...changed];
  if (fields.length === 0) return toView(ctx, ws);
  const data = {
    ...(renamed ? { name: body.name } : {}),
    ...(changed.includes("max_sessions") ? { maxSessions: body.max_sessions } : {}),
    ...(changed.includes("max_session_seconds") ? { maxSessionSeconds: body.max_session_seconds } : {}),
    ...(changed.includes("queue_weight") ? { queueWeight: body.queue_weight ?? 1 } : {}),
    ...(changed.includes("rate_limit_per_minute") ? { rateLimitPerMinute: body.rate_limit_per_minute } : {}),
  };
  const updated = await inTransaction(async (tx, audit) => {
    const row = await tx.workspace.update({ where: { id: ws.id }, data });
    await audit(`${ws.id}#${fields.join(",")}`);
    return row;
  });
  ctx.deps.auth.workspaceChanged(ws.id);
  return toView(ctx, updated);
}

/**
 * 403 naming the first limit an owner asked above what the deployment grants, with the bound and
 * where it comes from (`field`, `bound`, `setting` members); nothing changed. A permission refusal,
 * not a bad value: an organization admin may set it.
 */
function checkOwnerBounds(ctx: ServiceContext, changed: LimitField[], body: Partial<Limits>): void {
  const granted = defaults(ctx);
  for (const field of changed) {
    const asked = body[field] ?? null;
    const bound = granted[field];
    if (asked === null || bound === null || asked <= bound) continue;
    throw new AppError("forbidden", `${field} may be at most ${bound} (${grantedBy[field]}); an organization admin may set up to ${hardBounds[field].max}.`, {
      field,
      bound,
      setting: grantedBy[field],
    });
  }
}
