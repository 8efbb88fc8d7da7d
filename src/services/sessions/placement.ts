// Placement: where a create runs, decided in the sessions domain. A create that should not run on
// this node (full, draining, another region) runs on a peer with room, read from the node registry
// (services/nodes); only the call to that peer goes through a port (ClusterHooks.peers, ports.ts),
// made beneath the services (src/peers/placed-create.ts) and answered by cluster/internal-api.ts.
import { restartDatabaseBudget } from "../../db/budget.ts";
import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import type { Idempotent } from "../../kernel/idempotency.ts";
import { knownProblem } from "../../kernel/problems.ts";
import { PeerUnreached, problemFromPeer } from "../../peers/peer-calls.ts";
import { clusterCapacity, placementCandidates, regionHasNodes, type NodeInfo } from "../nodes/nodes.ts";
import type { ClusterHooks } from "./ports.ts";
import type { CreateSessionInput } from "./session-input.ts";
import { reviveSessionView, type SessionView } from "./session-view.ts";

/** What placement reads of this node at each look: it may start draining, or fence itself, while the create runs here. */
function siteOf(ctx: ServiceContext, cluster: ClusterHooks) {
  const { nodeTimeoutSeconds, leaseSeconds, placementTimeoutMs } = ctx.deps.config.cluster;
  return {
    draining: cluster.draining,
    /** This node lost its lease (lease.ts): it cannot vouch for anything the database says. */
    fenced: cluster.fenced,
    nodeTimeoutSeconds,
    /** Only nodes heard from within their lease are asked: an older one may have fenced itself. */
    leaseSeconds,
    /** How long a create may spend reaching the database and another node before it is answered (VESSEL_PLACEMENT_TIMEOUT_MS). */
    boundMs: placementTimeoutMs,
    deps: ctx.deps,
    peers: cluster.peers,
  };
}
type PlacementSite = ReturnType<typeof siteOf>;

/** A placed create may have to launch a browser and restore a profile over there (once it acknowledged the call). */
const PLACEMENT_TIMEOUT_MS = 45_000;

/** `promise`, or a 503 once `until` (performance.now()) has passed: no create waits on the database past its bound. */
function within<T>(promise: Promise<T>, until: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError("service-unavailable", "The cluster could not place the session in time; retry shortly.", {}, { "Retry-After": "2" })),
      Math.max(0, until - performance.now()),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
/** How many nodes a create tries before giving up. */
const PLACEMENT_TRIES = 3;

/** Why a node refused a placed create in a way that another node might not (full, draining, unreachable). */
class TryElsewhere extends Error {
  constructor(readonly error: AppError) {
    super(error.detail);
  }
}

/**
 * A lack of room here that no peer could make up for is the cluster's: the 503 counts every browser
 * of the region's live nodes ("All 4 browsers in the cluster are in use"), not only this node's.
 */
