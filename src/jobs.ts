import type { Logger } from "./logger.ts";

/** A periodic task. Its own notion of time comes from the app's clock (deps.now), not from here. */
export interface Job {
  name: string;
  /** Time between the end of one run and the start of the next. */
  everyMs: number;
  /** Before the first run (default: everyMs). */
  firstAfterMs?: number;
  run(): Promise<unknown>;
}

/**
 * Runs periodic jobs in this process: one run of a job at a time (a slow run delays the next instead
 * of overlapping it), a failure is logged and the job runs again on schedule. Every node runs every
 * job, so jobs must be idempotent (they are deletes of what has expired). Timers are unref()'d:
 * jobs never keep the process alive. `runNow` lets tests and operators run one at once.
 */
export class JobRunner {
  readonly #jobs = new Map<string, { job: Job; timer?: NodeJS.Timeout; running?: Promise<void> }>();
  readonly #log: Logger;
  #started = false;

  constructor(jobs: readonly Job[], log: Logger) {
    for (const job of jobs) this.#jobs.set(job.name, { job });
    this.#log = log;
  }

  get names(): string[] {
    return [...this.#jobs.keys()];
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const entry of this.#jobs.values()) this.#schedule(entry, entry.job.firstAfterMs ?? entry.job.everyMs);
  }

  /** Runs a job now (after its run in progress, if any) and resolves when it is done. */
  async runNow(name: string): Promise<void> {
    const entry = this.#jobs.get(name);
    if (!entry) throw new Error(`no job named ${name}`);
    await entry.running;
    await this.#run(entry);
  }

  /** Stops scheduling and waits for runs in progress. */
  async stop(): Promise<void> {
    this.#started = false;
    for (const entry of this.#jobs.values()) clearTimeout(entry.timer);
    await Promise.all([...this.#jobs.values()].map((e) => e.running));
  }

  #schedule(entry: { job: Job; timer?: NodeJS.Timeout; running?: Promise<void> }, delayMs: number): void {
    if (!this.#started) return;
    entry.timer = setTimeout(async () => {
      await entry.running;
      await this.#run(entry);
      this.#schedule(entry, entry.job.everyMs);
    }, delayMs);
    entry.timer.unref();
  }

  #run(entry: { job: Job; running?: Promise<void> }): Promise<void> {
    const run = (async () => {
      const started = performance.now();
      try {
        const result = await entry.job.run();
        this.#log.debug({ job: entry.job.name, result, ms: Math.round(performance.now() - started) }, "job done");
      } catch (err) {
        this.#log.error({ err, job: entry.job.name }, "job failed; it runs again on schedule");
      }
    })();
    entry.running = run;
    void run.finally(() => {
      if (entry.running === run) entry.running = undefined;
    });
    return run;
  }
}
