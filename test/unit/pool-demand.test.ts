import { describe, expect, it } from "vitest";
import { SpareDemand } from "../../src/browser/pool/demand.ts";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** A demand tracker on a clock the test moves, with plenty of memory unless told otherwise. */
function tracker(opts: { warm?: number; max?: number; available?: number } = {}) {
  let now = 0;
  const demand = new SpareDemand({
    warm: opts.warm ?? 1,
    max: opts.max ?? 8,
    windowMs: 60_000,
    spareBytes: 256 * MiB,
    reserveBytes: 1 * GiB,
    availableBytes: () => opts.available ?? 16 * GiB,
    now: () => now,
  });
  return { demand, at: (ms: number) => void (now = ms) };
}

describe("spare demand (the warm pool's size)", () => {
  it("keeps `warm` with no demand, and when the maximum is not above it", () => {
    expect(tracker().demand.target()).toBe(1);
    const fixed = tracker({ warm: 2, max: 1 });
    for (let i = 0; i < 10; i++) fixed.demand.record();
    expect(fixed.demand.target()).toBe(2);
  });

  it("a burst of 8 starts asks for 8 spares, capped by the maximum", () => {
    const t = tracker();
    for (let i = 0; i < 8; i++) t.demand.record();
    expect(t.demand.peak()).toBe(8);
    expect(t.demand.target()).toBe(8);
    const capped = tracker({ max: 5 });
    for (let i = 0; i < 8; i++) capped.demand.record();
    expect(capped.demand.target()).toBe(5);
  });

  it("a steady stream asks for the starts that fall within one launch time (at least 2 s)", () => {
    const t = tracker();
    t.demand.launched(1_000); // the moving average stays at 1 s: the 2 s floor applies
    // One start every 800 ms: three within any 2 s.
    for (let ms = 0; ms <= 16_000; ms += 800) {
      t.at(ms);
      t.demand.record();
    }
    expect(t.demand.target()).toBe(3);
    // Launches that take longer make the same stream need more spares.
    for (let i = 0; i < 30; i++) t.demand.launched(4_000);
    expect(t.demand.target()).toBe(5);
  });

  it("a burst spread out by the node's own work (a fork per launch) is still one burst", () => {
    const t = tracker();
    for (let i = 0; i < 20; i++) t.demand.launched(200); // fast spares
    for (let i = 0; i < 8; i++) {
      t.at(i * 150); // 8 starts over 1.05 s
      t.demand.record();
    }
    expect(t.demand.target()).toBe(8);
  });

  it("falls back to `warm` once the demand has left the window", () => {
    const t = tracker();
    for (let i = 0; i < 6; i++) t.demand.record();
    expect(t.demand.raised).toBe(true);
    t.at(60_001);
    expect(t.demand.target()).toBe(1);
    expect(t.demand.raised).toBe(false);
  });

  it("adds spares beyond `warm` only while memory stays available beyond the reserve", () => {
    // 1.6 GiB available: the 1 GiB reserve leaves room for two spares of 256 MiB.
    const t = tracker({ available: 1.6 * GiB });
    for (let i = 0; i < 8; i++) t.demand.record();
    expect(t.demand.target()).toBe(3);
    const none = tracker({ warm: 2, available: 0.5 * GiB });
    for (let i = 0; i < 8; i++) none.demand.record();
    expect(none.demand.target()).toBe(2);
  });
});
