// Starting a session: its browser, the row, its first event, the audit entry and the stored answer.
import { createHmac } from "node:crypto";
import { databaseBudgetLeft, outsideDatabaseBudget, restartDatabaseBudget, withDatabaseBudget } from "../../db/budget.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { ulid } from "../../ids.ts";
import type { BrowserLease } from "../../browser/pool/types.ts";
import { AppError } from "../../errors.ts";
import type { Session } from "../../generated/prisma/client.ts";
import { auditedStatement } from "../audit/audited.ts";
import { actingWorkspaceWithCap } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { fingerprint, idempotent, type ClaimAnswer, type Idempotent, type StoreAnswer } from "../../kernel/idempotency.ts";
import { applyBrowserSettings } from "../../browser/features/browser-settings.ts";
import { toBrowserSettings } from "./browser-settings-input.ts";
import { checkSessionExtensions, loadSessionExtensions } from "../extensions/extensions.ts";
import { startSessionLogs } from "../session-logs/capture.ts";
import { startRecording } from "../recordings/recorder.ts";
import { readDocument, restoreProfileIntoSession, saveProfileOnRelease } from "../profiles/profile-documents.ts";
import { navigateFirstPage } from "../../browser/cdp/pipe/page-info.ts";
import type { ProfileDocument } from "../../browser/profiles/format.ts";
import { newEvent, publishSessionChange } from "../session-events/session-events.ts";
import { plainlyFull, roomFor, sessionCap, workspaceFull } from "./session-cap.ts";
import { insertStartedSession, roomHolds } from "./session-start.ts";
import { toStoredView, type SessionView } from "./session-view.ts";
import { executeStatement, prismaOf, queryStatement } from "../../kernel/support.ts";
import { view, addresses } from "./sessions.ts";
import { maxSessionSeconds, defaultIdleSeconds, type CreateSessionInput } from "./session-input.ts";

/**
 * The request as the idempotency record fingerprints it: a proxy password is replaced by a keyed
 * digest, so the stored fingerprint cannot be used to guess it.
 */
export function withoutSecrets(ctx: ServiceContext, input: CreateSessionInput): CreateSessionInput {
  if (!input.proxy?.password) return input;
  const digest = createHmac("sha256", ctx.deps.masterKey.key).update(input.proxy.password).digest("hex");
  return { ...input, proxy: { ...input.proxy, password: digest } };
}

/** What a create decided before any browser is taken: the session's id, times, addresses and the workspace's room. */
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
  /** The document of `input.profile_id`, read by checkCreate. */
  profile?: ProfileDocument;
}

