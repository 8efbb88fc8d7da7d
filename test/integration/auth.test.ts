import { Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argonCalls } from "../../src/auth/api-key-hash.ts";
import { keyLookups } from "../../src/auth/api-key-lookup.ts";
import { createLogger } from "../../src/logger.ts";
import { addKey, bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { redisReachable, servicesRequired, testDatabaseUrl, testRedisUrl } from "../support/services.ts";
import { postgresAvailable } from "../support/db.ts";

/** The two ways Vessel runs: one process on its embedded defaults, or nodes sharing PostgreSQL and Redis. */
const modes = [
  { name: "embedded (PGlite, in-memory limits)", backend: "pglite" as const, redis: false },
  { name: "PostgreSQL + Redis", backend: "postgres" as const, redis: true },
];

const available = {
  pglite: true,
  postgres: (await postgresAvailable()) && (await redisReachable()),
};
if (!available.postgres && servicesRequired) throw new Error(`PostgreSQL (${testDatabaseUrl}) and Redis (${testRedisUrl}) are required`);

/** Captures everything the app logs, to prove no secret is ever written there. */
function capturedLog() {
  let text = "";
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { log: createLogger("debug", sink), text: () => text };
}

for (const mode of modes) {
  describe.skipIf(!available[mode.backend])(`API keys and workspace scope — ${mode.name}`, () => {
    let tdb: TestDatabase;
    let t: TestApp;
    let logs: ReturnType<typeof capturedLog>;
    let a: Seeded;
    let b: Seeded;
    const prefix = `vessel-test-${randomUUID()}:`;
    const env: Record<string, string> = mode.redis ? { REDIS_URL: testRedisUrl } : {};

    beforeAll(async () => {
      tdb = await createTestDatabase(mode.backend);
      logs = capturedLog();
      t = await startTestApp({ db: tdb.db, env, log: logs.log, redisPrefix: prefix });
      a = await seedWorkspace(t);
      b = await seedWorkspace(t);
    });
    afterAll(async () => {
      await t?.stop();
      await tdb?.dispose();
    });

    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });

    it("security.md A2: a malformed key is refused cheaply: 401 invalid_token, no hash, no database read, the secret not echoed", async () => {
      const [id, secret] = a.key.slice(3).split(".") as [string, string];
      const malformed = [
        "vs_bad",
        `vs_${id}.${secret.slice(1)}`, // secret one character short
        `vs_${id}.${secret}x`, // one too long
        `vs_${id}${secret}`, // no separator
        `vs_${id.toLowerCase()}.${secret}`, // lower-case ULID
        `vs_${id.slice(0, -1)}U.${secret}`, // U is not Crockford base32
        `vs_${id}.${secret.slice(1)}!`, // not base62
        "sk_live_123",
        a.key.replace(".", "_"),
      ];
      const [hashes, lookups] = [argonCalls().total, keyLookups()];
      for (const bad of malformed) {
        const res = await get("/v1/health", bearer(bad));
        expect(res.status, bad).toBe(401);
        expect(res.headers.get("content-type"), bad).toMatch(/^application\/problem\+json/);
        expect(res.headers.get("www-authenticate"), bad).toBe('Bearer realm="vessel", error="invalid_token"');
        expect(await res.text(), bad).not.toContain(secret.slice(1, -1));
      }
      expect(argonCalls().total - hashes).toBe(0);
      expect(keyLookups() - lookups).toBe(0);
      // The counters do count: a well-formed key reads its record (and, new here, hashes).
      expect((await get("/v1/health", bearer(`vs_${id}.${"x".repeat(32)}`))).status).toBe(401);
      expect(keyLookups() - lookups).toBe(1);
      expect(argonCalls().total - hashes).toBe(1);
    });

    it("unknown key id and wrong secret give identical problems", async () => {
      const unknown = `vs_01ARZ3NDEKTSV4RRFFQ69G5FAV.${a.key.split(".")[1]}`;
      const wrong = `${a.key.split(".")[0]}.${"x".repeat(32)}`;
      const strip = (p: Record<string, unknown>) => ({ ...p, request_id: undefined });
      const r1 = (await (await get("/v1/health", bearer(unknown))).json()) as Record<string, unknown>;
      const r2 = (await (await get("/v1/health", bearer(wrong))).json()) as Record<string, unknown>;
      expect(strip(r1)).toEqual(strip(r2));
      expect(r1.status).toBe(401);
    });

    it("argon2 runs once per key per process", async () => {
      const fresh = await addKey(t, a.workspace.id);
      const before = argonCalls().verify;
      for (let i = 0; i < 5; i++) expect((await get("/v1/health", bearer(fresh.key))).status).toBe(200);
      expect(argonCalls().verify - before).toBe(1);
    });

    it("the cross-workspace matrix of spec 5.1", async () => {
      const ownerB = await seedUser(t, b.workspace.id, "OWNER");
      const memberB = await seedUser(t, b.workspace.id, "MEMBER");
      const json = { "content-type": "application/json" };
      const cases: Array<[string, string, string, Record<string, string>, number, string?]> = [
        // [what, method, path, headers, status, body]
        ["key: health in its workspace", "GET", "/v1/health", bearer(a.key), 200],
        ["key: list keys of another workspace", "GET", `/v1/dashboard/ws/${b.workspace.slug}/api-keys`, bearer(a.key), 403],
        ["key: audit another workspace", "GET", `/v1/dashboard/ws/${b.workspace.slug}/audit-log`, bearer(a.key), 403],
        ["key: read its own audit log", "GET", `/v1/dashboard/ws/${a.workspace.slug}/audit-log`, bearer(a.key), 403],
        ["key: mint another key", "POST", `/v1/dashboard/ws/${a.workspace.slug}/api-keys`, { ...bearer(a.key), ...json }, 403, JSON.stringify({ label: "x" })],
        ["key: revoke a key", "DELETE", `/v1/dashboard/ws/${a.workspace.slug}/api-keys/${a.keyId}`, bearer(a.key), 403],
        ["owner of B: audit B", "GET", `/v1/dashboard/ws/${b.workspace.slug}/audit-log`, userAuth(ownerB), 200],
        ["owner of B: A is not visible", "GET", `/v1/dashboard/ws/${a.workspace.slug}/api-keys`, userAuth(ownerB), 404],
        ["owner of B: revoke A's key through B", "DELETE", `/v1/dashboard/ws/${b.workspace.slug}/api-keys/${a.keyId}`, userAuth(ownerB), 404],
        ["member of B: list keys", "GET", `/v1/dashboard/ws/${b.workspace.slug}/api-keys`, userAuth(memberB), 200],
        [
          "member of B: mint a key",
          "POST",
          `/v1/dashboard/ws/${b.workspace.slug}/api-keys`,
          { ...userAuth(memberB), ...json },
          403,
          JSON.stringify({ label: "x" }),
        ],
        ["member of B: audit", "GET", `/v1/dashboard/ws/${b.workspace.slug}/audit-log`, userAuth(memberB), 403],
      ];
      for (const [what, method, path, headers, status, body] of cases) {
        const res = await fetch(`${t.url}${path}`, { method, headers, body });
        expect(res.status, what).toBe(status);
        if (status >= 400) expect(res.headers.get("content-type"), what).toMatch(/^application\/problem\+json/);
      }
      // The key of A still works: nothing above touched it.
      expect((await get("/v1/health", bearer(a.key))).status).toBe(200);
    });

    it("a created key is shown once, works at once, and dies at once when revoked", async () => {
      const owner = await seedUser(t, a.workspace.id, "ADMIN");
      const created = await fetch(`${t.url}/v1/dashboard/ws/${a.workspace.slug}/api-keys`, {
        method: "POST",
        headers: { ...userAuth(owner), "content-type": "application/json" },
        body: JSON.stringify({ label: "ci" }),
      });
      expect(created.status).toBe(201);
      const body = (await created.json()) as { id: string; secret: string; prefix: string };
      expect(body.secret).toMatch(/^vs_[0-9A-HJKMNP-TV-Z]{26}\.[0-9A-Za-z]{32}$/);
      expect(body.secret.startsWith(`${body.prefix}.`)).toBe(true);
      expect((await get("/v1/health", bearer(body.secret))).status).toBe(200);

      const listed = await (await get(`/v1/dashboard/ws/${a.workspace.slug}/api-keys`, userAuth(owner))).text();
      expect(listed).toContain(body.prefix);
      expect(listed).not.toContain(body.secret.split(".")[1]);

      const revoke = await fetch(`${t.url}/v1/dashboard/ws/${a.workspace.slug}/api-keys/${body.id}`, { method: "DELETE", headers: userAuth(owner) });
      expect(revoke.status).toBe(204);
      expect((await get("/v1/health", bearer(body.secret))).status).toBe(401);
      // Idempotent.
      expect((await fetch(`${t.url}/v1/dashboard/ws/${a.workspace.slug}/api-keys/${body.id}`, { method: "DELETE", headers: userAuth(owner) })).status).toBe(
        204,
      );

      await t.app.deps.audit.flush();
      const secret = body.secret.split(".")[1]!;
      expect(logs.text()).not.toContain(secret);
      const audit = await t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: a.workspace.id } });
      expect(JSON.stringify(audit)).not.toContain(secret);
      const keyRow = await t.app.deps.db.prisma.apiKey.findUnique({ where: { id: body.id } });
      expect(JSON.stringify(keyRow)).not.toContain(secret);
    });

    it("records exactly one audit entry per authenticated call, denials included", async () => {
      const ws = await seedWorkspace(t);
      const admin = await seedUser(t, ws.workspace.id, "ADMIN");
      const calls: Array<{ res: Promise<Response>; action: string; status: number; keyPrefix?: string; actor?: string; target?: string | null }> = [];
      const call = (method: string, path: string, headers: Record<string, string>, expected: Omit<(typeof calls)[number], "res">, body?: unknown) => {
        const res = fetch(`${t.url}${path}`, {
          method,
          headers: body ? { ...headers, "content-type": "application/json" } : headers,
          body: body ? JSON.stringify(body) : undefined,
        });
        calls.push({ res, ...expected });
        return res;
      };
      await call("GET", "/v1/health", bearer(ws.key), { action: "health.get", status: 200, keyPrefix: ws.prefix, target: null });
      await call("GET", `/v1/dashboard/ws/${ws.workspace.slug}/audit-log`, bearer(ws.key), {
        action: "audit.list",
        status: 403,
        keyPrefix: ws.prefix,
        target: null,
      });
      await call("GET", `/v1/dashboard/ws/${ws.workspace.slug}/api-keys`, userAuth(admin), { action: "api_key.list", status: 200, actor: admin, target: null });
      const created = await call(
        "POST",
        `/v1/dashboard/ws/${ws.workspace.slug}/api-keys`,
        userAuth(admin),
        { action: "api_key.create", status: 201, actor: admin },
        { label: "audited" },
      );
      const newKey = (await created.json()) as { id: string };
      calls.at(-1)!.target = newKey.id;
      await call(
        "POST",
        `/v1/dashboard/ws/${ws.workspace.slug}/api-keys`,
        userAuth(admin),
        { action: "api_key.create", status: 400, actor: admin, target: null },
        { label: "" },
      );
      await call("DELETE", `/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${newKey.id}`, userAuth(admin), {
        action: "api_key.revoke",
        status: 204,
        actor: admin,
        target: newKey.id,
      });
      await call("DELETE", `/v1/dashboard/ws/${ws.workspace.slug}/api-keys/01ARZ3NDEKTSV4RRFFQ69G5FAV`, userAuth(admin), {
        action: "api_key.revoke",
        status: 404,
        actor: admin,
        target: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
      });
      await get("/v1/health"); // unauthenticated: not an authenticated call, so not audited
      for (const c of calls) expect((await c.res).status, c.action).toBe(c.status);

      await t.app.deps.audit.flush();
      const entries = await t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { id: "asc" } });
      expect(entries.map((e) => [e.action, e.httpStatus])).toEqual(calls.map((c) => [c.action, c.status]));
      for (const [i, e] of entries.entries()) {
        const c = calls[i]!;
        expect(e.keyPrefix).toBe(c.keyPrefix ?? null);
        expect(e.actorUserId).toBe(c.actor ?? null);
        expect(e.target).toBe(c.target ?? null);
      }

      // The same log, read back through the API and filtered by key prefix.
      const page = (await (await get(`/v1/dashboard/ws/${ws.workspace.slug}/audit-log?key_prefix=${ws.prefix}`, userAuth(admin))).json()) as {
        items: Array<{ action: string; key_prefix: string }>;
      };
      expect(page.items.map((i) => i.action).sort()).toEqual(["audit.list", "health.get"]);
    });

    it("600 calls a minute pass, the 601st is refused with Retry-After, and another key is unaffected", async () => {
      const ws = await seedWorkspace(t);
      const other = await addKey(t, ws.workspace.id);
      let last: Response | undefined;
      for (let batch = 0; batch < 30; batch++) {
        const results = await Promise.all(Array.from({ length: 20 }, () => get("/v1/health", bearer(ws.key))));
        for (const r of results) expect(r.status).toBe(200);
        last = results.at(-1);
      }
      expect(last!.headers.get("ratelimit-policy")).toBe('"default";q=600;w=60');
      expect(last!.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
      const refused = await get("/v1/health", bearer(ws.key));
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(((await refused.json()) as { type: string }).type).toMatch(/\/errors\/rate-limited$/);
      expect((await get("/v1/health", bearer(other.key))).status).toBe(200);
    });

    it("a workspace's own limit replaces the default", async () => {
      const ws = await seedWorkspace(t, { rateLimitPerMinute: 5 });
      for (let i = 0; i < 5; i++) expect((await get("/v1/health", bearer(ws.key))).status).toBe(200);
      const refused = await get("/v1/health", bearer(ws.key));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("ratelimit-policy")).toBe('"default";q=5;w=60');
    });
  });
}

