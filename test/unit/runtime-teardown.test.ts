import { describe, expect, it } from "vitest";
import { SessionRuntime } from "../../src/browser/runtime/runtime.ts";
import type { BrowserLease } from "../../src/browser/pool/types.ts";
import { createLogger } from "../../src/logger.ts";

/**
 * The order of a session's teardown (src/browser/runtime/runtime.ts). The lease is a stand-in: this is the
 * runtime's own bookkeeping, and a real browser would only add its close after everything asserted here.
 */
function leaseRecording(steps: string[]): BrowserLease {
  return {
    id: "b",
    sessionId: "ses_t",
    pid: 0,
    downloadsDir: "",
    uploadsDir: "",
    exited: new Promise(() => {}),
    cdp: undefined as never,
    release: async () => void steps.push("browser released"),
    ending: () => void steps.push("slot ending"),
    giveBack: () => {},
  } as unknown as BrowserLease;
}

const turnsOfMicrotasks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe("a session's teardown", () => {
  it("stops offering the session at once, and leaves its captures and browser for the next turn of the event loop (the ending call answers first)", async () => {
    const steps: string[] = [];
    const runtime = new SessionRuntime({ log: createLogger("silent"), onEnd: async () => {}, openChannelAhead: false });
    runtime.add("ses_t", leaseRecording(steps), new Date(Date.now() + 60_000), null, new Date());
    runtime.addFinisher("ses_t", async () => void steps.push("captures finished"));

    const done = runtime.teardown("ses_t");
    // Synchronously: no longer offered to a connecting client, no new finisher, the slot announced.
    expect(runtime.endpoint("ses_t")).toBeUndefined();
    expect(runtime.addFinisher("ses_t", async () => {})).toBe(false);
    expect(steps).toEqual(["slot ending"]);
    // What an awaiting caller does in its own continuations (writing its answer) comes before the rest.
    await turnsOfMicrotasks(20);
    expect(steps).toEqual(["slot ending"]);

    await done;
    expect(steps).toEqual(["slot ending", "captures finished", "browser released"]);
  });
});
