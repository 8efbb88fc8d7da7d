import { describe, expect, it } from "vitest";
import { entryHeaders, serverAddress, timingsOf } from "../../src/browser/logs/network-detail.ts";
import { NetworkTracker, type NetworkData } from "../../src/browser/logs/network.ts";
import { HarBuilder, buildHar } from "../../src/services/session-exports/har.ts";
import type { SessionLogEntryView } from "../../src/services/session-logs/log-entries.ts";

/** Issue 47: what a network entry keeps for the HAR, and how the HAR is made of the log. */
describe("network entries for a HAR", () => {
  it("keep header names, mask credential values by the logs' rule, and cut the rest", () => {
    const pairs = entryHeaders({
      Authorization: "Bearer s3cret",
      "X-Api-Key": "k3y",
      "Set-Cookie": "a=1\nb=2",
      Referer: "https://h/p?token=t0k&page=2",
      Accept: "text/html",
      "X-Long": "x".repeat(5000),
    });
    expect(pairs.slice(0, 6)).toEqual([
      ["Authorization", "[redacted]"],
      ["X-Api-Key", "[redacted]"],
      ["Set-Cookie", "[redacted]"],
      ["Set-Cookie", "[redacted]"],
      ["Referer", "https://h/p?token=[redacted]&page=2"],
      ["Accept", "text/html"],
    ]);
    expect(pairs[6]![1].length).toBeLessThanOrEqual(2048);
    expect(entryHeaders(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`h${i}`, "v"])))).toHaveLength(64);
    expect(serverAddress("[::1]")).toBe("::1");
  });

  it("split a request's time into HAR's phases that add up to it", () => {
    const t = timingsOf(
      {
        requestTime: 10.002,
        dnsStart: 1,
        dnsEnd: 4,
        connectStart: 4,
        connectEnd: 14,
        sslStart: 8,
        sslEnd: 14,
        sendStart: 15,
        sendEnd: 16,
        receiveHeadersEnd: 40,
      },
      10,
      60,
    );
    // Queued 2 ms, 1 ms before the lookup, 1 ms between connected and sending: blocked 4.
    expect(t).toEqual({ blocked: 4, dns: 3, connect: 10, ssl: 6, send: 1, wait: 24, receive: 18 });
    expect(t.blocked + t.dns + t.connect + t.send + t.wait + t.receive).toBe(60);
    // A reused connection: no dns, no connect.
    expect(
      timingsOf(
        {
          requestTime: 10,
          dnsStart: -1,
          dnsEnd: -1,
          connectStart: -1,
          connectEnd: -1,
          sslStart: -1,
          sslEnd: -1,
          sendStart: 0.5,
          sendEnd: 0.6,
          receiveHeadersEnd: 5,
        },
        10,
        8,
      ),
    ).toMatchObject({ dns: -1, connect: -1, blocked: 0.5 });
    // No timing (a cache hit): all wait.
    expect(timingsOf(undefined, 10, 7)).toEqual({ blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 7, receive: 0 });
  });
});

describe("a HAR from a session's log", () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 7, 0, 0, ms));
  function network(events: (n: NetworkTracker) => void): NetworkData[] {
    const out: NetworkData[] = [];
    events(new NetworkTracker((d) => out.push(d)));
    return out;
  }

  it("puts each request in its document's page (redirect hops too), in the order they started, and reads older entries", () => {
    const wall = at(0).getTime() / 1000;
    const hops = network((n) => {
      n.willBeSent({
        requestId: "1",
        loaderId: "L2",
        frameId: "F",
        request: { url: "http://h/old", method: "GET" },
        type: "Document",
        timestamp: 1,
        wallTime: wall + 0.1,
      });
      n.willBeSent({
        requestId: "1",
        loaderId: "L2",
        frameId: "F",
        request: { url: "http://h/new", method: "GET" },
        type: "Document",
        timestamp: 1.05,
        wallTime: wall + 0.15,
        redirectResponse: { status: 301, statusText: "Moved", mimeType: "", headers: { Location: "/new" } },
      });
      n.responseReceived({
        requestId: "1",
        response: { status: 200, statusText: "OK", mimeType: "text/html", protocol: "http/1.1", remoteIPAddress: "127.0.0.1" },
      });
      n.finished({ requestId: "1", timestamp: 1.2, encodedDataLength: 500 });
    });
    const entries: SessionLogEntryView[] = [
      { seq: 1, type: "navigation", at: at(10), data: { url: "about:blank", main_frame: true, same_document: false, loader_id: "L1" } },
      ...hops.map((data, i) => ({ seq: 2 + i, type: "network", at: at(200 + i), data: { ...data, page_url: "about:blank" } })),
      { seq: 4, type: "navigation", at: at(180), data: { url: "http://h/new", main_frame: true, same_document: false, loader_id: "L2" } },
      // Logged before entries kept headers and phases: still an entry, all wait, in the page at its URL.
      {
        seq: 5,
        type: "network",
        at: at(400),
        data: {
          method: "GET",
          url: "http://h/img.png",
          status: 404,
          mime_type: "text/plain",
          started_at: at(300).toISOString(),
          duration_ms: 12,
          page_url: "http://h/new",
        },
      },
      { seq: 6, type: "logs.truncated", at: at(500), data: { reason: "max_bytes" } },
    ];
    const builder = new HarBuilder();
    builder.add(entries.slice(0, 3));
    builder.add(entries.slice(3));
    const har = builder.finish();
    expect(har.log.pages).toEqual([{ id: "page_2", startedDateTime: at(100).toISOString(), title: "http://h/new", pageTimings: {} }]);
    expect(har.log.entries.map((e) => [e.request.url, e.response.status, e.response.redirectURL, e.pageref])).toEqual([
      ["http://h/old", 301, "http://h/new", "page_2"],
      ["http://h/new", 200, "", "page_2"],
      ["http://h/img.png", 404, "", "page_2"],
    ]);
    expect(har.log.entries[2]!.timings).toEqual({ blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 12, receive: 0 });
    expect(har.log.entries[1]).toMatchObject({
      serverIPAddress: "127.0.0.1",
      request: { httpVersion: "HTTP/1.1" },
      response: { content: { size: 500, mimeType: "text/html" } },
    });
    expect(har.log.entries[0]!.response.headers).toEqual([{ name: "Location", value: "/new" }]);
    expect(har.log.comment).toMatch(/bounds/);
    expect(buildHar([]).log).toEqual({ version: "1.2", creator: { name: "Vessel", version: expect.any(String) }, pages: [], entries: [] });
  });
});
