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

export type Idempotent<T> = { replayed: false; result: T } | { replayed: true; status: number; body: unknown };

/** A first call's answer, as stored for its replays. */
export interface Outcome {
  status: number;
  body: unknown;
  resourceId: string;
}

/**
 * The UPDATE that stores a first call's answer. `execute` may run it inside its own transaction,
 * alone or as a part of one of its statements (a data-modifying CTE), and then return
 * `stored: true`: the answer commits with what it describes, and the call makes one write less.
 * Otherwise the answer is stored once `execute` returns. With `when`, a condition of that statement,
 * it updates only if the condition holds (a capped create that found no room stores nothing).
 */
export type StoreAnswer = (outcome: Outcome, when?: Prisma.Sql) => Prisma.Sql;

/**
 * The INSERT that takes a key with a first call's answer, for a statement of the call's own (as
 * `WITH "claim" AS (…)`): a row when it took the key, none when the key is taken already (whatever
 * its state), so that the statement's other parts, selecting from it, write nothing either. With
 * `when`, it takes the key only if that condition of the statement holds.
 */
export type ClaimAnswer = (outcome: Outcome, when?: Prisma.Sql) => Prisma.Sql;

/** First calls running on this node through the one-statement way, by workspace and key (see `idempotent`). */
const inOneFlight = new Map<string, Promise<unknown>>();

/**
 * Runs `execute` at most once per (workspace, key) within the window. A completed first call is
 * replayed with its original body (stored sealed: it carries connect tokens); a call still in flight
 * gets 409 with Retry-After; the same key with another body gets 422. A failure of `execute` frees the
 * key, so a retry runs again (nothing was created).
 *
 * `inOne`, when given, is tried first: the call does its work and takes the key in the same
 * statement (`claim`), one statement instead of two (the claim, then the work with its answer), on
 * the path of every new session. It answers null when it cannot go that way (say, no warm spare),
 * or, having undone what it prepared, when the key was taken already (a replay, a duplicate running
 * on another node, an expired or abandoned record); the call then goes the two-statement way, which
 * tells those cases apart. Calls with the same key on this node wait for each other there, so a
 * burst of duplicates prepares once (one browser).
 */
export async function idempotent<T>(
  ctx: ServiceContext,
  input: { workspaceId: string; key: string; fingerprint: string },
  execute: (storeAnswer: StoreAnswer) => Promise<Outcome & { result: T; stored?: boolean }>,
  inOne?: (claim: ClaimAnswer) => Promise<T | null>,
): Promise<Idempotent<T>> {
  const prisma = prismaOf(ctx);
  const { workspaceId, key } = input;
  const aad = `idempotency:${workspaceId}:${key}`;
  if (inOne) {
    const flight = `${workspaceId}:${key}`;
    const earlier = inOneFlight.get(flight);
    if (earlier) {
      await earlier.catch(() => {});
    } else {
      const attempt = inOne(claimAnswer);
      inOneFlight.set(flight, attempt);
      try {
        const result = await attempt;
        if (result !== null) return { replayed: false, result };
      } finally {
        inOneFlight.delete(flight);
      }
    }
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = ctx.deps.now();
    // Raw SQL: Prisma's createMany (the only way to its ON CONFLICT DO NOTHING) costs about 2 ms
    // more of this process's CPU per call on PGlite, on the path of every session start.
    const claimed = await executeStatement(
      ctx.deps.db,
      Prisma.sql`INSERT INTO "idempotency_records"
        ("workspace_id", "key", "fingerprint", "state", "locked_until", "expires_at", "created_at")
      VALUES (${workspaceId}, ${key}, ${input.fingerprint}, 'IN_PROGRESS',
        ${new Date(now.getTime() + idempotencyLockMs)}, ${new Date(now.getTime() + idempotencyWindowMs)}, ${now})
      ON CONFLICT DO NOTHING`,
    );
    if (claimed === 1) return run();

    const existing = await prisma.idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
    if (!existing) continue; // freed in between: claim again
    if (existing.expiresAt <= now) {
      // Outside the window: the key is new again, whatever it was used for.
      await prisma.idempotencyRecord.deleteMany({ where: { workspaceId, key, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.fingerprint !== input.fingerprint) {
      throw new AppError("idempotency-key-reused", "This Idempotency-Key was used with a different request body. Use a new key for a new request.");
    }
    if (existing.state === "COMPLETED" && existing.responseBody && existing.responseStatus) {
      const sealed = Buffer.from((existing.responseBody as { sealed: string }).sealed, "base64");
      return { replayed: true, status: existing.responseStatus, body: JSON.parse(open(ctx.deps.masterKey.key, sealed, aad).toString("utf8")) };
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
    if (taken.count === 1) return run();
  }
  throw new AppError("idempotency-key-in-use", "A request with this Idempotency-Key is still being processed. Retry shortly.", {}, { "Retry-After": "1" });

  async function run(): Promise<Idempotent<T>> {
    let outcome: Awaited<ReturnType<typeof execute>>;
    try {
      outcome = await execute(storeAnswer);
    } catch (err) {
      await prisma.idempotencyRecord.deleteMany({ where: { workspaceId, key, state: "IN_PROGRESS" } }).catch(() => {});
      throw err;
    }
    // `stored`: the transaction that ran storeAnswer's statement committed (else execute threw).
    if (!outcome.stored) await prisma.$executeRaw(storeAnswer(outcome));
    return { replayed: false, result: outcome.result };
  }

  function sealedBody(outcome: Outcome): string {
    return JSON.stringify({ sealed: seal(ctx.deps.masterKey.key, Buffer.from(JSON.stringify(outcome.body)), aad).toString("base64") });
  }

  function storeAnswer(outcome: Outcome, when?: Prisma.Sql): Prisma.Sql {
    return Prisma.sql`UPDATE "idempotency_records"
      SET "state" = 'COMPLETED', "response_status" = ${outcome.status}, "response_body" = ${sealedBody(outcome)}::jsonb,
        "resource_id" = ${outcome.resourceId}, "locked_until" = NULL
      WHERE "workspace_id" = ${workspaceId} AND "key" = ${key}${when ? Prisma.sql` AND ${when}` : Prisma.empty}`;
  }

  function claimAnswer(outcome: Outcome, when?: Prisma.Sql): Prisma.Sql {
    const now = ctx.deps.now();
    const columns = Prisma.sql`("workspace_id", "key", "fingerprint", "state", "response_status", "response_body", "resource_id", "locked_until", "expires_at", "created_at")`;
    const expires = new Date(now.getTime() + idempotencyWindowMs);
    if (when) {
      // A SELECT gives its parameters no type of their own: each is cast to its column's.
      return Prisma.sql`INSERT INTO "idempotency_records" ${columns}
        SELECT ${workspaceId}::text, ${key}::text, ${input.fingerprint}::text, 'COMPLETED'::"IdempotencyState", ${outcome.status}::int,
          ${sealedBody(outcome)}::jsonb, ${outcome.resourceId}::text, NULL::timestamptz, ${expires}::timestamptz, ${now}::timestamptz
        WHERE ${when}
        ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
    }
    return Prisma.sql`INSERT INTO "idempotency_records" ${columns}
      VALUES (${workspaceId}, ${key}, ${input.fingerprint}, 'COMPLETED', ${outcome.status}::int, ${sealedBody(outcome)}::jsonb, ${outcome.resourceId},
        NULL, ${expires}::timestamptz, ${now}::timestamptz)
      ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
  }
}
