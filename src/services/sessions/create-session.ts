// Starting a session: its browser, the row, its first event, the audit entry and the stored answer.
import { databaseBudgetLeft, enterDatabaseBudget, outsideDatabaseBudget, restartDatabaseBudget } from "../../db/budget.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { ulid } from "../../ids.ts";
import type { BrowserLease } from "../../browser/pool/types.ts";
import { AppError } from "../../errors.ts";
import type { Prisma, Session } from "../../generated/prisma/client.ts";
import { auditedStatement } from "../audit/audited.ts";
import { actingWorkspaceWithCap } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { KeyClaim, type Idempotent } from "../../kernel/idempotency.ts";
import { createFingerprint } from "./create-fingerprint.ts";
import {
  anySlow,
  applyLeased,
  applyStarted,
  checkFeatures,
  giveBackUnused,
  wantedFeatures,
  type AppliedFeatures,
  type CheckedFeature,
} from "./browser-features/apply.ts";
import { newEvent, publishSessionChange } from "../session-events/session-events.ts";
import { plainlyFull, roomFor, sessionCap, workspaceFull } from "./session-cap.ts";
import { insertStartedSession, roomHolds, type StartedAnswer } from "./session-start.ts";
import { toStoredView, type SessionView } from "./session-view.ts";
import { executeStatement, queryStatement } from "../../kernel/support.ts";
import { addresses } from "./sessions.ts";
import type { CreateSessionInput } from "./session-input.ts";
import { checkSessionTimes, sessionLimit, timeoutOf } from "./session-limits.ts";
import { sessionRow } from "./session-row.ts";
import { placeCreate } from "./placement.ts";

/** What a create decided before any browser is taken: the session's row, times, addresses, features and the workspace's room. */
interface Plan {
  ctx: ServiceContext;
  input: CreateSessionInput;
  workspaceId: string;
  /** The workspace's cap on live sessions, or null (no cap: the recording statement is as it always was). */
  cap: number | null;
  room: ReturnType<typeof roomFor> | null;
  id: string;
  now: Date;
  expiresAt: Date;
  /** Minted before the browser is taken (see planSession). */
  urls: Promise<{ connectUrl: string | null; liveViewUrl: string | null }>;
  /** The row the recording statement writes, exactly what the create answers. */
  session: Session;
  /** The browser features this create wants, checked (browser-features/). */
  features: CheckedFeature[];
}

/** A browser set up for the session, and the row, event and answer that will record it. */
interface Prepared {
  lease: BrowserLease;
  session: Session;
  view: SessionView;
  running: ReturnType<typeof newEvent>;
  answer: { status: number; body: unknown; resourceId: string };
  /** What the `leased` features put into the browser: undone if it goes back unused, or keeping it from the pool. */
  applied: AppliedFeatures;
}

/**
 * Starts a session: a browser from the pool (503 when the node is full), the row RUNNING with its
 * event, audit entry and stored answer in one statement. At most once per Idempotency-Key (24 hours).
 * A workspace at its cap of live sessions is refused (429, session-cap.ts), replays never.
 *
 * Its database waits share one budget, VESSEL_PLACEMENT_TIMEOUT_MS (db/budget.ts), given back after
 * each browser step: a node whose own database stopped answering (its peers and Redis still up)
 * answers 503 with Retry-After within the budget, not after the driver's 5–7 s, and the client's
 * retry (same Idempotency-Key) reaches a node that can serve it.
 */
export async function createSession(ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string): Promise<Idempotent<SessionView>> {
  await Promise.resolve(); // the budget is entered in this call's own async context, not its caller's (db/budget.ts)
  const budget = enterDatabaseBudget(ctx.deps.config.cluster.placementTimeoutMs);
  try {
    return await startSession(ctx, input, idempotencyKey);
  } catch (err) {
    if (databaseBudgetLeft() === 0 && isDatabaseUnavailable(err)) throw outOfBudget(ctx);
    throw err;
  } finally {
    budget.end();
  }
}

function outOfBudget(ctx: ServiceContext): AppError {
  const ms = ctx.deps.config.cluster.placementTimeoutMs;
  ctx.log.warn({ budgetMs: ms }, "a create gave up: this node's database did not answer within the create's budget");
  return new AppError(
    "service-unavailable",
    `This node's database did not answer within ${ms} ms; retry shortly with the same Idempotency-Key.`,
    {},
    { "Retry-After": "2" },
  );
}

