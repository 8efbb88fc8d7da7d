import { describe, expect, it } from "vitest";
import { SessionRuntime } from "../../src/browser/runtime/runtime.ts";
import type { BrowserLease } from "../../src/browser/pool/types.ts";
import { createLogger } from "../../src/logger.ts";
import { UploadReservation } from "../../src/services/session-files/upload-quota.ts";

/** The ledgers' own bookkeeping (the e2e tests in test/e2e/session-quotas.test.ts drive them with real clients). */
const lease = () =>
  ({
    id: "b",
    sessionId: "ses_q",
    pid: 0,
    downloadsDir: "",
    uploadsDir: "",
    exited: new Promise(() => {}),
    cdp: undefined as never,
    release: async () => {},
    ending: () => {},
  }) as unknown as BrowserLease;

describe("a session's upload ledger", () => {
  it("takes a file slot at once, bytes all or none, gives back the unused part on settle and everything on release", () => {
    const l = lease();
    const limits = { maxBytes: 100, maxFiles: 2 };
    const a = UploadReservation.open(l, limits);
    const b = UploadReservation.open(l, limits);
    expect(() => UploadReservation.open(l, limits)).toThrow(expect.objectContaining({ slug: "too-many-files" }));
    expect(a.take(60)).toBe(true);
    expect(b.take(41)).toBe(false); // all or none: nothing of it was taken
    expect(b.room).toBe(40);
    a.settle(30); // declared 60, stored 30
    expect(b.room).toBe(70);
    expect(b.take(70)).toBe(true);
    b.release();
    b.release(); // idempotent
    expect(a.room).toBe(70);
    a.release(); // after settle: the stored file keeps its slot and bytes
    expect(() => UploadReservation.open(l, limits)).not.toThrow();
    expect(() => UploadReservation.open(l, limits)).toThrow(expect.objectContaining({ slug: "too-many-files" }));
  });

  it("is the session's lease's own: another session starts empty", () => {
    const limits = { maxBytes: 10, maxFiles: 1 };
    UploadReservation.open(lease(), limits).take(10);
    expect(UploadReservation.open(lease(), limits).room).toBe(10);
  });
});

describe("a session's CDP socket slots", () => {
  it("are taken up to the limit, given back once each, and gone with the session", async () => {
    const runtime = new SessionRuntime({ log: createLogger("silent"), onEnd: async () => {}, openChannelAhead: false });
    runtime.add("ses_q", lease(), new Date(Date.now() + 60_000), null, new Date());
    const first = runtime.reserveClient("ses_q", 2);
    const second = runtime.reserveClient("ses_q", 2);
    expect(typeof first).toBe("function");
    expect(typeof second).toBe("function");
    expect(runtime.reserveClient("ses_q", 2)).toBe("full");
    (first as () => void)();
    (first as () => void)(); // a second release frees nothing more
    expect(typeof runtime.reserveClient("ses_q", 2)).toBe("function");
    expect(runtime.reserveClient("ses_q", 2)).toBe("full");
    expect(runtime.reserveClient("ses_other", 2)).toBeUndefined();
    await runtime.teardown("ses_q");
    expect(runtime.reserveClient("ses_q", 2)).toBeUndefined();
    (second as () => void)(); // a socket closing after its session ended
  });
});
