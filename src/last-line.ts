import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "./logger.ts";

/**
 * The process's last line of defence: an exception nobody caught, or a promise rejection nobody
 * handled, that came from handling one client is logged and that client is cut off; the node, and
 * every other session on it, goes on. Anything else still ends the process, as Node would.
 *
 * Which errors are survivable, and why:
 *
 * - It must have surfaced inside a client's scope: entered where an HTTP request or a WebSocket
 *   upgrade arrives (src/front-door.ts) and inherited by everything handling it started (its
 *   promises, timers, and the events of its socket, such as a relayed CDP client's messages).
 *   Such code owns that client's state: the throw unwinds its work. The node's shared state
 *   (the browser pool, the runtime's table of sessions, the database) is changed by its own code
 *   in synchronous steps or transactions, so one client's failure does not leave it half-changed.
 * - It must not be a broken invariant: an assertion (ours or Node's internals) or a Prisma engine
 *   panic says the process itself is in a state nobody planned for, wherever it surfaced.
 * - Everything outside a client's scope exits: start-up, maintenance jobs, heartbeats, the
 *   watchdog and warm spares run on timers of their own, and a fault there says nothing about how
 *   far the damage goes. Exiting is then the safe answer: the supervisor restarts the node, and
 *   the restart ends the sessions (and kills the browsers) the dead process left behind.
 *
 * Tests do not install it (a stray exception must fail the test); src/main.ts does.
 */

export interface ClientScope {
  /** What arrived: an HTTP request or a WebSocket upgrade. */
  kind: "request" | "upgrade";
  method: string;
  /** The path, credentials in the query masked (logger.ts's safeUrl). */
  url: string;
  /** Cuts the client off: its connection is closed, so it sees a failure instead of waiting forever. */
  cut(): void;
}

const scopes = new AsyncLocalStorage<ClientScope>();

/** Marks everything from here on in this callback, and all it starts, as handling this client. */
export function enterClientScope(scope: ClientScope): void {
  scopes.enterWith(scope);
}

/** The client whose handling is running now, if any. */
export function currentClientScope(): ClientScope | undefined {
  return scopes.getStore();
}

/** Errors that mean the process itself is broken, whatever client it surfaced in. */
export function brokenInvariant(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return err.name === "AssertionError" || code === "ERR_ASSERTION" || code === "ERR_INTERNAL_ASSERTION" || err.name === "PrismaClientRustPanicError";
}

export type Verdict = { survive: true; scope: ClientScope } | { survive: false };

/** Whether an uncaught error, seen while `scope` was current, may be survived (see above). */
export function judgeUncaught(err: unknown, scope: ClientScope | undefined): Verdict {
  if (!scope || brokenInvariant(err)) return { survive: false };
  return { survive: true, scope };
}

/**
 * Installs the handler. Node's default stays for what is not survivable: the error is logged and
 * the process exits with 1. A rejection nobody handled reaches the same handler (Node's default
 * `--unhandled-rejections=throw` raises it as an uncaught exception when no other listener exists).
 */
export function installLastLineOfDefence(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const onUncaught = (err: unknown, origin: string) => {
    // The scope of the callback that threw is still current here (Node has not left it yet).
    const verdict = judgeUncaught(err, currentClientScope());
    if (verdict.survive) {
      const { kind, method, url } = verdict.scope;
      log.error({ err, origin, client: { kind, method, url } }, "a client's handling failed and nothing caught it; that client was cut off, the node goes on");
      try {
        verdict.scope.cut();
      } catch {
        // Cutting a connection that is already gone: nothing left to do.
      }
      return;
    }
    log.fatal({ err, origin }, "an uncaught error outside any client's handling (or a broken invariant): exiting");
    exit(1);
  };
  process.on("uncaughtException", onUncaught);
  return () => process.off("uncaughtException", onUncaught);
}
