import { describe, expect, it } from "vitest";
import { answerId, CommandLog } from "../../src/browser/cdp/relay/command-log.ts";
import { consoleText, entryUrl, pageError } from "../../src/browser/logs/format.ts";
import { NetworkTracker, type NetworkData } from "../../src/browser/logs/network.ts";
import { safeUrl } from "../../src/logger.ts";
import { isCredentialName, redactText, redactUrl } from "../../src/redaction.ts";

describe("the redaction rule (server log and sessions' logs)", () => {
  it("masks the values of credential query parameters, by name or by a word of it, and nothing else", () => {
    for (const name of [
      "token",
      "code",
      "key",
      "secret",
      "password",
      "passwd",
      "auth",
      "authorization",
      "session",
      "sessionid",
      "sig",
      "signature",
      "access_token",
      "api_key",
      "apikey",
      "jwt",
      "cookie",
      "refresh_token",
      "X-Amz-Signature",
      "X-Amz-Security-Token",
      "apiKey",
      "sessionId",
      "client_secret",
      "PHPSESSID",
      "x-api-key",
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
    for (const name of ["q", "page", "author", "keyword", "ok", "id", "sort", "lang"]) expect(isCredentialName(name), name).toBe(false);
    expect(redactUrl("https://h/p?q=1&token=abc&Password=pw&page=2#frag&token=x")).toBe(
      "https://h/p?q=1&token=[redacted]&Password=[redacted]&page=2#frag&token=[redacted]",
    );
    expect(redactUrl("/cdp?token=a.b.c")).toBe("/cdp?token=[redacted]");
    expect(redactUrl("https://h/p?X-Amz-Signature=ff&X-Amz-Date=1")).toBe("https://h/p?X-Amz-Signature=[redacted]&X-Amz-Date=1");
    // OAuth's implicit flow hands the token over in the fragment.
    expect(redactUrl("https://h/cb#access_token=x&state=s&expires_in=3600")).toBe("https://h/cb#access_token=[redacted]&state=s&expires_in=3600");
    expect(redactUrl("https://h/page#section-2")).toBe("https://h/page#section-2");
    expect(redactUrl("https://h/p?token=&flag")).toBe("https://h/p?token=&flag");
    expect(redactUrl("https://h/p?%74oken=enc")).toBe("https://h/p?%74oken=[redacted]");
    // The logger's safeUrl is the same rule.
    expect(safeUrl("/v1/x?sig=1&api_key=2&x=3")).toBe("/v1/x?sig=[redacted]&api_key=[redacted]&x=3");
  });

  it("finds them in free text too (a stack, a console message)", () => {
    expect(redactText("GET http://h/a?session=s1&ok=1 failed at http://h/app.js?v=2&jwt=e.y.j:3:5")).toBe(
      "GET http://h/a?session=[redacted]&ok=1 failed at http://h/app.js?v=2&jwt=[redacted]",
    );
    expect(redactText("no urls here, a=b")).toBe("no urls here, a=b");
  });
});

describe("session log entries", () => {
  it("word console arguments as DevTools would, printf included, cut and redacted", () => {
    expect(
      consoleText([
        { type: "string", value: "%s has %d items %o" },
        { type: "string", value: "cart" },
        { type: "number", value: 3.7 },
        { type: "object", preview: { properties: [{ name: "a", type: "number", value: "1" }] } },
      ]),
    ).toBe("cart has 3 items {a: 1}");
    expect(
      consoleText([
        { type: "object", subtype: "array", preview: { overflow: true, properties: [{ name: "0", type: "string", value: "x" }] } },
        { type: "undefined" },
        { type: "object", subtype: "null" },
      ]),
    ).toBe('["x", …] undefined null');
    expect(consoleText([{ type: "string", value: "see https://h/?password=hunter2" }])).toBe("see https://h/?password=[redacted]");
    expect(consoleText([{ type: "string", value: "y".repeat(20_000) }]).length).toBe(8 * 1024);
    expect(entryUrl("data:image/png;base64,AAAA")).toBe("data:image/png;base64,…");
    const error = pageError({
      text: "Uncaught",
      lineNumber: 0,
      columnNumber: 4,
      exception: { type: "object", subtype: "error", description: "TypeError: x is undefined\n    at f (https://h/a.js?token=t:1:5)" },
      stackTrace: { callFrames: [{ url: "https://h/a.js?token=t", lineNumber: 0, columnNumber: 4 }] },
    });
    expect(error).toEqual({
      message: "TypeError: x is undefined",
      stack: "TypeError: x is undefined\n    at f (https://h/a.js?token=[redacted])",
      source_url: "https://h/a.js?token=[redacted]",
      line: 1,
      column: 5,
    });
  });

  it("make one network entry per request and per redirect hop, sizes and times, credential header values masked", () => {
    const out: NetworkData[] = [];
    const n = new NetworkTracker((d) => out.push(d));
    const headers = { Authorization: "Bearer secret", Cookie: "a=b" };
    n.willBeSent({
      requestId: "1",
      request: { url: "http://h/start?code=c", method: "POST", postData: "héllo", headers } as never,
      type: "Document",
      timestamp: 10,
      wallTime: 1_700_000_000,
    });
    n.willBeSent({
      requestId: "1",
      request: { url: "http://h/next", method: "GET", headers } as never,
      type: "Document",
      timestamp: 10.05,
      wallTime: 1_700_000_000.05,
      redirectResponse: { status: 302, statusText: "Found", mimeType: "", encodedDataLength: 120 },
    });
    n.responseReceived({ requestId: "1", response: { status: 200, statusText: "OK", mimeType: "text/html", fromDiskCache: true } });
    n.finished({ requestId: "1", timestamp: 10.2, encodedDataLength: 900 });
    n.willBeSent({ requestId: "2", request: { url: "http://h/img", method: "GET" }, type: "Image", timestamp: 11, wallTime: 1_700_000_001 });
    n.failed({ requestId: "2", timestamp: 11.5, errorText: "net::ERR_BLOCKED_BY_CLIENT", blockedReason: "inspector" });
    expect(out).toEqual([
      expect.objectContaining({
        method: "POST",
        url: "http://h/start?code=[redacted]",
        status: 302,
        response_bytes: 120,
        request_bytes: 6,
        duration_ms: 50,
        resource_type: "document",
      }),
      expect.objectContaining({
        method: "GET",
        url: "http://h/next",
        status: 200,
        mime_type: "text/html",
        from_cache: true,
        response_bytes: 900,
        duration_ms: 150,
        failure: null,
      }),
      expect.objectContaining({ url: "http://h/img", status: null, failure: "net::ERR_BLOCKED_BY_CLIENT (blocked: inspector)", duration_ms: 500 }),
    ]);
    expect(JSON.stringify(out)).not.toMatch(/secret|a=b|héllo/);
  });

  it("time a client's commands from its answers' first bytes, and log refusals and the unanswered", () => {
    expect(answerId(Buffer.from('{"id":123,"result":{}}'))).toBe(123);
    expect(answerId(Buffer.from('{"id":7,"result":{},"sessionId":"AB"}'))).toBe(7);
    expect(answerId(Buffer.from('{"method":"Page.loadEventFired","params":{}}'))).toBe(-1);
    expect(answerId(Buffer.from('{"id":x}'))).toBe(-1);
    const logged: Array<[string, number | null, boolean]> = [];
    const log = new CommandLog((method, _at, ms, refused) => logged.push([method, ms, refused]));
    log.sent(1, "Page.navigate");
    log.sent(2, "Runtime.evaluate");
    log.received(Buffer.from('{"method":"Page.frameNavigated","params":{"id":1}}'));
    log.received(Buffer.from('{"id":2,"result":{"result":{"type":"number","value":2}}}'));
    log.answeredHere("Browser.crash", true);
    log.close();
    expect(logged.map(([m, ms, r]) => [m, ms === null ? null : ms >= 0, r])).toEqual([
      ["Runtime.evaluate", true, false],
      ["Browser.crash", true, true],
      ["Page.navigate", null, false],
    ]);
  });

  it("log a burst of answers to one method as one entry with its count, total and longest time", () => {
    const logged: Array<[string, number | null, { count: number; totalMs: number; maxMs: number } | undefined]> = [];
    const log = new CommandLog((method, _at, ms, _refused, run) => logged.push([method, ms, run]));
    for (let id = 1; id <= 500; id++) log.sent(id, "Runtime.evaluate");
    for (let id = 1; id <= 500; id++) log.received(Buffer.from(`{"id":${id},"result":{}}`));
    log.sent(501, "Page.navigate");
    log.received(Buffer.from('{"id":501,"result":{}}'));
    log.close();
    // The first answer at once (a command just before the end is never held back), the rest counted.
    expect(logged.map(([m, , run]) => [m, run?.count ?? 1])).toEqual([
      ["Runtime.evaluate", 1],
      ["Runtime.evaluate", 499],
      ["Page.navigate", 1],
    ]);
    const [, mean, run] = logged[1]!;
    expect(run!.maxMs).toBeGreaterThanOrEqual(mean!);
    expect(run!.totalMs).toBeGreaterThanOrEqual(run!.maxMs);
  });
});