/**
 * Where the create runs is decided once (placement.ts): on a peer when this node should not take it
 * (full, draining, another region's); else here, and on a peer after all when this node filled up
 * meanwhile.
 */
async function startSession(ctx: ServiceContext, input: CreateSessionInput, idempotencyKey: string): Promise<Idempotent<SessionView>> {
  const checked = await checkCreate(ctx, input);
  const placed = await placeCreate(ctx, input, idempotencyKey);
  if (placed) return placed;
  try {
    return await startHere(planSession(ctx, input, checked), idempotencyKey);
  } catch (failure) {
    const elsewhere = await placeCreate(ctx, input, idempotencyKey, { failure });
    if (elsewhere) return elsewhere;
    throw failure;
  }
}

/** The acting workspace and its cap, the region, and each browser feature's own check: refused before anything is taken. */
async function checkCreate(ctx: ServiceContext, input: CreateSessionInput) {
  const { id: workspaceId, maxSessions, maxSessionSeconds } = await actingWorkspaceWithCap(ctx, "use its sessions");
  const { config } = ctx.deps;
  const limit = sessionLimit(ctx, maxSessionSeconds);
  checkSessionTimes(input, limit);
  if (!config.regions.includes(input.region)) {
    throw new AppError("unknown-region", `No region called "${input.region}". This deployment serves: ${config.regions.join(", ")}.`);
  }
  // A profile is read (and decrypted) here, extensions prepared: an unreadable one is 422 with nothing to undo.
  const features = await checkFeatures({ ctx, input, workspaceId });
  return { workspaceId, cap: sessionCap(ctx, maxSessions), features, timeoutSeconds: timeoutOf(input, limit) };
}

function planSession(ctx: ServiceContext, input: CreateSessionInput, checked: Awaited<ReturnType<typeof checkCreate>>): Plan {
  const { workspaceId, cap, timeoutSeconds } = checked;
  const id = `ses_${ulid()}`;
  const now = ctx.deps.now();
  const expiresAt = new Date(now.getTime() + timeoutSeconds * 1000);
  // The tokens depend on nothing the database decides: minted before the browser is taken, they
  // are ready when the answer is stored with the row. (Unused, and never shown, when the call
  // turns out to be a replay or the node is full.)
  const urls = addresses(ctx, { id, workspaceId, status: "RUNNING", expiresAt, liveViewGeneration: 0 });
  urls.catch(() => {}); // awaited in prepare, or not at all when the call fails first
  const session = sessionRow(ctx, input, {
    id,
    workspaceId,
    status: "RUNNING",
    nodeId: ctx.deps.nodeId,
    timeoutSeconds,
    createdAt: now,
    startedAt: now,
    expiresAt,
  });

  const features = wantedFeatures(checked.features, { input, session });
  return { ctx, input, workspaceId, cap, room: cap === null ? null : roomFor(workspaceId, cap), id, now, expiresAt, urls, session, features };
}

/**
 * This node runs the create: at most once per key (24 hours); a replay is answered what the first
 * call was. With a warm spare and no slow feature (extensions), the key is taken by the row's own
 * statement; otherwise (a launch to wait for, a full node, extensions, the key taken already) by a
 * statement of its own first, so a replay never waits for, or is refused, a browser.
 */
async function startHere(plan: Plan, idempotencyKey: string): Promise<Idempotent<SessionView>> {
  const { ctx, input, workspaceId, cap, room, id } = plan;
  const call = new KeyClaim(ctx, { workspaceId, key: idempotencyKey, fingerprint: createFingerprint(ctx, input) });
  const db = ctx.deps.db;
  const turn = anySlow(plan.features) ? undefined : await call.oneStatementTurn();
  if (turn) {
    try {
      const p = await start(plan, {
        // Sessions waiting in line take a free browser here first (queue/dispatcher.ts, decision 0300).
        take: async () => ((await ctx.deps.queue?.waitersFirst()) ? undefined : ctx.deps.browsers.acquireSpare(id)),
        answer: (outcome, when) => ({ claim: call.claimAnswer(outcome, when) }),
        // Not taken: the key was taken already, or (capped) there was no room; the two-statement way tells which.
        record: async (sql) => (await queryStatement<{ taken: boolean }>(db, sql))[0]?.taken === true,
      });
      if (p) return { replayed: false, result: p.view };
    } finally {
      turn.end();
    }
  }
  const claim = await call.claim();
  if (claim.replayed) return claim;
  try {
    // A workspace plainly at its cap is refused before a browser is taken (or launched).
    if (cap !== null && (await plainlyFull(ctx, workspaceId, cap))) throw workspaceFull(cap);
    const p = await start(plan, {
      take: async () => {
        // Full here and owed to someone waiting in line: this create does not wait for a browser to free.
        if (await ctx.deps.queue?.waitersFirst()) throw new AppError("insufficient-capacity", owedText, {}, { "Retry-After": "1" });
        return ctx.deps.browsers.acquire(id);
      },
      answer: (outcome, when) => ({ also: call.storeAnswer(outcome, when) }),
      // Capped: nothing was written when another create took the last slot meanwhile.
      record: async (sql) => (await executeStatement(db, sql)) > 0 || room === null,
    });
    if (!p) throw workspaceFull(cap!);
    return { replayed: false, result: p.view };
  } catch (err) {
    await call.abandon();
    throw err;
  }
}

