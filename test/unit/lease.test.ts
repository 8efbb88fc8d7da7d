import { describe, expect, it } from "vitest";
import { CloseCode } from "../../src/browser/close-codes.ts";
import { Lease } from "../../src/cluster/lease.ts";
import type { AppDeps } from "../../src/kernel/context.ts";
import { createLogger } from "../../src/logger.ts";

/** The lease on its own (src/cluster/lease.ts): renewed by writes that succeed in time, fenced when none does. */

function leaseOf(seconds: number) {
  const closed: Array<[string, number]> = [];
  const runtime = { ids: () => ["ses_a", "ses_b"], teardown: async (id: string, _m: string, code: number) => void closed.push([id, code]) };
  const lease = new Lease({ deps: { runtime } as unknown as AppDeps, log: createLogger("silent") }, seconds);
  return { lease, closed };
}
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("a node's lease", () => {
  it("holds from a renewal for the lease, timed from when the renewal was sent", async () => {
    const { lease, closed } = leaseOf(0.3);
    expect(lease.held).toBe(false);
    const sent = performance.now();
    await lease.renew(() => sleep(100), 1000);
    const spent = performance.now() - sent;
    expect(lease.held).toBe(true);
    // What the write itself took (about 100 ms: a timer may fire a hair early) came off the 300; timed
    // from the answer instead, about 300 would be left.
    expect(spent).toBeGreaterThan(90);
    expect(lease.remainingMs()).toBeLessThanOrEqual(300 - spent + 1);
    lease.stop();
    expect(closed).toEqual([]);
  });

  it("a renewal stuck past what is left of the lease gives up; the lease runs out and every session is closed with 4503; a renewal later lifts the fence", async () => {
    const { lease, closed } = leaseOf(0.2);
    await lease.renew(async () => {}, 1000);
    let regained = 0;
    lease.onRegained = () => regained++;
    const stuck = lease.renew(() => new Promise<void>(() => {}), 50);
    await expect(stuck).rejects.toThrow(/did not record the heartbeat/);
    await sleep(30);
    expect(lease.fenced).toBe(true);
    expect(lease.held).toBe(false);
    expect(closed).toEqual([
      ["ses_a", CloseCode.leaseLost],
      ["ses_b", CloseCode.leaseLost],
    ]);
    await lease.renew(async () => {}, 1000);
    expect([lease.fenced, lease.held, regained]).toEqual([false, true, 1]);
    lease.stop();
  });

  it("fences many times over on the event loop's clock (a timer that fires early looks again)", async () => {
    for (let i = 0; i < 20; i++) {
      const { lease, closed } = leaseOf(0.01 + (i % 3) * 0.001);
      await lease.renew(async () => {}, 100);
      await sleep(40);
      expect(closed.length, `round ${i}`).toBe(2);
      lease.stop();
    }
  });
});