/** A browser set up for the session, and the row, event and answer that will record it. */
interface Prepared {
  lease: BrowserLease;
  session: Session;
  view: SessionView;
  running: ReturnType<typeof newEvent>;
  answer: { status: number; body: unknown; resourceId: string };
  /** The node's channel holding the session's browser settings; closed (settings undone) if the browser goes back unused. */
  settings?: { close(): void };
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
export function createSession(
  ctx: ServiceContext,
  input: CreateSessionInput,
  idempotencyKey: string,
  workspace?: string,
): Promise<Idempotent<SessionView>> {
  return withDatabaseBudget(ctx.deps.config.cluster.placementTimeoutMs, () =>
    startSession(ctx, input, idempotencyKey, workspace).catch((err: unknown) => {
      if (databaseBudgetLeft() === 0 && isDatabaseUnavailable(err)) throw outOfBudget(ctx);
      throw err;
    }),
  );
}

function outOfBudget(ctx: ServiceContext): AppError {
  const ms = ctx.deps.config.cluster.placementTimeoutMs;
  ctx.log.warn({ budgetMs: ms }, "a create gave up: this node's database did not answer within the create's budget");
  return new AppError("service-unavailable", `This node's database did not answer within ${ms} ms; retry shortly with the same Idempotency-Key.`, {}, { "Retry-After": "2" });
}

async function startSession(
  ctx: ServiceContext,
  input: CreateSessionInput,
  idempotencyKey: string,
  workspace?: string,
): Promise<Idempotent<SessionView>> {
  const { workspaceId, cap, profile } = await checkCreate(ctx, input, workspace);
  // Full, draining, or another region's: a node that can run it does (src/cluster/placement.ts).
  const placed = await ctx.deps.cluster?.placeCreate(ctx, input, idempotencyKey, { workspace });
  if (placed) return placed;
  const plan = planSession(ctx, input, workspaceId, cap, profile);
  const key = { workspaceId, key: idempotencyKey, fingerprint: fingerprint("createSession", withoutSecrets(ctx, input)) };
  // With a warm spare and no extensions to load, the key is taken by the row's own statement (a browser
  // a profile went into is closed if it turns out unused); otherwise (a launch to wait for, a full
  // node, extensions) by a statement of its own, so a replay never waits for, or is refused, a browser.
  const fromSpare = input.extension_ids?.length ? undefined : (claim: ClaimAnswer) => startOnSpare(plan, claim);
  return idempotent(ctx, key, (store: StoreAnswer) => startWithClaimedKey(plan, store), fromSpare).catch(async (err: unknown) => {
    // This node filled up meanwhile: another one may still have room.
    const elsewhere = await ctx.deps.cluster?.placeCreate(ctx, input, idempotencyKey, { failure: err, workspace });
    if (elsewhere) return elsewhere;
    throw err;
  });
}

/** The acting workspace and its cap, the region and the profile: refused before anything is taken. */
async function checkCreate(ctx: ServiceContext, input: CreateSessionInput, workspace: string | undefined) {
  const { id: workspaceId, maxSessions } = await actingWorkspaceWithCap(ctx, workspace, "use its sessions");
  const { config } = ctx.deps;
  if (!config.regions.includes(input.region)) {
    throw new AppError("unknown-region", `No region called "${input.region}". This deployment serves: ${config.regions.join(", ")}.`);
  }
  // Read (and decrypted) here, before anything is taken: an unreadable profile is 422 with nothing to undo.
  const profile = input.profile_id
    ? await readDocument(ctx.deps, ctx, workspaceId, input.profile_id).catch((err: unknown) => {
        if (err instanceof AppError && err.status === 404) throw new AppError("not-found", "No profile with this profile_id in this workspace.");
        throw err;
      })
    : undefined;
  await checkSessionExtensions(ctx, workspaceId, input.extension_ids ?? []);
  return { workspaceId, cap: sessionCap(ctx, maxSessions), profile };
}

function planSession(ctx: ServiceContext, input: CreateSessionInput, workspaceId: string, cap: number | null, profile: ProfileDocument | undefined): Plan {
  const id = `ses_${ulid()}`;
  const now = ctx.deps.now();
  const expiresAt = new Date(now.getTime() + (input.timeout_seconds ?? maxSessionSeconds) * 1000);
  // The tokens depend on nothing the database decides: minted before the browser is taken, they
  // are ready when the answer is stored with the row. (Unused, and never shown, when the call
  // turns out to be a replay or the node is full.)
  const urls = addresses(ctx, { id, workspaceId, status: "RUNNING", expiresAt, liveViewGeneration: 0 });
  urls.catch(() => {}); // awaited in prepare, or not at all when the call fails first
  return { ctx, input, workspaceId, cap, room: cap === null ? null : roomFor(workspaceId, cap), id, now, expiresAt, urls, ...(profile ? { profile } : {}) };
}

/** The usual first call: the key was claimed by a statement of its own; the answer is stored with the row. */
async function startWithClaimedKey(plan: Plan, storeAnswer: StoreAnswer) {
  const { ctx, input, cap, room, id, workspaceId } = plan;
  // A workspace plainly at its cap is refused before a browser is taken (or launched).
  if (cap !== null && (await plainlyFull(ctx, workspaceId, cap))) throw workspaceFull(cap);
  const browser = await ctx.deps.browsers.acquire(id);
  restartDatabaseBudget(); // a launch is the browser's time, not the database's
  const p = await prepare(plan, browser);
  restartDatabaseBudget();
  const stored = await recordOrRelease(p, () =>
    auditedStatement(
      ctx,
      id,
      (audit) => executeStatement(ctx.deps.db, insertStartedSession(p.session, p.running, { also: storeAnswer(p.answer, room ? roomHolds : undefined) }, audit, room)),
      (n) => room === null || n > 0,
    ),
  );
  if (cap !== null && stored === 0) {
    // Another create took the last slot meanwhile: nothing was written, and the browser goes back.
    if (changesBrowser(input)) await p.lease.release();
    else unused(p);
    throw workspaceFull(cap);
  }
  announceStarted(plan, p);
  return { result: p.view, ...p.answer, stored: true };
}

/** A warm spare, its key claimed by the row's own statement; null (the spare goes back untouched) to take the usual way. */
async function startOnSpare(plan: Plan, claim: ClaimAnswer): Promise<SessionView | null> {
  const { ctx, room, id } = plan;
  const spare = ctx.deps.browsers.acquireSpare(id);
  if (!spare) return null;
  const p = await prepare(plan, spare);
  restartDatabaseBudget(); // setting the browser up is not the database's time
  const [row] = await recordOrRelease(p, () =>
    auditedStatement(
      ctx,
      id,
      (audit) => queryStatement<{ taken: boolean }>(
        ctx.deps.db,
        insertStartedSession(p.session, p.running, { claim: claim(p.answer, room ? roomHolds : undefined) }, audit, room),
      ),
      (rows) => rows[0]?.taken === true,
    ),
  );
  if (!row?.taken) {
    // The key was taken already, or (capped) there was no room: the two-statement way tells which.
    // A browser a profile went into cannot be a spare again.
    if (changesBrowser(plan.input)) await p.lease.release();
    else unused(p);
    return null;
  }
  announceStarted(plan, p);
  return p.view;
}

/** The session's browser set up (upstream proxy, settings, extensions; the profile follows in announceStarted), and the row, event and answer that record it. */
async function prepare(plan: Plan, lease: BrowserLease): Promise<Prepared> {
  const { ctx, input, workspaceId, id, now, expiresAt } = plan;
  try {
    // The upstream proxy lives only in this process's memory, for as long as the browser does.
    if (input.proxy && lease.egress) lease.egress.upstream = { ...input.proxy };
    const idle = input.idle_timeout_seconds ?? defaultIdleSeconds;
    const session: Session = {
      id, workspaceId, status: "RUNNING", region: input.region, endReason: null, nodeId: ctx.deps.nodeId,
      apiKeyId: ctx.principal?.kind === "apiKey" ? ctx.principal.keyId : null, endedById: null,
      profileId: input.profile_id ?? null, saveProfileOnRelease: input.save_profile_on_release ?? false,
      timeoutSeconds: input.timeout_seconds ?? maxSessionSeconds, idleTimeoutSeconds: idle,
      liveViewInteractive: input.live_view?.interactive ?? false, liveViewInstructions: input.live_view?.instructions ?? null, liveViewGeneration: 0,
      metadata: input.metadata ?? {}, browser: input.browser ?? null, extensionIds: input.extension_ids ?? [], logs: input.logs ?? ctx.deps.config.logs.enabled, recording: input.recording ?? ctx.deps.config.recording.enabled,
      createdAt: now, startedAt: now, expiresAt, lastActivityAt: null, endedAt: null,
    };
    if (input.extension_ids?.length) await loadSessionExtensions(ctx, workspaceId, input.extension_ids, lease);
    // Set before the create is answered, so the spare's first tab already has them for the first client.
    const settings = input.browser ? await applyBrowserSettings(lease.cdp, toBrowserSettings(input.browser)) : undefined;
    const view: SessionView = { session, ...(await plan.urls) };
    return { lease, session, view, ...(settings ? { settings } : {}), running: newEvent(id, "session.running", {}, now), answer: { status: 201, body: toStoredView(view), resourceId: id } };
  } catch (err) {
    await lease.release();
    throw err;
  }
}

/** Runs the recording statement (session-start.ts says why it is one); the browser goes if it fails. */
async function recordOrRelease<R>(p: Prepared, write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    await p.lease.release();
    throw err;
  }
}