async function wholeCluster(site: PlacementSite, region: string, failure: unknown, until: number): Promise<unknown> {
  const problem = knownProblem(failure);
  if (problem?.slug !== "insufficient-capacity") return failure;
  const total = await within(clusterCapacity(site.deps.db.prisma, region, site.nodeTimeoutSeconds), until).catch(() => undefined);
  if (total === undefined) return failure;
  return new AppError("insufficient-capacity", `All ${total} browsers in the cluster are in use.`, problem.extensions, problem.headers);
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

/**
 * Where a create runs, decided in this one place: on a peer when this node should not take it
 * (full, draining, another region), and then the peer's answer is the create's; undefined: it runs
 * here. The caller asks again with the `failure` of a create that ran here: when this node filled up
 * meanwhile, a peer with room runs it (or the 503 counts the cluster's browsers); undefined: the
 * failure stands as it is.
 */
export async function placeCreate(
  ctx: ServiceContext,
  input: CreateSessionInput,
  idempotencyKey: string,
  opts: { failure?: unknown } = {},
): Promise<Idempotent<SessionView> | undefined> {
  const cluster = ctx.deps.cluster;
  if (!cluster?.multiNode) return undefined;
  const site = siteOf(ctx, cluster);
  const { failure } = opts;
  const until = performance.now() + site.boundMs;
  if (site.fenced) {
    throw new AppError(
      "service-unavailable",
      "This node cannot reach the database right now; retry shortly (through the load balancer).",
      {},
      { "Retry-After": "2" },
    );
  }
  if (placed.has(ctx)) {
    // Placed here by a peer: never moved again (the peer tries the next node itself).
    if (site.draining && failure === undefined) throw new AppError("service-unavailable", "This node is shutting down.", {}, { "Retry-After": "2" });
    return undefined;
  }
  const { config, browsers, db, nodeId } = site.deps;
  if (failure !== undefined) {
    if (askedPeers.has(ctx)) throw await wholeCluster(site, input.region, failure, until);
    // Only a lack of room here is worth another node's try (a database outage is everyone's).
    const slug = knownProblem(failure)?.slug;
    const roomProblem = slug === "insufficient-capacity" || (slug === "service-unavailable" && browsers.report().state !== "ready");
    if (!roomProblem) return undefined;
  }
  const pool = browsers.report();
  const roomHere = !site.draining && pool.state === "ready" && pool.inUse < pool.capacity;
  const ownRegion = input.region === config.nodeRegion || !(await within(regionHasNodes(db.prisma, input.region, site.nodeTimeoutSeconds), until));
  if (failure === undefined && roomHere && ownRegion) return undefined;
  const candidates = await within(placementCandidates(db.prisma, input.region, nodeId, Math.min(site.leaseSeconds, site.nodeTimeoutSeconds)), until);
  if (candidates.length === 0) {
    if (site.draining)
      throw new AppError("service-unavailable", "This node is shutting down and no other node has room right now; retry shortly.", {}, { "Retry-After": "2" });
    if (!ownRegion) {
      throw new AppError("insufficient-capacity", `No node of region ${input.region} has a free browser right now.`, {}, { "Retry-After": "5" });
    }
    if (failure !== undefined) throw await wholeCluster(site, input.region, failure, until);
    return undefined; // full here and everywhere: the pool answers insufficient-capacity (then again here, with the cluster's count)
  }
  let last: AppError | undefined;
  for (const node of candidates.slice(0, PLACEMENT_TRIES)) {
    if (performance.now() >= until) break;
    try {
      return await createOn(site, node, ctx, input, idempotencyKey, until);
    } catch (err) {
      if (!(err instanceof TryElsewhere)) throw err;
      last = err.error;
      ctx.log.info({ node: node.id, reason: err.error.detail }, "a peer could not take a placed session; trying the next");
    }
  }
  askedPeers.add(ctx);
  if (site.draining)
    throw new AppError(
      "service-unavailable",
      "This node is shutting down and no other node could take the session; retry shortly.",
      {},
      { "Retry-After": "2" },
    );
  if (!ownRegion)
    throw last ?? new AppError("insufficient-capacity", `No node of region ${input.region} has a free browser right now.`, {}, { "Retry-After": "5" });
  if (failure !== undefined) throw await wholeCluster(site, input.region, failure, until);
  return undefined; // no peer could: this node tries (a slot may have freed; else the pool answers 503)
}

async function createOn(
  site: PlacementSite,
  node: NodeInfo,
  ctx: ServiceContext,
  input: CreateSessionInput,
  idempotencyKey: string,
  until: number,
): Promise<Idempotent<SessionView>> {
  const request = {
    principal: ctx.principal,
    requestId: ctx.requestId,
    clientRequestId: ctx.clientRequestId ?? null,
    ip: ctx.ip,
    audit: ctx.audit ? { action: ctx.audit.action, successStatus: ctx.audit.successStatus, workspaceId: ctx.audit.workspaceId ?? null } : null,
    input,
    idempotencyKey,
    workspace: ctx.workspace ?? null,
  };
  let answer: { ok: boolean; outcome?: Idempotent<SessionView>; auditWritten?: boolean; problem?: Record<string, unknown>; tryElsewhere?: boolean };
  try {
    const reply = await site.peers.sendCreate(node, request, { ackMs: Math.max(1, until - performance.now()), answerMs: PLACEMENT_TIMEOUT_MS });
    if (!reply.ok) {
      ctx.log.error({ node: node.id, status: reply.status, problem: reply.problem ?? reply.body }, "a peer refused a placed create");
      answer = { ok: false, problem: reply.problem as Record<string, unknown> | undefined };
    } else {
      answer = reply.answer as typeof answer;
    }
  } catch (err) {
    if (err instanceof PeerUnreached && err.stage === "connect")
      throw new TryElsewhere(new AppError("service-unavailable", `Node ${node.id} cannot be reached.`));
    // The request may have reached the node: a retry with the same key replays what it did.
    ctx.log.warn({ err: (err as Error).message, node: node.id }, "a placed create got no answer");
    throw new AppError("service-unavailable", "The session's node did not answer in time; retry with the same Idempotency-Key.", {}, { "Retry-After": "1" });
  } finally {
    restartDatabaseBudget(); // the peer's time (it may launch a browser) is not this node's database's
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
