import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/kernel/pagination.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import {
  closeCodeIn,
  headerOf,
  mutate,
  mutatedFrames,
  percentEncode,
  rawConversation,
  Rng,
  websocketHeaders,
  wsFrame,
  type RawAnswer,
} from "../support/fuzz.ts";

// Issue 18: every parser on the way in is total. Thousands of malformed requests, generated from a
// fixed seed, go to a running server over raw TCP: request lines, headers, paths, REST JSON bodies,
// cursors, API keys, connect tokens (JWTs), dashboard cookies and tokens, GraphQL over HTTP, WebSocket
// handshakes for every endpoint, and WebSocket frames on the GraphQL and live-view sockets. Each
// must be answered 4xx (or 2xx when the mutation left it valid), or closed with a WebSocket close
// code, never 5xx, never a hang; an exception escaping anywhere fails the run (vitest reports
// it), and `/healthz` must answer after every batch. No timing is asserted.

const SEED = 0x18f00d;
const BATCH = 100;
const CONCURRENCY = 16;

let t: TestApp;
let port: number;
let seeded: Seeded;
let cdpToken: string;
let liveToken: string;
let accessToken: string;

beforeAll(async () => {
  // `users: undefined`: the dashboard's real sign-in (cookies, access tokens), not the tests' stand-in.
  t = await startTestApp({ users: undefined });
  port = Number(new URL(t.url).port);
  seeded = await seedWorkspace(t, { rateLimitPerMinute: 1_000_000 });
  // Real credentials to mutate, so the mutations stay near-valid and reach deep into each parser.
  const expiresAt = new Date(Date.now() + 600_000);
  const sessionId = "ses_01JZZZZZZZZZZZZZZZZZZZZZZZ";
  cdpToken = await t.app.deps.tokens.mint({ sessionId, workspaceId: seeded.workspace.id, audience: "cdp", expiresAt });
  liveToken = await t.app.deps.tokens.mint({ sessionId, workspaceId: seeded.workspace.id, audience: "live-view", expiresAt });
  accessToken = (await t.app.deps.dashboard!.accessTokens.mint("usr_01JZZZZZZZZZZZZZZZZZZZZZZZ", "fam_01JZZZZZZZZZZZZZZZZZZZZZZZ")).token;
});
afterAll(async () => t?.stop());

/** One generated case: what is written, in steps (see rawConversation). */
type Case = { name: string; steps: Array<{ send: Buffer; after?: string }> };
const once = (name: string, request: Buffer): Case => ({ name, steps: [{ send: request }] });
const paths = [
  "/healthz",
  "/readyz",
  "/v1/health",
  "/v1/sessions",
  "/v1/sessions?limit=5",
  "/v1/sessions/ses_01ABCDEF",
  "/v1/sessions/ses_01ABCDEF/events",
  "/v1/sessions/ses_01ABCDEF/downloads/dl_1",
  "/api/v1/profiles",
  "/v1/profiles/prf_1/storage-state",
  "/v1/dashboard/ws/default/api-keys",
  "/errors/malformed-json",
  "/openapi.json",
  "/.well-known/jwks.json",
  "/metrics",
  "/dashboard/sessions/x",
  "/dashboard/assets/app.js",
  "/live-view",
  "/live-view/assets/viewer.js",
  "/",
  "/graphql?query=%7B__typename%7D",
  "/internal/v1/sessions",
  "/cdp/json/version",
  "/cdp/json/list",
  "http://127.0.0.1/v1/health",
  "https://vessel.example/healthz",
];
const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "G\u00c9T", "get", ""];

const utf8 = (s: string) => Buffer.from(s, "utf8");
const join = (line: string, headers: string[], body = "") => Buffer.concat([utf8(`${line}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n`), utf8(body)]);
const maybe = (rng: Rng, s: string, p = 0.6) => (rng.chance(p) ? mutate(rng, s) : s);

