import { AsyncLocalStorage } from "node:async_hooks";

/**
 * A budget for the database waits of one call (a create: VESSEL_PLACEMENT_TIMEOUT_MS), carried by
 * async context so that every statement and every pool checkout the call makes, however deep
 * (idempotency record, workspace cap, the recording statement, placement's reads), is bounded by
 * what is left of it, without threading a deadline through every function.
 *
 * Why not a service-level race: a statement given up by racing it still runs, and may commit after
 * the call answered 503 (a black-holed network delivers it when it heals). The driver drops the
 * connection of a statement that outlives the budget (pg-timeouts.ts), which fails the statement
 * and takes its connection out of the pool, exactly as the query deadline does, only sooner.
 *
 * The budget counts the time spent waiting on the database, not launching a browser: the create
 * restarts it after each browser step ({@link restartDatabaseBudget}). It ends with the call
 * (its `end()` marks it spent-and-done, {@link enterDatabaseBudget}): timers and background work started inside
 * the call inherit the async context, and must not inherit a budget long past.
 */
interface Budget {
  ms: number;
  until: number;
  done: boolean;
}

const current = new AsyncLocalStorage<Budget>();

/** A budget entered by {@link enterDatabaseBudget}; `end` marks it spent-and-done. */
export interface EnteredBudget {
  end(): void;
}

const joined: EnteredBudget = { end: () => {} };

/**
 * Bounds every database wait of the rest of the calling async function (and of what it awaits) by
 * `ms`, until `end()` (call it in a `finally`). Inside a budget already running (the transport
 * entered it, so authentication shares it) the call joins that one, and `end()` leaves it running.
 *
 * No callback: the caller goes on in its own code (a callback here would call back up into it).
 * The price is one rule: the caller enters it only after an `await` of its own. Until its first
 * await an async function runs in its caller's async context, and the budget would stay there
 * after the call returned; after it, the context is the function's own, and its caller's
 * continuation keeps the context it had (test/unit/database-budget.test.ts shows both).
 */
export function enterDatabaseBudget(ms: number): EnteredBudget {
  const outer = current.getStore();
  if (outer && !outer.done) return joined;
  const budget: Budget = { ms, until: performance.now() + ms, done: false };
  current.enterWith(budget);
  return {
    end: () => {
      budget.done = true;
    },
  };
}

/** Runs `fn` outside any budget (work that outlives the call: timers, background writers). */
export function outsideDatabaseBudget<T>(fn: () => T): T {
  return current.exit(fn);
}

/** Gives the call's budget its full time again (after a browser step, whose time is not the database's). */
export function restartDatabaseBudget(): void {
  const budget = current.getStore();
  if (budget && !budget.done) budget.until = performance.now() + budget.ms;
}

/** Milliseconds left of the current call's budget (0: spent), or undefined outside one. */
export function databaseBudgetLeft(): number | undefined {
  const budget = current.getStore();
  if (!budget || budget.done) return undefined;
  return Math.max(0, budget.until - performance.now());
}

/** The message of a wait given up at the budget's end (errors.ts maps "Connection terminated" to 503). */
export const budgetMessage = "Connection terminated: PostgreSQL did not answer within the call's budget (VESSEL_PLACEMENT_TIMEOUT_MS)";
