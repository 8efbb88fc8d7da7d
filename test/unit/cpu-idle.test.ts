import { describe, expect, it } from "vitest";
import { procCpuTimes, whenCpuIdle, type CpuTimes } from "../../src/browser/pool/cpu-idle.ts";

/** CPU times that advance by 100 ticks per read, `idleShare` of them idle (changeable as it runs). */
function fakeCpu(idleShare: number) {
  const state = { idleShare, times: { idle: 0, total: 0 } as CpuTimes | undefined };
  return {
    state,
    read: () => {
      if (!state.times) return undefined;
      state.times = { idle: state.times.idle + 100 * state.idleShare, total: state.times.total + 100 };
      return state.times;
    },
  };
}

/** Milliseconds until `whenCpuIdle` runs (rejects after `limitMs`). */
function ranAfter(read: () => CpuTimes | undefined, opts: { minMs: number; maxMs: number }, limitMs = 5_000): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const cancel = whenCpuIdle(() => resolve(performance.now() - started), { idleShare: 0.6, windowMs: 10, readTimes: read, ...opts });
    setTimeout(() => (cancel(), reject(new Error("never ran"))), limitMs);
  });
}

describe("whenCpuIdle (a background launch waits for quiet CPUs)", () => {
  it("waits at least minMs even when the CPUs are idle, then runs", async () => {
    expect(await ranAfter(fakeCpu(1).read, { minMs: 120, maxMs: 2_000 })).toBeGreaterThanOrEqual(120);
  });

  it("keeps waiting while the CPUs are busy, and runs in the first quiet window", async () => {
    const cpu = fakeCpu(0.1);
    const ran = ranAfter(cpu.read, { minMs: 20, maxMs: 10_000 }, 10_000);
    let done = false;
    void ran.then(
      () => (done = true),
      () => {},
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false); // 0.1 idle is below 0.6
    const quietAt = performance.now();
    cpu.state.idleShare = 0.9;
    await ran;
    expect(performance.now() - quietAt).toBeLessThan(9_000); // ran on quiet, not at maxMs
  });

  it("runs at maxMs on a machine that is never quiet", async () => {
    const waited = await ranAfter(fakeCpu(0).read, { minMs: 20, maxMs: 250 });
    expect(waited).toBeGreaterThanOrEqual(250);
  });

  it("runs after minMs when the CPU times cannot be read", async () => {
    const cpu = fakeCpu(0);
    cpu.state.times = undefined;
    const waited = await ranAfter(cpu.read, { minMs: 50, maxMs: 10_000 }, 9_000);
    expect(waited).toBeGreaterThanOrEqual(50);
  });

  it("a cancelled wait never runs", async () => {
    let ran = false;
    const cancel = whenCpuIdle(() => (ran = true), { idleShare: 0.6, windowMs: 10, minMs: 20, maxMs: 40, readTimes: fakeCpu(1).read });
    cancel();
    await new Promise((r) => setTimeout(r, 150));
    expect(ran).toBe(false);
  });

  it("reads the machine's CPU times from /proc/stat", () => {
    const a = procCpuTimes();
    expect(a).toBeDefined();
    expect(a!.total).toBeGreaterThan(a!.idle);
    expect(a!.idle).toBeGreaterThan(0);
  });
});