function requestLineCase(rng: Rng): Case {
  const method = maybe(rng, rng.pick(methods), 0.2);
  const target = (rng.chance(0.1) ? rng.pick(["http://[::1", "http://x:99999", "//x:99999", "*", "http://"]) : "") + maybe(rng, rng.pick(paths), 0.8);
  const version = maybe(rng, rng.pick(["HTTP/1.1", "HTTP/1.0"]), 0.15);
  const line = `${method} ${target} ${version}`;
  return once(`request line ${JSON.stringify(line)}`, join(line, ["Host: vessel.test", "Connection: close"]));
}

function headerCase(rng: Rng): Case {
  const pool = [
    "Host: vessel.test",
    `Authorization: Bearer ${seeded.key}`,
    "Content-Type: application/json",
    "Content-Length: 0",
    "Transfer-Encoding: chunked",
    "X-Request-Id: 01JZ-client",
    "X-Forwarded-For: 203.0.113.9, 10.0.0.1",
    'Forwarded: for="[2001:db8::1]:443";proto=https',
    "Origin: http://evil.example",
    "Accept: text/html",
    "Accept-Encoding: gzip",
    "Range: bytes=0-1",
    "If-None-Match: *",
    "Idempotency-Key: 3f6a2c1e-8b1d-4c7a-9e2f-1a2b3c4d5e6f",
    `Cookie: vs_at=${accessToken}; vs_rt=abc`,
    "Expect: 100-continue",
    "Content-Encoding: gzip",
    "Sec-Fetch-Site: cross-site",
  ];
  const headers = Array.from({ length: 1 + rng.int(6) }, () => maybe(rng, rng.pick(pool), 0.7));
  if (rng.chance(0.05)) headers.push(`X-Big: ${"b".repeat(20_000)}`);
  const line = `${rng.pick(["GET", "POST", "PATCH"])} ${rng.pick(paths)} HTTP/1.1`;
  return once(`headers ${JSON.stringify(headers).slice(0, 300)} on ${line}`, join(line, [...headers, "Connection: close"]));
}

const bodies = [
  { path: "/v1/sessions", method: "POST", body: '{"region":"us-east1","timeout_minutes":5,"live_view":{"interactive":true,"instructions":"Sign in"}}' },
  { path: "/v1/sessions/ses_01JZZZZZZZZZZZZZZZZZZZZZZZ", method: "PATCH", body: '{"status":"REQUEST_RELEASE"}' },
  { path: "/v1/profiles/prf_01JZZZZZZZZZZZZZZZZZZZZZZZ", method: "PATCH", body: '{"label":"shop login"}' },
  {
    path: "/v1/profiles",
    method: "POST",
    body: '{"label":"x","storage_state":{"cookies":[{"name":"a","value":"b","domain":"example.com","path":"/","expires":-1,"httpOnly":false,"secure":true,"sameSite":"Lax"}],"origins":[{"origin":"https://example.com","localStorage":[{"name":"k","value":"v"}]}]}}',
  },
  { path: "/v1/sessions/ses_01JZZZZZZZZZZZZZZZZZZZZZZZ:keepalive", method: "POST", body: "{}" },
];

function bodyCase(rng: Rng): Case {
  const target = rng.pick(bodies);
  const body = maybe(rng, target.body, 0.9);
  const length = Buffer.byteLength(body);
  const declared = rng.chance(0.85)
    ? String(length)
    : rng.pick([String(length + 5), String(Math.max(0, length - 3)), "-1", "1e3", "abc", "99999999999999999999"]);
  const type = maybe(
    rng,
    rng.pick(["application/json", "application/json; charset=utf-8", "application/json; charset=latin1", "text/plain", "application/merge-patch+json"]),
    0.2,
  );
  // No Idempotency-Key: a create is refused after its body is read, so a valid body starts no browser.
  const headers = ["Host: vessel.test", `Authorization: Bearer ${seeded.key}`, `Content-Type: ${type}`, `Content-Length: ${declared}`, "Connection: close"];
  return once(
    `${target.method} ${target.path} body ${JSON.stringify(body).slice(0, 300)} (length ${declared}, ${type})`,
    join(`${target.method} ${target.path} HTTP/1.1`, headers, body),
  );
}

