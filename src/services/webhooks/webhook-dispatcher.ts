import type { EgressPolicy } from "../../browser/egress/policy.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import type { AppDeps } from "../../kernel/context.ts";
import { queryStatement } from "../../kernel/support.ts";
import type { SessionEventView } from "../session-events/session-events.ts";
import { EndpointPresence } from "./endpoint-presence.ts";
import { enqueueForEvents, type EnqueueDeps } from "./webhook-enqueue.ts";
import { openSecret, signedHeaders } from "./webhook-secrets.ts";
import { sendAttempt, type AttemptOutcome } from "./webhook-sender.ts";
import { recordOutcome, type Claimed } from "./webhook-outcomes.ts";
import { webhookPolicy } from "./webhook-address.ts";

/**
 * Every node's sender of webhook deliveries. Deliveries are rows; a node claims the due ones in one
 * statement (`UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`) that stamps each
 * with itself, its attempt number and a lease (`locked_until`) longer than an attempt can take, so
 * while one node sends an attempt no other node takes it; a node that dies mid-attempt leaves the
 * lease to run out, and another node sends that attempt again (at least once). An outcome is only
 * recorded by the claimer of that very attempt. Nodes look for due rows every second, and at once
 * when this node queued one. Attempts run side by side, at most 32 per node, so a receiver that
 * never answers holds only its own attempts (each for its 10 s), not the others'; and at most 8 per
 * endpoint and 16 per workspace are in flight cluster-wide, so neither can take all of a node's 32.
 */

export interface DispatcherOptions {
  /** The first retry's delay (VESSEL_WEBHOOK_RETRY_BASE_MS), doubled per failed attempt. */
  retryBaseMs: number;
  timeoutMs?: number;
  pollMs?: number;
  /** All addresses of a name (tests). */
  resolve?: (host: string) => Promise<string[]>;
}

export const ATTEMPT_TIMEOUT_MS = 10_000;
const CLAIM_BATCH = 10;
/** Attempts one node has in flight at most: a slow or dead receiver holds its own attempts, not everyone's. */
const MAX_IN_FLIGHT = 32;
/**
 * Attempts in flight at once, cluster-wide, for one endpoint and for one workspace: receivers that
 * never answer (each attempt held for its 10 s) take at most these, so one tenant's endpoints cannot
 * fill every node's slots and hold back everyone else's deliveries.
 */
export const PER_ENDPOINT = 8;
export const PER_WORKSPACE = 16;

type Deps = Pick<AppDeps, "db" | "log" | "now" | "nodeId" | "masterKey" | "config" | "pubsub"> & Pick<EnqueueDeps, "setAside">;

export class WebhookDispatcher {
  private readonly policy: EgressPolicy;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeUp: () => void = () => {};
  private woken = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly presence: EndpointPresence;
  private sending = 0;

  constructor(
    private readonly deps: Deps,
    private readonly options: DispatcherOptions,
  ) {
    this.policy = webhookPolicy(deps.config);
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.pollMs = options.pollMs ?? 1000;
    this.presence = new EndpointPresence(deps);
  }

  /** After an endpoint was made, changed or deleted here: every node looks again whether any exists. */
  endpointsChanged(): void {
    this.presence.changed();
  }

  /** The event recorder's subscriber: queues the deliveries of written events, then sends them. */
  onEvents(events: readonly SessionEventView[]): void {
    const queued = enqueueForEvents(this.deps, events, this.presence).then((n) => {
      if (n > 0) this.wake();
    });
    this.inFlight.add(queued);
    void queued.finally(() => this.inFlight.delete(queued));
  }

