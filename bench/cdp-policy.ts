// What the CDP policy (src/browser/cdp/policy/policy.ts) costs per client command, after JSON.parse: the
// multiplexer parses every message anyway, then calls judgeCommand on it. Reported in ns per judge
// (best of several rounds, each a tight loop over the same parsed message), beside the cost of the
// message's JSON.parse for scale. Typical messages; a script the size of the largest message the
// recorded workloads send (Playwright injects ~340 kB) and a 1 MB Runtime.evaluate; hostile ones: a
// refusal, JSON nested in a string, and 1 MB of valid JSON inside a string (the most a message can
// make the policy parse: its judge time is mostly the JSON.parse of that string).
// Never part of the tests (no timing thresholds there).
//
//   npm run bench:cdp-policy          BENCH_CDP_POLICY_MS=300 (time per round)  BENCH_CDP_POLICY_ROUNDS=5
import { judgeCommand, type PolicyContext } from "../src/browser/cdp/policy/policy.ts";

const ctx: PolicyContext = { downloads: "/var/lib/vessel/sessions/01JABCDEF/downloads" };
const sessionId = "5C0B1E7A3F0D4E2B9A1C8D7E6F5A4B3C";
const roundMs = Number(process.env.BENCH_CDP_POLICY_MS ?? 300);
const rounds = Number(process.env.BENCH_CDP_POLICY_ROUNDS ?? 5);

const script = `(() => { const injected = ${JSON.stringify("x".repeat(64))}; return injected.length; })()`;
const oneMegabyte = `/* 1 MB */ ${"window.__vessel = (window.__vessel || 0) + 1;\n".repeat(Math.ceil(1_048_576 / 46))}`.slice(0, 1_048_576);
const jsonInString = JSON.stringify({ rows: Array.from({ length: 12_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ["a", "b"] })) });

const messages: Array<[string, string]> = [
  ["Runtime.evaluate 1+1", JSON.stringify({ id: 5, method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true }, sessionId })],
  ["Page.navigate https", JSON.stringify({ id: 6, method: "Page.navigate", params: { url: "https://example.com/some/path?q=1#top" }, sessionId })],
  [
    "Input.dispatchMouseEvent",
    JSON.stringify({
      id: 7,
      method: "Input.dispatchMouseEvent",
      params: { type: "mousePressed", x: 120.5, y: 48, button: "left", buttons: 1, clickCount: 1, modifiers: 0 },
      sessionId,
    }),
  ],
  [
    "Runtime.callFunctionOn (Playwright)",
    JSON.stringify({
      id: 8,
      method: "Runtime.callFunctionOn",
      sessionId,
      params: {
        functionDeclaration: "(utilityScript, ...args) => utilityScript.evaluate(...args)",
        executionContextId: 3,
        returnByValue: true,
        awaitPromise: true,
        arguments: [{ objectId: "4434684736523360124.4.16" }, { value: true }, { value: 'internal:role=button[name="Go"i]' }, { value: { v: "undefined" } }],
      },
    }),
  ],
  [
    "Target.setAutoAttach (rule)",
    JSON.stringify({
      id: 9,
      method: "Target.setAutoAttach",
      params: { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: "page", exclude: true }, {}] },
    }),
  ],
  [
    "DOM.setFileInputFiles (path rule)",
    JSON.stringify({ id: 10, method: "DOM.setFileInputFiles", params: { files: [`${ctx.downloads}/upload.txt`], backendNodeId: 37 }, sessionId }),
  ],
  [
    "Runtime.evaluate 430 kB script",
    JSON.stringify({ id: 11, method: "Runtime.evaluate", params: { expression: script.repeat(3500), returnByValue: true }, sessionId }),
  ],
  ["Runtime.evaluate 1 MB", JSON.stringify({ id: 12, method: "Runtime.evaluate", params: { expression: oneMegabyte, returnByValue: true }, sessionId })],
  ["refused: Page.navigate file:", JSON.stringify({ id: 13, method: "Page.navigate", params: { url: "\tFI\nLE:///etc/passwd" }, sessionId })],
  ["refused: method off the list", JSON.stringify({ id: 14, method: "SystemInfo.getInfo" })],
  [
    "JSON in a string (sendMessageToTarget-like)",
    JSON.stringify({
      id: 15,
      method: "Runtime.callFunctionOn",
      sessionId,
      params: {
        functionDeclaration: "(s) => JSON.parse(s)",
        arguments: [{ value: JSON.stringify({ id: 1, method: "Page.navigate", params: { url: "https://example.com/" } }) }],
      },
    }),
  ],
  [
    "1 MB of valid JSON in a string",
    JSON.stringify({
      id: 16,
      method: "Runtime.callFunctionOn",
      sessionId,
      params: { functionDeclaration: "(s) => JSON.parse(s).rows.length", arguments: [{ value: jsonInString }] },
    }),
  ],
];

/** Best time per call of `fn` over `rounds` rounds of `roundMs` each, in ns. */
function measure(fn: () => unknown): number {
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < rounds + 1; round++) {
    let calls = 0;
    let batch = 1;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    while (elapsed < BigInt(roundMs) * 1_000_000n) {
      for (let i = 0; i < batch; i++) if (fn()) sink++;
      calls += batch;
      batch = Math.min(batch * 2, 1 << 16);
      elapsed = process.hrtime.bigint() - start;
    }
    if (round > 0) best = Math.min(best, Number(elapsed) / calls); // round 0 warms up
  }
  if (sink < 0) console.log(sink);
  return best;
}

const fmt = (ns: number) => (ns < 10_000 ? `${ns.toFixed(0)} ns` : ns < 10_000_000 ? `${(ns / 1000).toFixed(1)} µs` : `${(ns / 1e6).toFixed(2)} ms`);

console.log(`judgeCommand per message (best of ${rounds} rounds × ${roundMs} ms), after JSON.parse; the message's JSON.parse for scale\n`);
console.log(`${"message".padEnd(46)}${"bytes".padStart(10)}  ${"verdict".padEnd(8)}${"judge".padStart(11)}${"JSON.parse".padStart(13)}`);
for (const [name, text] of messages) {
  const message = JSON.parse(text) as { method: string; params?: unknown };
  const verdict = judgeCommand(message.method, message.params, ctx);
  const judge = measure(() => judgeCommand(message.method, message.params, ctx));
  const parse = measure(() => JSON.parse(text));
  console.log(
    `${name.padEnd(46)}${String(Buffer.byteLength(text)).padStart(10)}  ${verdict.kind.padEnd(8)}${fmt(judge).padStart(11)}${fmt(parse).padStart(13)}`,
  );
}
