import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { JobRunner } from "../../src/jobs.ts";
import { createLogger } from "../../src/logger.ts";

const log = createLogger("silent");

describe("JobRunner", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("runs each job after its first delay, then every interval, never overlapping itself", async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const runner = new JobRunner(
      [
        {
          name: "slow",
          everyMs: 100,
          firstAfterMs: 10,
          run: async () => {
            running++;
            maxRunning = Math.max(maxRunning, running);
            await new Promise((r) => setTimeout(r, 250));
            running--;
            runs++;
          },
        },
      ],
      log,
    );
    runner.start();
    await vi.advanceTimersByTimeAsync(9);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1 + 250);
    expect(runs).toBe(1);
    // The next run starts 100 ms after the previous one ended.
    await vi.advanceTimersByTimeAsync(100 + 250);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(3 * 350);
    expect(runs).toBe(5);
    expect(maxRunning).toBe(1);
    await runner.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(5);
  });

  it("keeps running a job that fails, and runNow runs it at once", async () => {
    let calls = 0;
    const runner = new JobRunner(
      [
        {
          name: "flaky",
          everyMs: 50,
          run: async () => {
            calls++;
            throw new Error("boom");
          },
        },
      ],
      log,
    );
    runner.start();
    await vi.advanceTimersByTimeAsync(160);
    expect(calls).toBe(3);
    await runner.runNow("flaky");
    expect(calls).toBe(4);
    await expect(runner.runNow("nope")).rejects.toThrow(/no job named nope/);
    await runner.stop();
  });

  it("uses unref'd timers, so jobs never keep the process alive", () => {
    const runner = new JobRunner([{ name: "idle", everyMs: 1000, run: async () => {} }], log);
    const spy = vi.spyOn(globalThis, "setTimeout");
    runner.start();
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    void runner.stop();
  });
});
