import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

/** Fencing's arithmetic is checked at start (src/cluster/lease.ts): peers wait longer than a lease plus the margin. */

const load = (env: Record<string, string>) => loadConfig(env, "/nonexistent");

describe("the lease settings", () => {
  it("default to half the node timeout and a tenth of it (at most 2 s), and the placement bound to 2 s", () => {
    expect(load({}).cluster).toMatchObject({ nodeTimeoutSeconds: 30, leaseSeconds: 15, clockSkewSeconds: 2, placementTimeoutMs: 2000 });
    expect(load({ VESSEL_NODE_TIMEOUT_SECONDS: "3", VESSEL_HEARTBEAT_SECONDS: "0.3" }).cluster).toMatchObject({ leaseSeconds: 1.5, clockSkewSeconds: 0.3 });
  });

  it("refuse a node timeout that does not exceed the lease plus the clock-skew margin, naming the three", () => {
    const problems = (env: Record<string, string>) => {
      try {
        load(env);
        return "";
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
    };
    expect(problems({ VESSEL_LEASE_SECONDS: "28" })).toContain(
      "VESSEL_NODE_TIMEOUT_SECONDS (30 s) must be greater than VESSEL_LEASE_SECONDS (28 s) + VESSEL_CLOCK_SKEW_SECONDS (2 s)",
    );
    expect(problems({ VESSEL_LEASE_SECONDS: "20", VESSEL_CLOCK_SKEW_SECONDS: "10" })).toContain("must be greater than");
    expect(problems({ VESSEL_LEASE_SECONDS: "20", VESSEL_CLOCK_SKEW_SECONDS: "9" })).toBe("");
    expect(problems({ VESSEL_LEASE_SECONDS: "4", VESSEL_HEARTBEAT_SECONDS: "5" })).toContain("VESSEL_LEASE_SECONDS: must be at least twice the heartbeat");
    expect(problems({ VESSEL_PLACEMENT_TIMEOUT_MS: "10" })).toContain("VESSEL_PLACEMENT_TIMEOUT_MS");
  });
});
