import { Writable } from "node:stream";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import WebSocket from "ws";
import { createLogger } from "../../src/logger.ts";
import { bearer, seedWorkspace, type Seeded } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { addMember, gql, signIn, startDashboardApp, type DashboardApp, type SignedInUser } from "../support/dashboard.ts";

const json = { "content-type": "application/json" };
const CREATE_KEY = (slug: string) => `mutation { createApiKey(workspace: "${slug}", label: "csrf-probe") { secret } }`;

describe("GraphQL hardening for cookie-authenticated use (security.md F33–F39)", () => {
  let db: TestDatabase;
  let t: DashboardApp;
  let ws: Seeded;
  let owner: SignedInUser;
  const lines: string[] = [];

  beforeAll(async () => {
    const log = createLogger("info", new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }));
    db = await createTestDatabase("pglite");
    t = await startDashboardApp({ db: db.db, log, credentialRecheckMs: 150 });
    ws = await seedWorkspace(t);
    owner = await signIn(t, await addMember(t, ws.workspace.id, "OWNER"));
  });
  afterAll(async () => {
    await t?.stop();
    await db?.dispose();
  });

  const post = (headers: Record<string, string>, body: string) => fetch(`${t.url}/graphql`, { method: "POST", headers, body });
  const probes = () => t.app.deps.db.prisma.apiKey.count({ where: { label: "csrf-probe" } });
  const errorsOf = async (res: Response) => ((await res.json()) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }).errors ?? [];

  test("F33 CSRF: a cookie-authenticated mutation without the CSRF header, or from another origin, is 403 and never runs", async () => {
    const cookie = { cookie: owner.cookie };
    const body = JSON.stringify({ query: CREATE_KEY(ws.workspace.slug) });
    const refused: Array<[string, Record<string, string>, string]> = [
      ["text/plain", { ...cookie, "content-type": "text/plain" }, body],
      ["form", { ...cookie, "content-type": "application/x-www-form-urlencoded" }, `query=${encodeURIComponent(CREATE_KEY(ws.workspace.slug))}`],
      [
        "multipart",
        { ...cookie, "content-type": "multipart/form-data; boundary=x" },
        `--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${body}\r\n--x--\r\n`,
      ],
      ["json from evil.example", { ...cookie, ...json, origin: "https://evil.example" }, body],
      ["json, Sec-Fetch-Site: cross-site", { ...cookie, ...json, "sec-fetch-site": "cross-site" }, body],
      ["json, Sec-Fetch-Site: same-site", { ...cookie, ...json, "sec-fetch-site": "same-site" }, body],
    ];
    for (const [name, headers, payload] of refused) {
      const res = await post(headers, payload);
      expect(res.status, name).toBe(403);
      expect((await errorsOf(res))[0]?.extensions?.code, name).toBe("FORBIDDEN");
    }
    expect(await probes()).toBe(0);
    await t.app.deps.audit.flush();
    expect(await t.app.deps.db.prisma.auditEntry.count({ where: { actorUserId: owner.userId, action: "api_key.create" } })).toBe(0);

    // From the dashboard itself it runs.
    const ok = await post({ ...cookie, ...json, "sec-fetch-site": "same-origin", origin: new URL(t.config.publicBaseUrl).origin }, body);
    expect(ok.status).toBe(200);
    expect(await probes()).toBe(1);

    // A bearer credential is not ambient: another origin cannot make a browser send it, so no CSRF check applies.
    const viaKey = await post(
      { ...bearer(ws.key), ...json, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      JSON.stringify({ query: "{ health { version } }" }),
    );
    expect(viaKey.status).toBe(200);
    expect(await errorsOf(viaKey)).toEqual([]);
    const viaUserBearer = await post({ ...owner.bearer, ...json, origin: "https://evil.example" }, body);
    expect(viaUserBearer.status).toBe(200);
    expect(await probes()).toBe(2);
  });

  test("F33 Yoga's CORS default is off: only the dashboard's origin may read answers", async () => {
    const res = await post({ ...json, origin: "https://evil.example" }, JSON.stringify({ query: "{ __typename }" }));
    expect(res.headers.get("access-control-allow-origin")).toBe(new URL(t.config.publicBaseUrl).origin);
  });

  test("F34 no mutation over GET: 405 with Allow: POST (or 403 without the CSRF header), and nothing happens", async () => {
    const url = `${t.url}/graphql?query=${encodeURIComponent(CREATE_KEY(ws.workspace.slug))}`;
    const before = await probes();
    const withHeader = await fetch(url, { headers: { cookie: owner.cookie, "x-graphql-yoga-csrf": "1", "sec-fetch-site": "same-origin" } });
    expect(withHeader.status).toBe(405);
    expect(withHeader.headers.get("allow")).toBe("POST");
    const withKey = await fetch(url, { headers: bearer(ws.key) });
    expect(withKey.status).toBe(405);
    const bare = await fetch(url, { headers: { cookie: owner.cookie } });
    expect(bare.status).toBe(403);
    expect(await probes()).toBe(before);
  });

  test("F35 depth limit, also behind a fragment named __schema and behind chained fragments; nothing is resolved", async () => {
    const deep = "{ me { workspaces { a { b { c { d { e } } } } } } }";
    const viaSchemaFragment = "query __schema { me { ...__schema } } fragment __schema on Me { workspaces { a { b { c { d { e } } } } } }";
    const chained =
      "{ me { ...F1 } } fragment F1 on Me { workspaces { ...F2 } } fragment F2 on Workspace { a { ...F3 } } fragment F3 on X { b { c { d { e } } } }";
    for (const query of [deep, viaSchemaFragment, chained]) {
      const res = await post({ ...owner.bearer, ...json, accept: "application/graphql-response+json" }, JSON.stringify({ query }));
      expect(res.status, query).toBe(400);
      const messages = (await errorsOf(res)).map((e) => e.message);
      expect(messages, query).toContain("The query is 7 levels deep; at most 6 are allowed.");
    }
    // Introspection has its own, larger limit, enforced the same way.
    const ofTypes = "ofType { ".repeat(12) + "name" + " }".repeat(12);
    const res = await post({ ...owner.bearer, ...json }, JSON.stringify({ query: `{ __type(name: "Query") { fields { type { ${ofTypes} } } } }` }));
    expect((await errorsOf(res)).map((e) => e.message)).toContain("The introspection query is 16 levels deep; at most 15 are allowed.");
    await t.app.deps.audit.flush();
    expect(await t.app.deps.db.prisma.auditEntry.count({ where: { actorUserId: owner.userId, action: "user.get" } })).toBe(0);
  });

  test("F36 alias, token, directive and cost limits name the limit", async () => {
    const ask = async (query: string) => (await errorsOf(await post({ ...owner.bearer, ...json }, JSON.stringify({ query })))).map((e) => e.message);
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: me { id }`).join(" ");
    expect(await ask(`{ ${aliases} }`)).toEqual(["The query uses 16 aliases; at most 15 are allowed."]);
    expect(await ask(`{ ${Array.from({ length: 15 }, (_, i) => `a${i}: me { id }`).join(" ")} }`)).toEqual([]);
    expect((await ask(`{ me { ${"id ".repeat(1001)} } }`))[0]).toMatch(/Document contains more th\w+ 1000 tokens/);
    const directives = Array.from({ length: 51 }, () => "id @include(if: true)").join(" ");
    expect(await ask(`{ me { ${directives} } }`)).toContain("The query uses 51 directives; at most 50 are allowed.");
    const spreads = (name: string) => Array.from({ length: 10 }, () => `...${name}`).join(" ");
    // 4 fields × 10 × 10 × 10 spreads: few tokens, 4000 fields once expanded.
    const costly = `{ me { ...D } } fragment A on Me { id email name createdAt } fragment B on Me { ${spreads("A")} } fragment C on Me { ${spreads("B")} } fragment D on Me { ${spreads("C")} }`;
    expect((await ask(costly))[0]).toMatch(/^The query's estimated cost is \d+; at most 5000 is allowed\.$/);
  });

  test("F37 batching is off: an array body is 400", async () => {
    const res = await post({ ...owner.bearer, ...json }, JSON.stringify([{ query: "{ me { id } }" }, { query: "{ me { id } }" }]));
    expect(res.status).toBe(400);
    expect((await errorsOf(res))[0]?.message).toMatch(/Batching is not supported/);
  });

  test("F38 introspection and GraphiQL for signed-in callers only; no field suggestions", async () => {
    const anon = async (query: string) => (await errorsOf(await post(json, JSON.stringify({ query })))).map((e) => e.extensions?.code);
    expect(await anon("{ __schema { types { name } } }")).toEqual(["UNAUTHENTICATED"]);
    expect(await anon('{ __type(name: "Query") { name } }')).toEqual(["UNAUTHENTICATED"]);
    expect(await anon("query Q { ...F } fragment F on Query { __schema { queryType { name } } }")).toEqual(["UNAUTHENTICATED"]);
    expect(await anon("{ __typename }")).toEqual([]);
    for (const headers of [{ cookie: owner.cookie, "sec-fetch-site": "same-origin" }, bearer(ws.key)]) {
      const res = await post({ ...json, ...headers }, JSON.stringify({ query: "{ __schema { queryType { name } } }" }));
      expect(await res.json()).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    }
    const typo = await errorsOf(await post({ ...owner.bearer, ...json }, JSON.stringify({ query: "{ me { emial } }" })));
    expect(typo[0]?.message).toBe('Cannot query field "emial" on type "Me".');
    expect(JSON.stringify(typo)).not.toMatch(/Did you mean/);

    const page = (headers: Record<string, string>) => fetch(`${t.url}/graphql`, { headers: { accept: "text/html", ...headers } });
    const anonymous = await page({});
    expect(anonymous.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
    expect(await anonymous.text()).not.toMatch(/graphiql/i);
    const signedIn = await page({ cookie: owner.cookie, "sec-fetch-site": "none" });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("content-type")).toMatch(/text\/html/);
    expect(await signedIn.text()).toContain("graphiql");
  });

  test("F39 an unexpected resolver error is masked for the client and logged with the request id", async () => {
    const prisma = t.app.deps.db.prisma;
    const spy = vi.spyOn(prisma.membership, "findMany").mockRejectedValueOnce(new Error("pg password=hunter2"));
    let requestId: string | null = null;
    try {
      const res = await post({ ...owner.bearer, ...json, "x-request-id": "req-f39-masked" }, JSON.stringify({ query: "{ workspaces { slug } }" }));
      const body = (await res.json()) as { errors: Array<Record<string, unknown>> };
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0]).toMatchObject({ message: "Unexpected error.", path: ["workspaces"], extensions: { code: "INTERNAL_SERVER_ERROR" } });
      expect(Object.keys(body.errors[0]!).sort()).toEqual(expect.arrayContaining(["extensions", "message", "path"]));
      expect(JSON.stringify(body)).not.toMatch(/hunter2|stack|originalError/);
      // The server's own id, not the client's (which is only kept beside it: src/request-id.ts).
      requestId = res.headers.get("x-request-id");
      expect(requestId).not.toBe("req-f39-masked");
    } finally {
      spy.mockRestore();
    }
    const logged = lines.filter((l) => l.includes("hunter2"));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.some((l) => l.includes(`"requestId":"${requestId}"`))).toBe(true);
  });

  test("graphql-ws takes the dashboard's cookie from the upgrade or its access token from connection_init; signing out closes the socket (4403)", async () => {
    const other = await signIn(t, await addMember(t, ws.workspace.id, "MEMBER"));
    const origin = new URL(t.config.publicBaseUrl).origin;
    const open = (headers: Record<string, string>, connectionParams?: Record<string, string>) => {
      class Socket extends WebSocket {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols, { headers: { origin, ...headers } });
        }
      }
      let closed: (code: number) => void = () => {};
      const closedWith = new Promise<number>((resolve) => (closed = resolve));
      const client = createClient({
        url: `${t.url.replace("http", "ws")}/graphql`,
        webSocketImpl: Socket,
        retryAttempts: 0,
        lazy: false,
        onNonLazyError: () => {},
        connectionParams,
        on: { closed: (event) => closed((event as { code: number }).code) },
      });
      const me = () =>
        new Promise<unknown>((resolve, reject) => {
          let value: unknown;
          client.subscribe({ query: "{ me { email } }" }, { next: (v) => (value = v), error: reject, complete: () => resolve(value) });
        });
      return { client, me, closedWith };
    };
    const byCookie = open({ cookie: other.cookie });
    const byToken = open({}, other.bearer);
    try {
      expect(await byCookie.me()).toEqual({ data: { me: { email: other.email } } });
      expect(await byToken.me()).toEqual({ data: { me: { email: other.email } } });
      await gql(t, "mutation { signOut }", {}, { jar: other.jar });
      expect(await byCookie.closedWith).toBe(4403);
      expect(await byToken.closedWith).toBe(4403);
    } finally {
      await byCookie.client.dispose();
      await byToken.client.dispose();
    }
  });
});
