import { afterEach, describe, expect, it, vi } from "vitest";
import { ANSWERED_FLUSH_MS, NetworkTracker, type NetworkData } from "../../src/browser/logs/network.ts";
import { readableUrl, shortUrl } from "../../src/dashboard/src/lib/readable-url.ts";

/**
 * Issue 45, point 9: Chromium says a request finished only once the page has read its body; a
 * `fetch` answered `Cache-Control: no-store` whose body is never read never finishes, and was
 * never logged. An answered request is logged when its target goes, the capture stops, or a while
 * after its headers came.
 */
describe("network entries of answered requests", () => {
  afterEach(() => vi.useRealTimers());

  const sent = (n: NetworkTracker, id: string, url: string) =>
    n.willBeSent({ requestId: id, request: { url, method: "GET" }, type: "Fetch", timestamp: 10, wallTime: 1_700_000_000 });
  const answered = (n: NetworkTracker, id: string, status: number) =>
    n.responseReceived({ requestId: id, timestamp: 10.25, response: { status, statusText: "", mimeType: "text/plain" } });

  it("logs an answered request whose body never finished when flushed (target gone, capture closed), not one without an answer", () => {
    const out: NetworkData[] = [];
    const n = new NetworkTracker((d) => out.push(d));
    sent(n, "1", "http://h/x");
    answered(n, "1", 404);
    sent(n, "2", "http://h/never");
    n.flush();
    expect(out).toEqual([expect.objectContaining({ url: "http://h/x", status: 404, failure: null, response_bytes: null, duration_ms: 250 })]);
  });

  it("logs it a while after its headers came, once; a finish later adds nothing", () => {
    vi.useFakeTimers();
    const out: NetworkData[] = [];
    const n = new NetworkTracker((d) => out.push(d));
    sent(n, "1", "http://h/x");
    answered(n, "1", 404);
    vi.advanceTimersByTime(ANSWERED_FLUSH_MS - 1);
    expect(out).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(out).toHaveLength(1);
    n.finished({ requestId: "1", timestamp: 30, encodedDataLength: 10 });
    n.flush();
    expect(out).toHaveLength(1);
  });

  it("logs a request that finishes in time once, with its size, and leaves no timer behind", () => {
    vi.useFakeTimers();
    const out: NetworkData[] = [];
    const n = new NetworkTracker((d) => out.push(d));
    sent(n, "1", "http://h/y");
    answered(n, "1", 200);
    n.finished({ requestId: "1", timestamp: 10.5, encodedDataLength: 42 });
    vi.advanceTimersByTime(ANSWERED_FLUSH_MS * 2);
    expect(out).toEqual([expect.objectContaining({ status: 200, response_bytes: 42, duration_ms: 500 })]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("URLs as the dashboard shows them", () => {
  it("decodes percent-encoded text, keeps encoded delimiters, and shows data: URLs whole", () => {
    expect(shortUrl("data:text/html,…")).toBe("data:text/html,…");
    expect(shortUrl("http://h.test/caf%C3%A9?q=%E2%80%A6", "http://h.test/")).toBe("/café?q=…");
    expect(shortUrl("http://h.test/a%2Fb?x=%26", "http://o.test/")).toBe("h.test/a%2Fb?x=%26");
    expect(readableUrl("http://h/%0Aevil")).toBe("http://h/%0Aevil");
    expect(readableUrl("http://h/%E2%80%AEtxt")).toBe("http://h/%E2%80%AEtxt");
    expect(readableUrl("http://h/%E0%A4%A")).toBe("http://h/%E0%A4%A");
  });
});
