import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";
import { curatedMethods, neverAllowed } from "../../src/browser/cdp/policy/allowlist.ts";
import { allowedMethods, downloadBehaviourContext, judgeCommand } from "../../src/browser/cdp/policy/policy.ts";
import { recordedMethods } from "../../src/browser/cdp/policy/recorded-methods.ts";
import { hostAddressIn, MAX_DEPTH, MAX_EMBEDDED_CHARS, MAX_EMBEDDED_LEVELS } from "../../src/browser/cdp/policy/url-scan.ts";

const downloads = "/var/lib/vessel/sessions/S1/downloads";
const ctx = { downloads };
const judge = (method: string, params: unknown = {}) => judgeCommand(method, params, ctx);
const kind = (method: string, params: unknown = {}) => judge(method, params).kind;
const navigate = (url: string) => judge("Page.navigate", { url });
const curated = Object.entries(curatedMethods).flatMap(([domain, names]) => names.map((n) => `${domain}.${n}`));
/** Parameters that satisfy a method's own rule, for methods that have one. */
const valid: Record<string, Record<string, unknown>> = {
  "Target.attachToTarget": { targetId: "T1", flatten: true },
  "Target.setAutoAttach": { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
  "Browser.setDownloadBehavior": { behavior: "deny" },
  "Page.setDownloadBehavior": { behavior: "deny" },
};

describe("the method allow-list", () => {
  test.each([...recordedMethods, ...curated])("%s passes", (method) => {
    expect(judge(method, valid[method] ?? {})).toEqual({ kind: "pass" });
  });

  test.each([
    "Target.exposeDevToolsProtocol",
    "Target.sendMessageToTarget",
    "Target.autoAttachRelated",
    "Target.openDevTools",
    "SystemInfo.getInfo",
    "SystemInfo.getProcessInfo",
    "Browser.crash",
    "Browser.crashGpuProcess",
    "Browser.executeBrowserCommand",
    "Browser.getBrowserCommandLine",
    "Extensions.loadUnpacked",
    "Network.loadNetworkResource",
    "PWA.install",
    "Page.crash",
    "Memory.getBrowserSamplingProfile",
    "Tethering.bind",
    "DOM.getFileInfo",
    "Storage.overrideQuotaForOrigin",
    "Foo.bar",
    "",
    "runtime.evaluate",
    "Runtime.evaluate ",
    "Runtime.Evaluate",
    "constructor",
    "__proto__",
  ])("refuses %j, whatever its parameters", (method) => {
    expect(judge(method)).toEqual({ kind: "refuse", reason: `${method} is not available through Vessel` });
    expect(kind(method, { url: "https://example.com/" })).toBe("refuse");
  });

  test("never lists a never-allowed method, recorded or curated, and every curated method exists in the protocol", () => {
    const require = createRequire(import.meta.url);
    const known = new Set<string>();
    for (const file of ["browser_protocol.json", "js_protocol.json"]) {
      const protocol = require(`devtools-protocol/json/${file}`) as { domains: Array<{ domain: string; commands?: Array<{ name: string }> }> };
      for (const d of protocol.domains) for (const c of d.commands ?? []) known.add(`${d.domain}.${c.name}`);
    }
    expect([...recordedMethods, ...curated].filter((m) => m in neverAllowed)).toEqual([]);
    expect(curated.filter((m) => !known.has(m))).toEqual([]);
    expect(allowedMethods.size).toBe(new Set([...recordedMethods, ...curated]).size);
  });
});

describe("targets and browser contexts", () => {
  test.each(["Target.attachToTarget", "Target.setAutoAttach"])("%s: flat sessions only", (method) => {
    for (const flatten of [false, undefined, "true", 1, null]) {
      expect(judge(method, { targetId: "T1", autoAttach: true, flatten })).toEqual({
        kind: "refuse",
        reason: "only flat sessions (flatten: true) are available",
      });
    }
    expect(kind(method, undefined)).toBe("refuse");
    expect(kind(method, { targetId: "T1", autoAttach: true, waitForDebuggerOnStart: true, flatten: true })).toBe("pass");
  });

  test("turning auto-attach off needs no flatten (it attaches nothing)", () => {
    expect(kind("Target.setAutoAttach", { autoAttach: false, waitForDebuggerOnStart: false })).toBe("pass");
  });

  test.each([
    [{ proxyServer: "direct://" }],
    [{ proxyServer: "http://10.0.0.1:3128" }],
    [{ proxyServer: "" }],
    [{ proxyBypassList: "<-loopback>" }],
    [{ originsWithUniversalNetworkAccess: ["https://example.com"] }],
  ])("refuses a browser context with %j", (params) => {
    expect(kind("Target.createBrowserContext", params)).toBe("refuse");
  });

  test("lets plain browser contexts through (Playwright's and Puppeteer's)", () => {
    expect(kind("Target.createBrowserContext", { disposeOnDetach: true })).toBe("pass");
    expect(kind("Target.createBrowserContext", {})).toBe("pass");
  });

  test("issue 17, route 1: a non-flat attach, then a file: navigation inside sendMessageToTarget's string", () => {
    expect(kind("Target.attachToTarget", { targetId: "T1", flatten: false })).toBe("refuse");
    const message = JSON.stringify({ id: 1, method: "Page.navigate", params: { url: "file:///etc/passwd" } });
    expect(kind("Target.sendMessageToTarget", { sessionId: "S", message })).toBe("refuse");
    // The string would be caught even if the method were allowed.
    expect(hostAddressIn({ sessionId: "S", message })).toMatch(/^file: /);
  });
});

describe("host addresses, in any string at any depth", () => {
  test.each([
    "file:///etc/passwd",
    "FILE:///etc/passwd",
    "File://localhost/etc/passwd",
    " file:///etc/passwd",
    "\u0000\u001f file:///etc/passwd",
    "fi\tle:///etc/passwd",
    "f\ni\rle:///etc/passwd",
    "file\t:///etc/passwd",
    "file:/etc/passwd",
    "file:etc/passwd",
    "\ufefffile:///etc/passwd",
    "ｆｉｌｅ:///etc/passwd",
    "fｉｌｅ:///etc/passwd",
    "blob:ｆｉｌｅ:///etc/passwd",
    "ｂｌｏｂ:ｆｉｌｅ:///etc/passwd",
    "filesystem:file:///temporary/x",
    "filesystem:https://example.com/temporary/x",
    "blob:file:///0c7d-11",
    "BLOB:\tFILE:///x",
    "blob:blob:file:///x",
    "blob:chrome://version",
    "chrome://version",
    "CHROME://settings",
    "chrome:version",
    "chrome-extension://abcdefghijklmnop/x.html",
    "chrome-untrusted://terminal/",
    "chrome-search://local-ntp/",
    "chrome-error://chromewebdata/",
    "chrome-devtools://devtools/",
    "devtools://devtools/bundled/inspector.html",
    "view-source:https://example.com/",
    "view-source:file:///etc/passwd",
    "isolated-app://abc/",
    "externalfile:drive/x",
    "about:version",
    "ABOUT:config",
    "about:",
    "about://blank",
    "about:blank/../version",
    "about:blankx",
    "about:srcdoc2",
    "about:blank x",
  ])("refuses %j", (url) => {
    const verdict = navigate(url);
    expect(verdict.kind).toBe("refuse");
    expect(JSON.stringify(verdict)).not.toContain("passwd"); // the reason names the scheme, never the address
  });

  test.each([
    "about:blank",
    "ABOUT:BLANK",
    " about:blank\n",
    "about:blank#frag",
    "about:blank?x=1",
    "about:srcdoc",
    "https://example.com/file:///etc/passwd",
    "http://example.com/?next=chrome://version",
    "data:text/html,<iframe src=file:///etc/passwd>",
    "javascript:void(location='file:///etc/passwd')",
    "%66ile:///etc/passwd",
    "f%69le:///etc/passwd",
    "blob:https://example.com/0c7d-11",
    "blob:null/0c7d-11",
    "wss://example.com/socket",
  ])("lets %j through (not a host address to Chromium's URL parser)", (url) => {
    expect(navigate(url)).toEqual({ kind: "pass" });
  });

  test.each([
    "a:hover",
    "div:nth-child(2) > a:not(.x)",
    "input:not([type=file])",
    'internal:role=button[name="Go"i]',
    "text=file:",
    "files: 3",
    "12:30",
    "localhost:8080",
    "C:\\Windows",
    "content: 'file:'",
    "Note: file:///etc/passwd is not a URL here",
  ])("lets ordinary strings with colons through: %j", (value) => {
    expect(kind("Runtime.callFunctionOn", { functionDeclaration: "(s) => s", arguments: [{ value }] })).toBe("pass");
    expect(kind("DOM.querySelector", { nodeId: 1, selector: value })).toBe("pass");
  });

  test("script that merely contains file: text passes, at any size", () => {
    expect(kind("Runtime.evaluate", { expression: "fetch('file:///etc/passwd')" })).toBe("pass");
    expect(kind("Runtime.evaluate", { expression: `${"x;".repeat(500_000)}'file:///etc/passwd'` })).toBe("pass");
  });

  test.each([
    ["a nested parameter", { a: { b: [{ c: ["https://x/", "file:///etc/passwd"] }] } }],
    ["an object key", { headers: { "file:///etc/passwd": "1" } }],
    ["a Fetch response header", { requestId: "1", responseCode: 302, responseHeaders: [{ name: "Location", value: "file:///etc/passwd" }] }],
    ["a dropped uri-list", { type: "drop", x: 1, y: 1, data: { items: [{ mimeType: "text/uri-list", data: "file:///etc/passwd" }], dragOperationsMask: 1 } }],
    ["a __proto__ key", JSON.parse('{"__proto__":{"url":"file:///etc/passwd"}}') as unknown],
    ["a JSON escape", JSON.parse('{"url":"\\u0066ile:///etc/passwd"}') as unknown],
    ["a deep one", JSON.parse(`${"[".repeat(250)}"chrome://version"${"]".repeat(250)}`) as unknown],
  ])("finds a host address in %s", (_name, params) => {
    expect(hostAddressIn(params)).toEqual(expect.any(String));
    expect(kind("Fetch.fulfillRequest", params)).toBe("refuse");
  });

  test("reads JSON carried in strings, nested, and refuses past the nesting limit", () => {
    const inner = JSON.stringify({ id: 1, method: "Target.createTarget", params: { url: "file:///etc/passwd" } });
    const call = (value: string) => kind("Runtime.callFunctionOn", { functionDeclaration: "(s) => s", arguments: [{ value }] });
    expect(call(inner)).toBe("refuse");
    expect(call(`  ${JSON.stringify([inner])}\n`)).toBe("refuse"); // JSON in a string in JSON in a string
    expect(call(JSON.stringify({ id: 1, method: "Page.navigate", params: { url: "https://example.com/" } }))).toBe("pass");
    expect(call("{ let x = 'file:///etc/passwd'; }")).toBe("pass"); // a script block, not JSON
    let wrapped = JSON.stringify(["https://example.com/"]);
    for (let i = 1; i < MAX_EMBEDDED_LEVELS; i++) wrapped = JSON.stringify([wrapped]);
    expect(call(wrapped)).toBe("pass");
    expect(judge("Runtime.callFunctionOn", { arguments: [{ value: JSON.stringify([wrapped]) }] })).toEqual({
      kind: "refuse",
      reason: expect.stringMatching(/nested in strings/),
    });
  });

  test("refuses past Chromium's own nesting limit, counted through JSON in strings too", () => {
    const nested = (n: number) => JSON.parse(`${"[".repeat(n)}${"]".repeat(n)}`) as unknown;
    expect(hostAddressIn({ x: nested(MAX_DEPTH - 1) })).toBeNull();
    expect(hostAddressIn({ x: nested(MAX_DEPTH) })).toMatch(/nested more than/);
    const inner = (n: number) => JSON.stringify(`${"[".repeat(n)}${"]".repeat(n)}`);
    expect(hostAddressIn({ x: JSON.parse(`${"[".repeat(MAX_DEPTH - 11)}${inner(10)}${"]".repeat(MAX_DEPTH - 11)}`) })).toBeNull();
    expect(hostAddressIn({ x: JSON.parse(`${"[".repeat(MAX_DEPTH - 11)}${inner(11)}${"]".repeat(MAX_DEPTH - 11)}`) })).toMatch(/nested more than/);
  });

  test("bounds the JSON it parses out of strings", () => {
    const big = `[${"0,".repeat(MAX_EMBEDDED_CHARS / 2)}0]`;
    expect(hostAddressIn({ value: big })).toMatch(/MiB of JSON inside strings/);
    const half = `[${"0,".repeat(MAX_EMBEDDED_CHARS / 8)}0]`;
    expect(hostAddressIn({ a: half, b: half })).toBeNull();
    expect(hostAddressIn({ a: half, b: half, c: half, d: half, e: half })).toMatch(/MiB of JSON inside strings/);
  });
});

describe("host paths: uploads, dropped files and downloads stay in the session folder", () => {
  test.each([
    [["/etc/passwd"]],
    [[`${downloads}/../../S2/downloads/x`]],
    [[`${downloads}-evil/x`]],
    [[`${downloads}/ok.txt`, "/etc/passwd"]],
    [["upload.txt"]],
    [["file:///etc/passwd"]],
    [[`${downloads}/x\u0000`]],
    [`${downloads}/x`],
    [[42]],
    [null],
  ])("refuses files %j", (files) => {
    expect(kind("DOM.setFileInputFiles", { backendNodeId: 1, files })).toBe("refuse");
    expect(kind("Input.dispatchDragEvent", { type: "drop", x: 1, y: 1, data: { items: [], files, dragOperationsMask: 1 } })).toBe("refuse");
  });

  test("says why", () => {
    expect(judge("DOM.setFileInputFiles", { backendNodeId: 1, files: ["/etc/passwd"] })).toEqual({
      kind: "refuse",
      reason: "uploads may only come from the session's own folder",
    });
  });

  test("lets the session folder's own files through", () => {
    const files = [`${downloads}/upload.txt`, `${downloads}/sub/../report.pdf`, downloads];
    expect(kind("DOM.setFileInputFiles", { backendNodeId: 1, files })).toBe("pass");
    expect(kind("DOM.setFileInputFiles", { backendNodeId: 1, files: [] })).toBe("pass");
    expect(kind("Input.dispatchDragEvent", { type: "drop", x: 1, y: 1, data: { items: [], files, dragOperationsMask: 1 } })).toBe("pass");
    expect(
      kind("Input.dispatchDragEvent", { type: "dragEnter", x: 1, y: 1, data: { items: [{ mimeType: "text/plain", data: "hi" }], dragOperationsMask: 1 } }),
    ).toBe("pass");
  });

  test.each(["Browser.setDownloadBehavior", "Page.setDownloadBehavior"])("%s keeps downloads in the session folder", (method) => {
    expect(kind(method, { behavior: "allow", downloadPath: `${downloads}/sub` })).toBe("pass");
    expect(kind(method, { behavior: "allowAndName", downloadPath: downloads, eventsEnabled: true })).toBe("pass");
    expect(kind(method, { behavior: "deny" })).toBe("pass");
    for (const downloadPath of ["/etc", `${downloads}/../../escape`, `${downloads}-evil`, "relative", undefined]) {
      expect(kind(method, { behavior: "allow", downloadPath })).toBe("refuse");
      // Playwright's connectOverCDP sets a folder of its own: pointed at the session's, not refused.
      expect(judge(method, { behavior: "allowAndName", browserContextId: "C1", downloadPath, eventsEnabled: true })).toEqual({
        kind: "rewrite",
        params: { behavior: "allowAndName", browserContextId: "C1", downloadPath: downloads, eventsEnabled: true },
      });
    }
    expect(judge(method, { behavior: "default" })).toEqual({ kind: "rewrite", params: { behavior: "allow", downloadPath: downloads } });
    expect(kind(method, { behavior: "sometimes" })).toBe("refuse");
    expect(kind(method, { behavior: "allowAndName", downloadPath: "file:///etc" })).toBe("refuse");
  });

  test("tells which browser context a download behaviour is for", () => {
    expect(downloadBehaviourContext({ method: "Browser.setDownloadBehavior", params: { behavior: "deny", browserContextId: "C1" } })).toBe("C1");
    expect(downloadBehaviourContext({ method: "Page.setDownloadBehavior", params: { behavior: "deny" } })).toBeNull();
    expect(downloadBehaviourContext({ method: "Page.navigate", params: {} })).toBeUndefined();
  });
});

describe("tracing stays the browser's own", () => {
  test.each([[{ tracingBackend: "system" }], [{ perfettoConfig: "CgQIARAB" }], [{ traceConfig: { enableSystrace: true } }]])("refuses %j", (params) => {
    expect(kind("Tracing.start", params)).toBe("refuse");
  });
  test("lets Puppeteer's trace through", () => {
    expect(
      kind("Tracing.start", { transferMode: "ReturnAsStream", traceConfig: { includedCategories: ["devtools.timeline"], excludedCategories: ["*"] } }),
    ).toBe("pass");
  });
});

describe("what the recorded workloads send", () => {
  test.each([
    ["Target.setAutoAttach", { waitForDebuggerOnStart: true, flatten: true, autoAttach: true, filter: [{ type: "page", exclude: true }, {}] }],
    ["Target.createTarget", { url: "about:blank", browserContextId: "C1" }],
    [
      "Runtime.callFunctionOn",
      {
        functionDeclaration: "(u, ...a) => u.evaluate(...a)",
        executionContextId: 3,
        arguments: [{ objectId: "1.4.16" }, { value: 'internal:role=button[name="Go"i]' }],
      },
    ],
    ["Storage.setCookies", { cookies: [{ name: "a", value: "1", url: "http://127.0.0.1:8080", domain: "127.0.0.1", path: "/" }] }],
    ["Page.navigate", { url: "http://127.0.0.1:8080/", frameId: "F1", referrerPolicy: "unsafeUrl" }],
    ["Input.dispatchKeyEvent", { type: "keyDown", key: ":", code: "Semicolon", text: ":", modifiers: 8 }],
  ])("%s passes", (method, params) => {
    expect(kind(method, params)).toBe("pass");
  });
});