  /** Looks for due deliveries now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /** Stops claiming; waits for the attempts in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await Promise.all([...this.inFlight]);
    this.presence.close();
  }

  /**
   * Claims due deliveries while there is room for more attempts, without waiting for the attempts
   * it starts (each wakes the loop as it ends when the node was full); otherwise waits for the next
   * poll or a wake.
   */
  private async loop(): Promise<void> {
    while (!this.stopped) {
      const room = MAX_IN_FLIGHT - this.sending;
      let claimed = 0;
      if (room > 0) {
        try {
          // No enabled endpoint anywhere, nothing to claim: the poll costs no statement (the claim's is
          // the heaviest the node runs on its own, every second, on the embedded database in this thread).
          if (await this.presence.any()) claimed = (await this.claimAndSend(Math.min(CLAIM_BATCH, room))).length;
        } catch (err) {
          this.deps.log.warn({ err }, "webhook deliveries: could not claim");
        }
      }
      if ((claimed > 0 && claimed === Math.min(CLAIM_BATCH, room) && this.sending < MAX_IN_FLIGHT) || this.stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        timer.unref();
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
        if (this.woken) this.wakeUp();
      });
      this.woken = false;
    }
  }

  /** Claims what is due and sends those attempts, waiting for them (tests run rounds with it); answers how many it claimed. */
  async runOnce(): Promise<number> {
    const attempts = await this.claimAndSend(CLAIM_BATCH);
    await Promise.all(attempts);
    return attempts.length;
  }

  /** Claims up to `limit` due deliveries and starts their attempts; answers them, running. */
  private async claimAndSend(limit: number): Promise<Promise<void>[]> {
    const now = this.deps.now();
    const lease = new Date(now.getTime() + this.timeoutMs + 20_000);
    const claimed = await queryStatement<Claimed>(
      this.deps.db,
      // `busy`: attempts in flight now, cluster-wide; `waiting`: due rows placed behind their endpoint's
      // busy ones; `fair`: those within the endpoint's and then the workspace's share; `due` locks them.
      Prisma.sql`WITH busy AS (
          SELECT d."endpoint_id", e."workspace_id", count(*) AS n
          FROM "webhook_deliveries" d JOIN "webhook_endpoints" e ON e."id" = d."endpoint_id"
          WHERE d."status" = 'pending' AND d."locked_until" > ${now}::timestamptz
          GROUP BY d."endpoint_id", e."workspace_id"
        ), waiting AS (
          SELECT d."id", d."next_attempt_at", e."workspace_id",
            row_number() OVER (PARTITION BY d."endpoint_id" ORDER BY d."next_attempt_at", d."id")
              + coalesce((SELECT b.n FROM busy b WHERE b."endpoint_id" = d."endpoint_id"), 0) AS endpoint_place
          FROM "webhook_deliveries" d JOIN "webhook_endpoints" e ON e."id" = d."endpoint_id"
          WHERE d."status" = 'pending' AND d."next_attempt_at" <= ${now}::timestamptz AND e."enabled"
            AND (d."locked_until" IS NULL OR d."locked_until" <= ${now}::timestamptz)
        ), fair AS (
          SELECT p."id" FROM (
            SELECT w."id", row_number() OVER (PARTITION BY w."workspace_id" ORDER BY w."next_attempt_at", w."id")
              + coalesce((SELECT sum(b.n) FROM busy b WHERE b."workspace_id" = w."workspace_id"), 0) AS workspace_place
            FROM waiting w WHERE w.endpoint_place <= ${PER_ENDPOINT}
          ) p WHERE p.workspace_place <= ${PER_WORKSPACE}
        ), due AS (
          SELECT d."id" FROM "webhook_deliveries" d
          WHERE d."id" IN (SELECT "id" FROM fair) AND d."status" = 'pending' AND d."next_attempt_at" <= ${now}::timestamptz
            AND (d."locked_until" IS NULL OR d."locked_until" <= ${now}::timestamptz)
          ORDER BY d."next_attempt_at" LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE "webhook_deliveries" d SET "locked_until" = ${lease}::timestamptz, "locked_by" = ${this.deps.nodeId}, "attempts" = d."attempts" + 1
          FROM due WHERE d."id" = due."id"
          RETURNING d."id", d."endpoint_id", d."payload", d."attempts", d."created_at"
        )
        SELECT c.*, e."url", e."secret", e."previous_secret", e."previous_expires_at"
        FROM claimed c JOIN "webhook_endpoints" e ON e."id" = c."endpoint_id"`,
    );
    return claimed.map((c) => {
      this.sending++;
      const attempt = this.attempt(c).finally(() => {
        const wasFull = this.sending >= MAX_IN_FLIGHT;
        this.sending--;
        this.inFlight.delete(attempt);
        if (wasFull) this.wake();
      });
      this.inFlight.add(attempt);
      return attempt;
    });
  }

  private async attempt(c: Claimed): Promise<void> {
    const keys: Buffer[] = [];
    let outcome: AttemptOutcome;
    try {
      keys.push(openSecret(this.deps.masterKey, c.endpoint_id, c.secret));
      if (c.previous_secret && c.previous_expires_at && new Date(c.previous_expires_at) > this.deps.now()) {
        keys.push(openSecret(this.deps.masterKey, c.endpoint_id, c.previous_secret));
      }
      const headers = signedHeaders(keys, c.id, Math.floor(this.deps.now().getTime() / 1000), c.payload);
      outcome = await sendAttempt(c.url, headers, c.payload, { policy: this.policy, timeoutMs: this.timeoutMs, resolve: this.options.resolve });
    } catch (err) {
      outcome = { kind: "failed", error: `could not sign: ${(err as Error).message}` };
    } finally {
      for (const k of keys) k.fill(0);
    }
    try {
      const due = await recordOutcome(this.deps, c, outcome, this.options.retryBaseMs);
      // A retry due before the next poll: look again then (a short VESSEL_WEBHOOK_RETRY_BASE_MS is not rounded up to the poll).
      const inMs = due ? due.getTime() - this.deps.now().getTime() : Infinity;
      if (inMs < this.pollMs && !this.stopped) setTimeout(() => this.wake(), Math.max(inMs, 0) + 10).unref(); // timers may fire a little early
    } catch (err) {
      this.deps.log.warn({ err, deliveryId: c.id }, "webhook deliveries: could not record an attempt's outcome");
    }
  }
}
