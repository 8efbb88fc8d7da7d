// Placement: a create that should not run on this node (full, draining, another region) runs on a
// peer with room, through an authenticated, sealed internal call (internal-api.ts answers it).
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import { AppError } from "../kernel/errors.ts";
import type { Idempotent } from "../kernel/idempotency.ts";
import type { Logger } from "../logger.ts";
import { placementCandidates, regionHasNodes, type NodeInfo } from "../services/nodes/nodes.ts";
import type { CreateSessionInput } from "../services/sessions/session-input.ts";
import { reviveSessionView, type SessionView } from "../services/sessions/session-view.ts";
import { isConnectFailure, problemFromPeer } from "./peers.ts";
import type { InternalAuth } from "./internal-auth.ts";
import type { PayloadSeal } from "./payload-seal.ts";

/** What placement needs of the node it runs on (cluster.ts). */
export interface PlacementSite {
  multiNode: boolean;
  draining: boolean;
  nodeTimeoutSeconds: number;
  deps: AppDeps;
  log: Logger;
  auth: InternalAuth;
  seal: PayloadSeal;
}

/** A placed create may have to launch a browser and restore a profile over there. */
const PLACEMENT_TIMEOUT_MS = 45_000;
/** How many nodes a create tries before giving up. */
const PLACEMENT_TRIES = 3;

/** Why a node refused a placed create in a way that another node might not (full, draining, unreachable). */
class TryElsewhere extends Error {
  constructor(readonly error: AppError) {
    super(error.detail);
  }
}

/** The contexts of creates a peer placed here: they run here or fail, never move again. */
const placed = new WeakSet<ServiceContext>();

/** Creates whose peers were all asked already (before trying here): not asked twice. */
const askedPeers = new WeakSet<ServiceContext>();

export function markPlaced(ctx: ServiceContext): void {
  placed.add(ctx);
}

/** A SessionView that crossed the wire as JSON: its dates become Dates again. */
function reviveOutcome(outcome: Idempotent<SessionView>): Idempotent<SessionView> {
  return outcome.replayed ? outcome : { replayed: false, result: reviveSessionView(outcome.result) };
}

export async function placeCreate(
  site: PlacementSite, ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string, opts: { failure?: unknown; workspace?: string } = {},
): Promise<Idempotent<SessionView> | undefined> {
  if (!site.multiNode) return undefined;
  const { failure, workspace } = opts;
  if (placed.has(ctx)) {
    // Placed here by a peer: never moved again (the peer tries the next node itself).
    if (site.draining && failure === undefined) throw new AppError("service-unavailable", "This node is shutting down.", {}, { "Retry-After": "2" });
    return undefined;
  }
  const { config, browsers, db, nodeId } = site.deps;
  if (failure !== undefined) {
    if (askedPeers.has(ctx)) return undefined;
    // Only a lack of room here is worth another node's try (a database outage is everyone's).
    const roomProblem = failure instanceof AppError && (failure.slug === "insufficient-capacity" || (failure.slug === "service-unavailable" && browsers.report().state !== "ready"));
    if (!roomProblem) return undefined;
  }
  const pool = browsers.report();
  const roomHere = !site.draining && pool.state === "ready" && pool.inUse < pool.capacity;
  const ownRegion = input.region === config.nodeRegion || !(await regionHasNodes(db.prisma, input.region, site.nodeTimeoutSeconds));
  if (failure === undefined && roomHere && ownRegion) return undefined;
  const candidates = await placementCandidates(db.prisma, input.region, nodeId, site.nodeTimeoutSeconds);
  if (candidates.length === 0) {
    if (site.draining) throw new AppError("service-unavailable", "This node is shutting down and no other node has room right now; retry shortly.", {}, { "Retry-After": "2" });
    if (!ownRegion) {
      throw new AppError("insufficient-capacity", `No node of region ${input.region} has a free browser right now.`, {}, { "Retry-After": "5" });
    }
    return undefined; // full here and everywhere: the pool answers insufficient-capacity
  }
  let last: AppError | undefined;
  for (const node of candidates.slice(0, PLACEMENT_TRIES)) {
    try {
      return await createOn(site, node, ctx, input, idempotencyKey, workspace);
    } catch (err) {
      if (!(err instanceof TryElsewhere)) throw err;
      last = err.error;
      site.log.info({ node: node.id, reason: err.error.detail }, "a peer could not take a placed session; trying the next");
    }
  }
  askedPeers.add(ctx);
  if (site.draining) throw new AppError("service-unavailable", "This node is shutting down and no other node could take the session; retry shortly.", {}, { "Retry-After": "2" });
  if (!ownRegion) throw last ?? new AppError("insufficient-capacity", `No node of region ${input.region} has a free browser right now.`, {}, { "Retry-After": "5" });
  if (failure !== undefined) throw failure;
  return undefined; // no peer could: this node tries (a slot may have freed; else the pool answers 503)
}

async function createOn(site: PlacementSite, node: NodeInfo, ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string, workspace?: string): Promise<Idempotent<SessionView>> {
  const path = "/internal/v1/sessions";
  // Sealed both ways: the request may carry a proxy password, the answer carries session tokens.
  const body = JSON.stringify({
    sealed: site.seal.sealJson(path, {
      principal: ctx.principal,
      requestId: ctx.requestId,
      clientRequestId: ctx.clientRequestId ?? null,
      ip: ctx.ip,
      audit: ctx.audit ? { action: ctx.audit.action, successStatus: ctx.audit.successStatus, workspaceId: ctx.audit.workspaceId ?? null } : null,
      input,
      idempotencyKey,
      workspace: workspace ?? null,
    }),
  });
  let answer: { ok: boolean; outcome?: Idempotent<SessionView>; auditWritten?: boolean; problem?: Record<string, unknown>; tryElsewhere?: boolean };
  try {
    const res = await fetch(`${node.internalUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...site.auth.sign(node.id, "POST", path, body) },
      body,
      signal: AbortSignal.timeout(PLACEMENT_TIMEOUT_MS),
    });
    const raw = (await res.json()) as { sealed?: string; problem?: unknown };
    if (!res.ok || typeof raw.sealed !== "string") {
      ctx.log.error({ node: node.id, status: res.status, problem: raw.problem ?? raw }, "a peer refused a placed create");
      answer = { ok: false, problem: raw.problem as Record<string, unknown> | undefined };
    } else {
      answer = site.seal.openJson(`answer:${path}`, raw.sealed) as typeof answer;
    }
  } catch (err) {
    if (isConnectFailure(err)) throw new TryElsewhere(new AppError("service-unavailable", `Node ${node.id} cannot be reached.`));
    // The request may have reached the node: a retry with the same key replays what it did.
    ctx.log.warn({ err: (err as Error).message, node: node.id }, "a placed create got no answer");
    throw new AppError("service-unavailable", "The session's node did not answer in time; retry with the same Idempotency-Key.", {}, { "Retry-After": "1" });
  }
  if (!answer.ok || !answer.outcome) {
    const error = problemFromPeer(answer.problem);
    if (answer.tryElsewhere) throw new TryElsewhere(error);
    throw error;
  }
  const outcome = reviveOutcome(answer.outcome);
  if (ctx.audit && answer.auditWritten && !outcome.replayed) {
    // The peer wrote this call's entry in the transaction that created the session.
    ctx.audit.written = true;
    ctx.audit.target = outcome.result.session.id;
  }
  ctx.log.info({ node: node.id, sessionId: outcome.replayed ? undefined : outcome.result.session.id }, "session placed on another node");
  return outcome;
}