describe.skipIf(!available.postgres)("two nodes sharing PostgreSQL and Redis", () => {
  let tdb: TestDatabase;
  let one: TestApp;
  let two: TestApp;
  const prefix = `vessel-test-${randomUUID()}:`;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const env = { REDIS_URL: testRedisUrl };
    one = await startTestApp({ db: tdb.db, env, redisPrefix: prefix });
    two = await startTestApp({ db: tdb.db, env, redisPrefix: prefix });
  });
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await tdb?.dispose();
  });

  it("a key revoked on one node is refused by the other on the very next request", async () => {
    const ws = await seedWorkspace(one);
    const admin = await seedUser(one, ws.workspace.id, "OWNER");
    // Warm the other node's caches first, so a stale cache would show.
    expect((await fetch(`${two.url}/v1/health`, { headers: bearer(ws.key) })).status).toBe(200);
    const revoke = await fetch(`${one.url}/v1/dashboard/ws/${ws.workspace.slug}/api-keys/${ws.keyId}`, { method: "DELETE", headers: userAuth(admin) });
    expect(revoke.status).toBe(204);
    expect((await fetch(`${two.url}/v1/health`, { headers: bearer(ws.key) })).status).toBe(401);
  });

  it("enforce one shared rate limit", async () => {
    const ws = await seedWorkspace(one, { rateLimitPerMinute: 10 });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const node = i % 2 === 0 ? one : two;
      statuses.push((await fetch(`${node.url}/v1/health`, { headers: bearer(ws.key) })).status);
    }
    expect(statuses).toEqual(Array(10).fill(200));
    expect((await fetch(`${one.url}/v1/health`, { headers: bearer(ws.key) })).status).toBe(429);
    expect((await fetch(`${two.url}/v1/health`, { headers: bearer(ws.key) })).status).toBe(429);
  });
});