const owedText = "Every browser of this node is in use, the next one owed to a session waiting in the admission queue.";

/** How one start takes its browser and records itself: the two ways differ only in these. */
interface StartWay {
  /** The browser, or undefined (no warm spare: the other way). */
  take(): Promise<BrowserLease | undefined>;
  answer(outcome: Prepared["answer"], when: Prisma.Sql | undefined): StartedAnswer;
  /** Runs the recording statement; false when it wrote nothing (the browser then goes back unused). */
  record(sql: Prisma.Sql): Promise<boolean>;
}

/**
 * A browser taken and set up, then the one statement that records the session (session-start.ts says
 * why it is one). Null when the statement wrote nothing: the browser goes back unused, its features
 * undone, or closed when one of them dirtied it (giveBackUnused).
 */
async function start(plan: Plan, way: StartWay): Promise<Prepared | null> {
  const { ctx, room, id } = plan;
  const lease = await way.take();
  if (!lease) return null;
  restartDatabaseBudget(); // a launch is the browser's time, not the database's
  const p = await prepare(plan, lease);
  restartDatabaseBudget(); // so is setting it up
  const recorded = await recordOrRelease(p, () =>
    auditedStatement(
      ctx,
      id,
      (audit) => way.record(insertStartedSession(p.session, p.running, way.answer(p.answer, room ? roomHolds : undefined), audit, room)),
      (ok) => ok,
    ),
  );
  if (!recorded) {
    await giveBackUnused(p.applied, p.lease);
    return null;
  }
  announceStarted(plan, p);
  return p;
}

/** The session's browser set up (its `leased` features), and the row, event and answer that record it. */
async function prepare(plan: Plan, lease: BrowserLease): Promise<Prepared> {
  const { ctx, input, workspaceId, id, now, session } = plan;
  try {
    const applied = await applyLeased(plan.features, { ctx, input, workspaceId, session, lease });
    const view: SessionView = { session, ...(await plan.urls) };
    const answer = { status: 201, body: toStoredView(view), resourceId: id };
    return { lease, session, view, applied, running: newEvent(id, "session.running", {}, now), answer };
  } catch (err) {
    await lease.release();
    throw err;
  }
}

/** Runs the recording statement; the browser goes if it fails. */
async function recordOrRelease<R>(p: Prepared, write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    await p.lease.release();
    throw err;
  }
}

/** Recorded: readers hear of it, and the runtime starts its timers (outside the create's database budget: they outlive it). */
function announceStarted(plan: Plan, p: Prepared): void {
  outsideDatabaseBudget(() => startedWork(plan, p));
}

function startedWork(plan: Plan, p: Prepared): void {
  const { ctx, input, id, workspaceId, expiresAt, now } = plan;
  const run = { ctx, input, workspaceId, session: p.session, lease: p.lease };
  void ctx.deps.events.published([p.running]);
  void publishSessionChange(ctx.deps, id, workspaceId);
  // Once the row is written (its work would otherwise hold up the statement on this thread), before
  // any channel is opened: the profile (the browser's pipe holds them until it is in place).
  applyStarted(plan.features, "recorded", run);
  ctx.deps.runtime.add(id, p.lease, expiresAt, p.session.idleTimeoutSeconds, now);
  // The node's own capture (on channels of its own, written to the pipe before the create is
  // answered), then the start URL, after the answer's own work.
  applyStarted(plan.features, "running", run);
}
