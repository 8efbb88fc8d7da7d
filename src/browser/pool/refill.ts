import { whenCpuIdle, type IdleWait } from "./cpu-idle.ts";

/** How long after a spare is taken its replacement starts launching at the soonest. */
export const REFILL_DELAY_MS = 250;
/** A replacement nobody waits for waits for the CPUs to be quiet (cpu-idle.ts), but no longer than 2 s. */
const QUIET_REFILL: IdleWait = { idleShare: 0.6, windowMs: 100, minMs: REFILL_DELAY_MS, maxMs: 2_000 };

/**
 * The wait before the pool's next background launch (pool.ts #refill), one at a time: `soon`
 * (REFILL_DELAY_MS, so the session that just took a spare gets its client connected first), or,
 * when nobody waits for the launch (a spare is still ready, no burst), until the CPUs are quiet.
 */
export class RefillWait {
  readonly #quiet: IdleWait;
  #cancel: (() => void) | undefined;
  #waitingForQuiet = false;

  constructor(quiet: Partial<IdleWait> = {}) {
    this.#quiet = { ...QUIET_REFILL, ...quiet };
  }

  /** Starts the wait, unless one is on already; a wait for quiet gives way when a launch is now wanted soon. */
  arm(quiet: boolean, launch: () => void): void {
    if (this.#cancel && (quiet || !this.#waitingForQuiet)) return;
    this.#cancel?.();
    const run = () => {
      this.#cancel = undefined;
      launch();
    };
    this.#waitingForQuiet = quiet;
    if (quiet) this.#cancel = whenCpuIdle(run, this.#quiet);
    else {
      const timer = setTimeout(run, REFILL_DELAY_MS);
      this.#cancel = () => clearTimeout(timer);
    }
  }

  cancel(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }
}
