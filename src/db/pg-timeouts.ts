import net from "node:net";
import tls from "node:tls";
import pg from "pg";
import { budgetMessage, databaseBudgetLeft } from "./budget.ts";

/**
 * How long PostgreSQL may take before a call gives up, so that a database that stops answering
 * (a paused or overloaded server, a network that drops packets without a reset) costs a request
 * a 503 after a bounded wait instead of hanging it (src/db/errors.ts recognises each failure):
 *
 * - connecting: no answer to a new connection within CONNECT_TIMEOUT_MS;
 * - a statement the server runs too long is cancelled by the server itself (`statement_timeout`),
 *   which also frees the locks it holds; every statement on a request's path takes milliseconds;
 * - a statement the server does not answer at all (it cannot cancel what it never runs) is given
 *   up by the client after QUERY_DEADLINE_MS, a little longer than the statement timeout so the
 *   server's own cancel comes first when the server is alive. The connection is then dropped, never
 *   returned to the pool: it may still owe the answer, or hold an open transaction;
 * - a transaction whose client went away without ending it is rolled back by the server after
 *   IDLE_IN_TRANSACTION_MS (its locks would otherwise stay taken);
 * - inside a call with a budget (budget.ts: a create, VESSEL_PLACEMENT_TIMEOUT_MS), a checkout from
 *   the pool and a statement are bounded by what is left of it, whichever is sooner: a statement
 *   past it is dropped with its connection, as at the deadline.
 *
 * Migrations connect without these (src/db/client.ts): they may rightly take longer.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const STATEMENT_TIMEOUT_MS = 5_000;
export const QUERY_DEADLINE_MS = 7_000;
export const IDLE_IN_TRANSACTION_MS = 10_000;

/** The message of a query given up at its deadline (errors.ts maps it to 503). */
export const deadlineMessage = `Connection terminated: PostgreSQL did not answer within ${QUERY_DEADLINE_MS} ms`;

type Callback = (err: Error | null, result?: unknown) => void;

/**
 * pg's own `query_timeout` fails the query but keeps its connection, which then goes back to the
 * pool still waiting for the lost answer (or inside the transaction the query belonged to, whose
 * ROLLBACK was never sent): the next user of the connection would run in that transaction. This
 * client drops the connection instead, which fails every query on it and takes it out of the pool.
 */
export class DeadlineClient extends pg.Client {
  // pg's overloads (promise, callback, submittable) all pass through here.
  override query(...args: unknown[]): any {
    const first = args[0] as { submit?: unknown } | undefined;
    // Submittables (cursors, streams) report through their own events; Prisma never sends one.
    if (first && typeof first.submit === "function") return (super.query as (...a: unknown[]) => unknown)(...args);
    // Within a call's budget (budget.ts), its end comes first. A spent budget sends nothing and drops
    // the connection (it may hold the call's open transaction: it must not go back to the pool).
    const left = databaseBudgetLeft();
    if (left === 0) return this.#refuse(args.at(-1));
    const timer =
      left !== undefined && left < QUERY_DEADLINE_MS
        ? setTimeout(() => this.#drop(budgetMessage), left)
        : setTimeout(() => this.#drop(deadlineMessage), QUERY_DEADLINE_MS);
    timer.unref();
    const last = args.at(-1);
    if (typeof last === "function") {
      args[args.length - 1] = (err: Error | null, result?: unknown) => {
        clearTimeout(timer);
        (last as Callback)(err, result);
      };
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const answer = (super.query as (...a: unknown[]) => Promise<unknown>)(...args);
    answer.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    return answer;
  }

  #drop(message: string): void {
    const stream = (this as unknown as { connection?: { stream?: net.Socket } }).connection?.stream;
    if (!stream) return;
    // A reset, not a close: a close still delivers what the kernel holds unsent (the statement, in a
    // network that drops packets) once the network heals, and the server would run it after the
    // caller was told it failed; a reset discards it. The query then fails as "Connection terminated
    // unexpectedly" (errors.ts: 503). TLS streams have no reset of their own: closed, with the reason.
    if (!(stream instanceof tls.TLSSocket) && typeof stream.resetAndDestroy === "function" && !stream.destroyed) stream.resetAndDestroy();
    else stream.destroy(new Error(message));
  }

  #refuse(last: unknown): Promise<never> | undefined {
    this.#drop(budgetMessage);
    const err = new Error(budgetMessage);
    if (typeof last === "function") return void setImmediate(() => (last as Callback)(err));
    return Promise.reject(err);
  }
}

/**
 * The pool: a checkout inside a call's budget (budget.ts) waits at most what is left of it, not the
 * pool's own CONNECT_TIMEOUT_MS (a dead database holds every connection, and a new one hangs in its
 * handshake). A client that arrives after the caller gave up goes back to the pool unused.
 */
export class BudgetPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    const left = databaseBudgetLeft();
    if (left === undefined) return callback ? super.connect(callback) : super.connect();
    const got = new Promise<{ client: pg.PoolClient; done: (release?: unknown) => void }>((resolve, reject) => {
      if (left === 0) return reject(new Error(budgetMessage)); // spent: not even a new connection is opened
      let over = false;
      const timer = setTimeout(() => {
        over = true;
        reject(new Error(budgetMessage));
      }, left);
      super.connect((err, client, done) => {
        clearTimeout(timer);
        if (over) return void (client && done());
        if (err || !client) return reject(err ?? new Error(budgetMessage));
        resolve({ client, done });
      });
    });
    if (!callback) return got.then(({ client }) => client);
    got.then(
      ({ client, done }) => callback(undefined, client, done),
      (err: Error) => callback(err, undefined, () => {}),
    );
  }
}

/** The pool settings of a PostgreSQL deployment (src/db/client.ts hands them to Prisma's adapter). */
export function poolConfig(connectionString: string): pg.PoolConfig {
  return {
    connectionString,
    Client: DeadlineClient,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // TCP keepalives notice a silently dead connection between queries.
    keepAlive: true,
  };
}
