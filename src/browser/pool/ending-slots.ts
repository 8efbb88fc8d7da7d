/**
 * Slots of sessions that have ended but whose browser is not released yet: browser/runtime/runtime.ts answers the
 * release first and gives the session's captures up to 3 s before the browser goes. A create right
 * after that release, on a node that was full, waits for the slot here instead of getting a 503
 * (pool.ts acquire).
 */

/** How long an acquire waits at most: the captures' bound and the browser's close, with room. */
const WAIT_MS = 5_000;

export class EndingSlots {
  readonly #ending = new Set<string>();
  readonly #waiters = new Set<() => void>();

  /** The session has ended; its slot comes back when its lease is freed. */
  mark(sessionId: string): void {
    this.#ending.add(sessionId);
  }

  /** A slot was given back (released, given back unused, or its browser died): waiters look again. */
  freed(sessionId: string): void {
    this.#ending.delete(sessionId);
    this.wakeAll();
  }

  /** The pool stops: nobody waits any more. */
  clear(): void {
    this.#ending.clear();
    this.wakeAll();
  }

  /** Waits while `full()` and some session is ending, up to WAIT_MS; the caller looks at the slots again. */
  async wait(full: () => boolean): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (full() && this.#ending.size > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, deadline - Date.now());
        this.#waiters.add(wake);
      });
    }
  }

  private wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