function credentialCase(rng: Rng): Case {
  const enc = (s: string) => (rng.chance(0.5) ? percentEncode(s) : s);
  const choices: Array<() => [string, string[]]> = [
    () => [
      `/v1/sessions?limit=${maybe(rng, "5", 0.3)}&cursor=${enc(mutate(rng, encodeCursor("ses_01JZZZZZZZZZZZZZZZZZZZZZZZ")))}`,
      [`Authorization: Bearer ${seeded.key}`],
    ],
    () => [
      `/v1/dashboard/ws/${seeded.workspace.slug}/audit-log?cursor=${enc(mutate(rng, encodeCursor("aud_01JZZZZZZZZZZZZZZZZZZZZZZZ")))}`,
      [`Authorization: Bearer ${seeded.key}`],
    ],
    () => ["/v1/health", [`Authorization: ${maybe(rng, "Bearer", 0.2)} ${mutate(rng, seeded.key)}`]],
    () => [`/cdp/json/version?token=${enc(mutate(rng, cdpToken))}`, []],
    () => ["/cdp/json/list", [`Authorization: Bearer ${mutate(rng, cdpToken)}`]],
    () => [`/?token=${enc(mutate(rng, liveToken))}`, []],
    () => [`/v1/sessions?token=${enc(maybe(rng, cdpToken, 0.3))}`, []],
    () => ["/v1/dashboard/ws/default/api-keys", [`Cookie: ${mutate(rng, `vs_at=${accessToken}; vs_rt=${"r".repeat(43)}`)}`]],
    () => ["/v1/dashboard/ws/default/api-keys", [`Authorization: Bearer ${mutate(rng, accessToken)}`]],
  ];
  const [path, headers] = rng.pick(choices)();
  return once(
    `credential ${JSON.stringify([path, headers]).slice(0, 400)}`,
    join(`GET ${path} HTTP/1.1`, ["Host: vessel.test", ...headers, "Connection: close"]),
  );
}