/** A profile restored or extensions loaded stay in the browser: it cannot go back as a spare. */
const changesBrowser = (input: CreateSessionInput) => Boolean(input.profile_id) || Boolean(input.extension_ids?.length);

/** A browser no session took goes back as a spare, its settings undone (Chromium drops a channel's overrides as it detaches). */
function unused(p: Prepared): void {
  p.settings?.close();
  p.lease.unused();
}

/** Recorded: readers hear of it, and the runtime starts its timers (outside the create's database budget: they outlive it). */
function announceStarted(plan: Plan, p: Prepared): void {
  outsideDatabaseBudget(() => startedWork(plan, p));
}

function startedWork(plan: Plan, p: Prepared): void {
  const { ctx, id, workspaceId, expiresAt, now } = plan;
  void ctx.deps.events.published([p.running]);
  void publishSessionChange(ctx.deps, id, workspaceId);
  // Once the row is written (its work would otherwise hold up the statement on this thread), before
  // any channel is opened: the browser's pipe holds them until the profile is in place.
  if (plan.input.profile_id && plan.profile) restoreProfileIntoSession(ctx, plan.input.profile_id, plan.profile, p.lease);
  ctx.deps.runtime.add(id, p.lease, expiresAt, p.session.idleTimeoutSeconds, now);
  // The node's own capture, on channels of its own; written to the pipe before the create is answered.
  if (p.session.logs) startSessionLogs(ctx.deps, p.session, p.lease);
  else p.lease.logCapture?.close();
  if (p.session.recording) startRecording(ctx.deps, p.session, p.lease);
  // After the answer's own work: the client may connect at once and find the page loading.
  if (plan.input.start_url) {
    void navigateFirstPage(p.lease.cdp, plan.input.start_url).catch((err: unknown) =>
      ctx.log.warn({ sessionId: id, err: (err as Error)?.message }, "could not open the session's start URL"),
    );
  }
}
