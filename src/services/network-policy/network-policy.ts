import type { RuleLayer } from "../../browser/egress/rules.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import { actingWorkspace, requirePrincipal, requireWorkspaceRole } from "../../kernel/authz.ts";
import type { AppDeps, ServiceContext } from "../../kernel/context.ts";
import { parseInput, prismaOf } from "../../kernel/support.ts";
import { validationError } from "../../errors.ts";
import { NetworkPolicyInput, policyLayer, storedPolicy } from "./network-policy-input.ts";

/**
 * A workspace's network rules (issue 47): what its sessions' browsers may reach, within what the node
 * allows. Kept on the workspace row; a session takes them when it is created (browser-features/
 * network-policy.ts) and again whenever they change: the changing node publishes the workspace's id
 * on {@link networkPolicyChanges} and every node re-applies them to the sessions it runs (within
 * the time a pub/sub message takes, well under the 5 s the issue asks).
 */

/** Pub/sub channel: a workspace id whose rules changed. */
export const networkPolicyChanges = "workspace-network-policy";

export interface NetworkPolicyView {
  allow: string[];
  deny: string[];
  updatedAt: Date | null;
}

const none = (): NetworkPolicyView => ({ allow: [], deny: [], updatedAt: null });

/** An API key's own workspace, or the one a user names: any member reads, owners and admins change. */
async function policyWorkspace(ctx: ServiceContext, change: boolean): Promise<string> {
  const principal = requirePrincipal(ctx);
  if (principal.kind === "apiKey") return actingWorkspace(ctx, "use its network policy");
  if (ctx.workspace === undefined) throw validationError([{ field: "workspace", message: "name the workspace (its slug)" }]);
  const roles = change ? (["OWNER", "ADMIN"] as const) : (["OWNER", "ADMIN", "MEMBER"] as const);
  return (await requireWorkspaceRole(ctx, roles, change ? "change the network policy" : "read the network policy")).id;
}

function view(stored: unknown): NetworkPolicyView {
  const policy = storedPolicy(stored);
  const at = stored && typeof stored === "object" && "updated_at" in stored ? new Date(String(stored.updated_at)) : null;
  return policy ? { allow: policy.allow, deny: policy.deny, updatedAt: at && !Number.isNaN(at.getTime()) ? at : null } : none();
}

/** GET /v1/workspace/network-policy. */
export async function getNetworkPolicy(ctx: ServiceContext): Promise<NetworkPolicyView> {
  const workspaceId = await policyWorkspace(ctx, false);
  const row = await prismaOf(ctx).workspace.findUnique({ where: { id: workspaceId }, select: { networkPolicy: true } });
  return view(row?.networkPolicy);
}

/**
 * PUT /v1/workspace/network-policy: replaces the rules (empty lists remove them). Every rule is
 * checked first (a bad one → 422 naming it, nothing changed) and stored normalised (IDNA names,
 * canonical addresses), as the egress listener will read them.
 */
export async function setNetworkPolicy(ctx: ServiceContext, input: NetworkPolicyInput): Promise<NetworkPolicyView> {
  const workspaceId = await policyWorkspace(ctx, true);
  const policy = parseInput(NetworkPolicyInput, input);
  const layer = policyLayer("workspace", policy);
  const normalised = { allow: layer.allow.map((r) => r.text), deny: layer.deny.map((r) => r.text) };
  const empty = normalised.allow.length === 0 && normalised.deny.length === 0;
  const now = ctx.deps.now();
  if (ctx.audit) ctx.audit.target = workspaceId;
  await prismaOf(ctx).workspace.update({
    where: { id: workspaceId },
    data: { networkPolicy: empty ? Prisma.DbNull : { ...normalised, updated_at: now.toISOString() } },
  });
  // Every node, this one included, applies them to its running sessions (a publish Redis refuses still reaches this node's listeners).
  await ctx.deps.pubsub.publish(networkPolicyChanges, workspaceId);
  return empty ? none() : { ...normalised, updatedAt: now };
}

/** The layers a session's browser enforces: the workspace's rules, then its own (each only narrows). */
export function sessionLayers(workspacePolicy: unknown, sessionPolicy: unknown): RuleLayer[] {
  const layers: RuleLayer[] = [];
  const ws = storedPolicy(workspacePolicy);
  if (ws) layers.push(policyLayer("workspace", ws));
  const own = storedPolicy(sessionPolicy);
  if (own) layers.push(policyLayer("session", own));
  return layers;
}

/** The rules of a workspace as stored (null: none), for a create about to take them. */
export async function workspacePolicy(ctx: ServiceContext, workspaceId: string): Promise<unknown> {
  const row = await prismaOf(ctx).workspace.findUnique({ where: { id: workspaceId }, select: { networkPolicy: true } });
  return row?.networkPolicy ?? null;
}

/**
 * Heard on {@link networkPolicyChanges}: applies the workspace's rules now, and once more a little
 * later for a create that read the previous rules but was not yet running here at the first pass.
 */
export function networkPolicyChanged(deps: Pick<AppDeps, "db" | "runtime" | "log">, workspaceId: string): void {
  void applyWorkspacePolicy(deps, workspaceId);
  setTimeout(() => void applyWorkspacePolicy(deps, workspaceId), SECOND_PASS_MS).unref();
}
/** Within the 5 s a change may take, after a create in flight at the change has started its session. */
const SECOND_PASS_MS = 3_000;

/** A workspace's rules changed: the sessions of it this node runs take them now (the listener judges each new connection by them). */
export async function applyWorkspacePolicy(deps: Pick<AppDeps, "db" | "runtime" | "log">, workspaceId: string): Promise<void> {
  const running = deps.runtime.ids();
  if (running.length === 0) return;
  try {
    const [workspace, sessions] = await Promise.all([
      deps.db.prisma.workspace.findUnique({ where: { id: workspaceId }, select: { networkPolicy: true } }),
      deps.db.prisma.session.findMany({ where: { id: { in: running }, workspaceId }, select: { id: true, options: true } }),
    ]);
    for (const session of sessions) {
      const egress = deps.runtime.endpoint(session.id)?.egress;
      if (!egress) continue;
      const options = session.options as Record<string, unknown> | null;
      egress.rules = sessionLayers(workspace?.networkPolicy ?? null, options?.network_policy ?? null);
    }
  } catch (err) {
    deps.log.warn({ err, workspaceId }, "could not apply a workspace's new network rules to its running sessions");
  }
}