function graphqlCase(rng: Rng): Case {
  const documents = [
    '{"query":"{ __typename }"}',
    '{"query":"query($id: ID!) { session(id: $id) { id status } }","variables":{"id":"ses_1"}}',
    '{"query":"mutation { createSession(input: {region: \\"us-east1\\"}) { id } }"}',
    '{"query":"subscription { sessionEvents(id: \\"x\\") { type } }","operationName":"x","extensions":{"persistedQuery":{"version":1}}}',
  ];
  const auth = rng.chance(0.5) ? [`Authorization: Bearer ${seeded.key}`] : [`Cookie: vs_at=${mutate(rng, accessToken)}`];
  if (rng.chance(0.3)) {
    const query = percentEncode(maybe(rng, "{ __typename }", 0.8));
    return once(
      `GET /graphql ${query}`,
      join(`GET /graphql?query=${query}&variables=${percentEncode(mutate(rng, '{"a":1}'))} HTTP/1.1`, ["Host: vessel.test", ...auth, "Connection: close"]),
    );
  }
  const body = maybe(rng, rng.pick(documents), 0.9);
  const type = rng.pick([
    "application/json",
    "application/graphql-response+json",
    "application/x-www-form-urlencoded",
    "text/plain",
    "multipart/form-data; boundary=x",
  ]);
  const headers = ["Host: vessel.test", ...auth, `Content-Type: ${type}`, `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"];
  return once(`POST /graphql ${JSON.stringify(body).slice(0, 300)} as ${type}`, join("POST /graphql HTTP/1.1", headers, body));
}

function garbageCase(rng: Rng): Case {
  const bytes = rng.bytes(1 + rng.int(600));
  // Half start like a request, so the parser gets past the first byte.
  return once(`garbage ${bytes.subarray(0, 40).toString("hex")}`, rng.chance(0.5) ? Buffer.concat([utf8("GET /"), bytes]) : bytes);
}

const upgradePaths = ["/cdp", "/cdp/devtools/page/ABCDEF0123", "/live-view/socket", "/graphql", "/nowhere", "/cdp/devtools/page/"];

function upgradeCase(rng: Rng): Case {
  const path = rng.pick(upgradePaths);
  const token = rng.chance(0.5) ? `?token=${percentEncode(maybe(rng, cdpToken, 0.8))}` : rng.chance(0.5) ? `?session=${maybe(rng, "ses_01ABC")}` : "";
  // Now and then an absolute-form target, well-formed or not (`http://[::1` once killed the process).
  const prefix = rng.chance(0.1) ? rng.pick(["http://[::1", "http://127.0.0.1:99999", "http://vessel.test", "//x:99999", "*", "http://[v1.x]"]) : "";
  const target = prefix + maybe(rng, `${path}${token}`, 0.4);
  const handshake = websocketHeaders
    .trimEnd()
    .split("\r\n")
    .map((h) => maybe(rng, h, 0.15));
  const extra = [
    rng.chance(0.3) ? `Origin: ${maybe(rng, t.url, 0.5)}` : "",
    rng.chance(0.2) ? `Sec-WebSocket-Protocol: ${maybe(rng, "graphql-transport-ws", 0.6)}` : "",
    rng.chance(0.1) ? `Sec-WebSocket-Extensions: ${maybe(rng, "permessage-deflate; client_max_window_bits", 0.6)}` : "",
    rng.chance(0.2) ? `Authorization: Bearer ${mutate(rng, cdpToken)}` : "",
  ].filter(Boolean);
  const line = `${maybe(rng, "GET", 0.05)} ${target} HTTP/1.1`;
  // Sometimes frames ride along with the handshake (the `head` an upgrade listener receives).
  const frames = rng.chance(0.3) ? wsFrame({ opcode: 1, payload: utf8(mutate(rng, '{"type":"connection_init","payload":{}}')) }) : Buffer.alloc(0);
  return once(
    `upgrade ${JSON.stringify([line, ...handshake, ...extra]).slice(0, 400)}`,
    Buffer.concat([join(line, ["Host: vessel.test", ...handshake, ...extra]), frames]),
  );
}

/**
 * Frames on the sockets that open without a session: the live view's first message (its token), and
 * graphql-ws after its handshake and an acknowledged `connection_init` (so subscriptions are parsed).
 */
function framesCase(rng: Rng): Case {
  const ws = (path: string, extra: string[]) => join(`GET ${path} HTTP/1.1`, ["Host: vessel.test", websocketHeaders.trimEnd(), `Origin: ${t.url}`, ...extra]);
  const text = (s: string) => wsFrame({ opcode: 1, payload: utf8(s) });
  if (rng.chance(0.4)) {
    const frames = mutatedFrames(rng, [
      `{"t":"auth","token":"${liveToken}","w":800,"h":600,"dpr":1}`,
      '{"t":"mouse","e":"down","x":1,"y":2,"b":0}',
      '{"t":"done"}',
    ]);
    return { name: `live-view frames ${frames.what}`, steps: [{ send: ws("/live-view/socket", []) }, { send: frames.bytes, after: " 101 " }] };
  }
  const frames = mutatedFrames(rng, [
    '{"id":"1","type":"subscribe","payload":{"query":"{ __typename }"}}',
    '{"id":"2","type":"subscribe","payload":{"query":"query($a: Int) { __typename }","variables":{"a":1}}}',
    '{"id":"1","type":"complete"}',
    '{"type":"ping"}',
    '{"type":"connection_init","payload":{}}',
  ]);
  return {
    name: `graphql-ws frames ${frames.what}`,
    steps: [
      { send: ws("/graphql", ["Sec-WebSocket-Protocol: graphql-transport-ws"]) },
      { send: text(`{"type":"connection_init","payload":{"authorization":"Bearer ${seeded.key}"}}`), after: " 101 " },
      { send: frames.bytes, after: "connection_ack" },
    ],
  };
}

/** Close codes that blame the server rather than the input. */
const SERVER_FAULT_CLOSES = new Set([1006, 1011, 4500]);

/** What the answer must be: never 5xx, a problem document for our own 4xx refusals, a proper close code after a 101. */
function judge(c: Case, answer: RawAnswer): string | undefined {
  const statuses = [...answer.bytes.toString("latin1").matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
  const fault = statuses.find((s) => s >= 500);
  if (fault) return `${c.name} → ${fault}: ${answer.bytes.toString("utf8").slice(0, 600)}`;
  if (answer.status === 101) {
    const code = closeCodeIn(answer.body);
    if (code !== undefined && SERVER_FAULT_CLOSES.has(code)) return `${c.name} → closed with ${code}`;
    return undefined;
  }
  if (answer.status !== undefined && answer.status >= 400) {
    const type = headerOf(answer, "content-type") ?? "";
    const line = c.steps[0]!.send.subarray(0, 200).toString("latin1");
    // The live view's own page answers in HTML (a person reads it); GraphQL over HTTP answers as
    // GraphQL servers do (errors in a GraphQL response, or a bare 405/415 per the GraphQL-over-HTTP spec).
    const ownShape = /^(GET|HEAD) \/(\?|live-view)/.test(line) || /^\S+ \/graphql[ ?]/.test(line);
    if (!/^application\/problem\+json/.test(type) && !ownShape) {
      return `${c.name} → ${answer.status} without a problem document (${type || "no content type"}): ${answer.bytes.toString("utf8").slice(0, 300)}`;
    }
  }
  return undefined;
}

async function runBatches(seed: number, total: number, make: (rng: Rng) => Case): Promise<{ answered: Map<number | "closed", number> }> {
  const rng = new Rng(seed);
  const answered = new Map<number | "closed", number>();
  const failures: string[] = [];
  for (let done = 0; done < total; done += BATCH) {
    const cases = Array.from({ length: Math.min(BATCH, total - done) }, () => make(rng));
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          const answer = await rawConversation(port, c.steps);
          answered.set(answer.status ?? "closed", (answered.get(answer.status ?? "closed") ?? 0) + 1);
          const failure = judge(c, answer);
          if (failure) failures.push(failure);
        }
      }),
    );
    // The node is still there, and still answers, after every batch.
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status, `after cases ${done}–${done + cases.length}`).toBe(200);
  }
  expect(failures.slice(0, 10)).toEqual([]);
  return { answered };
}

