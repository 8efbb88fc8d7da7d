import { createHash } from "node:crypto";
import { open, seal } from "../crypto/envelope.ts";
import { AppError } from "../errors.ts";
import { Prisma } from "../generated/prisma/client.ts";
import type { ServiceContext } from "./context.ts";
import { executeStatement, prismaOf } from "./support.ts";

/** The dedupe window of spec 8. */
export const idempotencyWindowMs = 24 * 3600 * 1000;
/** An in-flight claim older than this belonged to a node that died; another request may take it over. */
export const idempotencyLockMs = 60_000;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Missing → 400 idempotency-key-missing; not a UUID → 400 idempotency-key-invalid. */
export function requireIdempotencyKey(value: string | undefined): string {
  if (value === undefined || value === "") {
    throw new AppError("idempotency-key-missing", "POST /v1/sessions needs an Idempotency-Key header (a UUID you generate per logical request).");
  }
  if (!uuid.test(value)) throw new AppError("idempotency-key-invalid", "The Idempotency-Key header must be a UUID.");
  return value.toLowerCase();
}

/** SHA-256 of the operation and its canonical body: the same key with another body is refused. */
export function fingerprint(operation: string, body: unknown): string {
  return createHash("sha256").update(operation).update("\n").update(canonicalJson(body)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A replay: the first call's answer, as it was stored. */
export type Replay = { replayed: true; status: number; body: unknown };

export type Idempotent<T> = { replayed: false; result: T } | Replay;

/** A first call's answer, as stored for its replays. */
export interface Outcome {
  status: number;
  body: unknown;
  resourceId: string;
}

/** The statement that stores a claimed key's answer, or takes the key with it ({@link KeyClaim}). */
export type AnswerStatement = (outcome: Outcome, when?: Prisma.Sql) => Prisma.Sql;

/** First calls running on this node through the one-statement way, by workspace and key (see `oneStatementTurn`). */
const inOneFlight = new Map<string, Promise<void>>();

/**
 * One call's hold on its Idempotency-Key: the service takes the key, does its work, and the work's
 * own statement stores its answer; a failed work abandons the key. At most once per (workspace,
 * key) within the window: a completed first call is replayed with its original body (stored
 * sealed: it carries connect tokens); a call still in flight gets 409 with Retry-After; the same key
 * with another body gets 422. An abandoned key is free, so a retry runs again (nothing was created).
 *
 * Two ways to take the key. The one-statement way: the work takes it in the statement that
 * records what it did ({@link claimAnswer}), one statement instead of two, on the path of every
 * new session. When that statement took nothing (the key was taken already: a replay, a duplicate
 * running on another node, an expired or abandoned record), or the work cannot go that way (say,
 * no warm spare), the call goes the two-statement way: {@link claim} first, which tells those cases
 * apart, then the work with {@link storeAnswer}. The service drives; this file never calls it back.
 */
export class KeyClaim {
  readonly #ctx: ServiceContext;
  readonly #input: { workspaceId: string; key: string; fingerprint: string };
  readonly #aad: string;

  constructor(ctx: ServiceContext, input: { workspaceId: string; key: string; fingerprint: string }) {
    this.#ctx = ctx;
    this.#input = input;
    this.#aad = `idempotency:${input.workspaceId}:${input.key}`;
  }

  /**
   * The one-statement way's turn on this node: calls with the same key here wait for each other,
   * so a burst of duplicates prepares once (one browser). Undefined once an earlier call with the
   * key ended (this one then goes the two-statement way); else `end()` it when the attempt is over.
   */
  async oneStatementTurn(): Promise<{ end(): void } | undefined> {
    const flight = `${this.#input.workspaceId}:${this.#input.key}`;
    const earlier = inOneFlight.get(flight);
    if (earlier) {
      await earlier;
      return undefined;
    }
    let ended: () => void = () => {};
    const attempt = new Promise<void>((resolve) => (ended = resolve));
    inOneFlight.set(flight, attempt);
    return {
      end: () => {
        if (inOneFlight.get(flight) === attempt) inOneFlight.delete(flight);
        ended();
      },
    };
  }

  /**
   * Takes the key (answers `{ replayed: false }`: do the work, store its answer with
   * {@link storeAnswer}, or {@link abandon} the key if it fails), or answers the first call's replay.
   * Throws 422 for another body under the key, 409 while the first call is still in flight.
   */
  async claim(): Promise<Replay | { replayed: false }> {
    const ctx = this.#ctx;
    const prisma = prismaOf(ctx);
    const { workspaceId, key, fingerprint } = this.#input;
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = ctx.deps.now();
      // Raw SQL: Prisma's createMany (the only way to its ON CONFLICT DO NOTHING) costs about 2 ms
      // more of this process's CPU per call on PGlite, on the path of every session start.
      const claimed = await executeStatement(
        ctx.deps.db,
        Prisma.sql`INSERT INTO "idempotency_records"
          ("workspace_id", "key", "fingerprint", "state", "locked_until", "expires_at", "created_at")
        VALUES (${workspaceId}, ${key}, ${fingerprint}, 'IN_PROGRESS',
          ${new Date(now.getTime() + idempotencyLockMs)}, ${new Date(now.getTime() + idempotencyWindowMs)}, ${now})
        ON CONFLICT DO NOTHING`,
      );
      if (claimed === 1) return { replayed: false };

      const existing = await prisma.idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
      if (!existing) continue; // freed in between: claim again
      if (existing.expiresAt <= now) {
        // Outside the window: the key is new again, whatever it was used for.
        await prisma.idempotencyRecord.deleteMany({ where: { workspaceId, key, expiresAt: { lte: now } } });
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new AppError("idempotency-key-reused", "This Idempotency-Key was used with a different request body. Use a new key for a new request.");
      }
      if (existing.state === "COMPLETED" && existing.responseBody && existing.responseStatus) {
        const sealed = Buffer.from((existing.responseBody as { sealed: string }).sealed, "base64");
        return { replayed: true, status: existing.responseStatus, body: JSON.parse(open(ctx.deps.masterKey.key, sealed, this.#aad).toString("utf8")) };
      }
      if (existing.lockedUntil && existing.lockedUntil > now) {
        const seconds = Math.max(1, Math.ceil((existing.lockedUntil.getTime() - now.getTime()) / 1000));
        throw new AppError(
          "idempotency-key-in-use",
          "A request with this Idempotency-Key is still being processed. Retry shortly.",
          {},
          { "Retry-After": String(Math.min(seconds, 5)) },
        );
      }
      // The first attempt's node died mid-flight: take the claim over (only one taker wins the update).
      const taken = await prisma.idempotencyRecord.updateMany({
        where: { workspaceId, key, state: "IN_PROGRESS", lockedUntil: { lte: now } },
        data: { lockedUntil: new Date(now.getTime() + idempotencyLockMs) },
      });
      if (taken.count === 1) return { replayed: false };
    }
    throw new AppError("idempotency-key-in-use", "A request with this Idempotency-Key is still being processed. Retry shortly.", {}, { "Retry-After": "1" });
  }

  /** Frees a claimed key whose work failed: a retry runs again (nothing was created). Never throws. */
  async abandon(): Promise<void> {
    const { workspaceId, key } = this.#input;
    await prismaOf(this.#ctx)
      .idempotencyRecord.deleteMany({ where: { workspaceId, key, state: "IN_PROGRESS" } })
      .catch(() => {});
  }

  /**
   * The UPDATE that stores a claimed key's answer, for the work's own statement (alone, or as a
   * part of one, a data-modifying CTE): the answer commits with what it describes. With `when`, a
   * condition of that statement, it updates only if the condition holds (a capped create that found
   * no room stores nothing).
   */
  readonly storeAnswer: AnswerStatement = (outcome, when) => {
    const { workspaceId, key } = this.#input;
    return Prisma.sql`UPDATE "idempotency_records"
      SET "state" = 'COMPLETED', "response_status" = ${outcome.status}, "response_body" = ${this.#sealedBody(outcome)}::jsonb,
        "resource_id" = ${outcome.resourceId}, "locked_until" = NULL
      WHERE "workspace_id" = ${workspaceId} AND "key" = ${key}${when ? Prisma.sql` AND ${when}` : Prisma.empty}`;
  };

  /**
   * The INSERT that takes the key with a first call's answer, for the one-statement way (as
   * `WITH "claim" AS (…)`): a row when it took the key, none when the key is taken already
   * (whatever its state), so that the statement's other parts, selecting from it, write nothing
   * either. With `when`, it takes the key only if that condition of the statement holds.
   */
  readonly claimAnswer: AnswerStatement = (outcome, when) => {
    const { workspaceId, key, fingerprint } = this.#input;
    const now = this.#ctx.deps.now();
    const columns = Prisma.sql`("workspace_id", "key", "fingerprint", "state", "response_status", "response_body", "resource_id", "locked_until", "expires_at", "created_at")`;
    const expires = new Date(now.getTime() + idempotencyWindowMs);
    if (when) {
      // A SELECT gives its parameters no type of their own: each is cast to its column's.
      return Prisma.sql`INSERT INTO "idempotency_records" ${columns}
        SELECT ${workspaceId}::text, ${key}::text, ${fingerprint}::text, 'COMPLETED'::"IdempotencyState", ${outcome.status}::int,
          ${this.#sealedBody(outcome)}::jsonb, ${outcome.resourceId}::text, NULL::timestamptz, ${expires}::timestamptz, ${now}::timestamptz
        WHERE ${when}
        ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
    }
    return Prisma.sql`INSERT INTO "idempotency_records" ${columns}
      VALUES (${workspaceId}, ${key}, ${fingerprint}, 'COMPLETED', ${outcome.status}::int, ${this.#sealedBody(outcome)}::jsonb, ${outcome.resourceId},
        NULL, ${expires}::timestamptz, ${now}::timestamptz)
      ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
  };

  #sealedBody(outcome: Outcome): string {
    return JSON.stringify({ sealed: seal(this.#ctx.deps.masterKey.key, Buffer.from(JSON.stringify(outcome.body)), this.#aad).toString("base64") });
  }
}