describe("the front door takes malformed input without a 5xx, a hang or a crash (fixed seed)", () => {
  it("request lines and headers", async () => {
    const { answered } = await runBatches(SEED, 1500, (rng) => (rng.chance(0.5) ? requestLineCase(rng) : rng.chance(0.8) ? headerCase(rng) : garbageCase(rng)));
    // The generator reached the parser's refusals and the routes behind it alike.
    expect(answered.get(400)).toBeGreaterThan(0);
    expect([...answered.keys()].some((s) => typeof s === "number" && s < 400)).toBe(true);
  }, 300_000);

  it("REST JSON bodies, cursors, API keys, session and dashboard tokens, cookies", async () => {
    const { answered } = await runBatches(SEED + 1, 1500, (rng) => (rng.chance(0.5) ? bodyCase(rng) : credentialCase(rng)));
    for (const status of [400, 401]) expect(answered.get(status), String(status)).toBeGreaterThan(0);
  }, 300_000);

  it("GraphQL over HTTP", async () => {
    await runBatches(SEED + 2, 500, graphqlCase);
  }, 300_000);

  it("WebSocket handshakes for /cdp, /live-view/socket and /graphql, and frames on the sockets that open", async () => {
    const { answered } = await runBatches(SEED + 3, 1500, (rng) => (rng.chance(0.6) ? upgradeCase(rng) : framesCase(rng)));
    expect(answered.get(101)).toBeGreaterThan(0);
    expect(answered.get(400)).toBeGreaterThan(0);
  }, 300_000);
});
