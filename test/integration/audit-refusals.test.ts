import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Writable } from "node:stream";
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { RefusalAudit, refusalLimits } from "../../src/services/audit/audit-refusals.ts";
import { AuditWriter } from "../../src/services/audit/audit-writer.ts";
import { journalDir } from "../../src/services/audit/audit-journal.ts";
import { addKey, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { createTestDatabase, describeEachBackend, type TestDatabase } from "../support/db.ts";

/**
 * The audit log over real HTTP: calls refused at authentication (401, 429) are recorded within the
 * limits of src/services/audit/audit-refusals.ts, no secret reaches a row, a log line or the journal
 * (security.md A8), and a client's X-Request-Id is kept only beside the server's own id. Client
 * addresses are real: each request is sent from a chosen loopback address (127.0.0.0/8).
 */

interface Answer {
  status: number;
  requestId: string;
  body: string;
}

/** One request from `from` (a loopback address), on a fresh connection. */
function call(base: string, urlPath: string, opts: { headers?: Record<string, string>; from?: string; method?: string; body?: string } = {}): Promise<Answer> {
  const url = new URL(urlPath, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? "GET",
        headers: opts.headers,
        localAddress: opts.from ?? "127.0.0.1",
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, requestId: String(res.headers["x-request-id"]), body }));
      },
    );
    req.once("error", reject);
    req.end(opts.body);
  });
}

/** Runs `fn` for each item, `width` at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

const key = (prefix: string, secret: string) => ({ authorization: `Bearer ${prefix}.${secret}` });
/** A well-formed key id that no key has. */
const unknownPrefix = () => `vs_${ulid()}`;
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

describeEachBackend("audit of refused calls and client request ids", (backend) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let logText = "";
  let ws: Seeded;
  let admin: string;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const sink = new Writable({
      write(chunk, _enc, done) {
        logText += chunk.toString();
        done();
      },
    });
    t = await startTestApp({ db: tdb.db, log: createLogger("debug", sink), redisPrefix: `vessel-test-${ulid()}:` });
    ws = await seedWorkspace(t, { rateLimitPerMinute: 6 });
    admin = await seedUser(t, ws.workspace.id, "ADMIN");
  });
  afterAll(async () => {
    await t?.stop();
    await tdb?.dispose();
  });

  const prisma = () => t.app.deps.db.prisma;
  /** Ends the refusal window (its summaries are written) and stores everything queued. */
  const settle = async () => {
    await t.app.deps.refusals.close();
    await t.app.deps.audit.flush();
  };
  const summed = (rows: { target: string | null }[]) => rows.reduce((n, r) => n + Number(r.target), 0);

  it("N calls with a key — 2xx, 4xx, 401 with its id, 429 — leave exactly the promised rows, and the secret is nowhere (A8)", async () => {
    const [prefix, secret] = ws.key.split(".") as [string, string];
    const wrongSecret = "W".repeat(32);
    const calls: Array<{ answer: Answer; action: string; status: number }> = [];
    const expectCall = async (urlPath: string, headers: Record<string, string>, action: string, status: number) => {
      const answer = await call(t.url, urlPath, { headers });
      expect(answer.status, `${action} ${urlPath}`).toBe(status);
      calls.push({ answer, action, status });
    };
    // The workspace may make 6 calls a minute; calls with a wrong secret spend nothing.
    await expectCall("/v1/health", key(prefix, secret), "health.get", 200);
    await expectCall("/v1/health", key(prefix, secret), "health.get", 200);
    await expectCall(`/v1/sessions/${ulid()}`, key(prefix, secret), "session.get", 404);
    await expectCall(`/v1/dashboard/ws/${ws.workspace.slug}/audit-log`, key(prefix, secret), "audit.list", 403);
    await expectCall("/v1/health", key(prefix, wrongSecret), "auth.refused", 401);
    await expectCall("/v1/health", key(prefix, "malformed"), "auth.refused", 401);
    await expectCall("/v1/health", key(prefix, secret), "health.get", 200);
    await expectCall("/v1/health", key(prefix, secret), "health.get", 200);
    // The budget is spent: refused (and audited: 2 + 3 refusals is exactly perKey, so each has its row).
    await expectCall("/v1/health", key(prefix, secret), "auth.refused", 429);
    await expectCall("/v1/health", key(prefix, secret), "auth.refused", 429);
    await expectCall("/v1/health", key(prefix, secret), "auth.refused", 429);
    await settle();

    const rows = await prisma().auditEntry.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.action, r.httpStatus, r.keyPrefix, r.requestId, r.ip])).toEqual(
      calls.map((c) => [c.action, c.status, prefix, c.answer.requestId, "127.0.0.1"]),
    );
    // A8: neither the secret nor the wrong one presented is in any row, any log line, or the journal.
    const everything = JSON.stringify(await prisma().auditEntry.findMany());
    const journal = journalDir(t.config.database.dataDir, t.app.deps.nodeId);
    const journalText = fs
      .readdirSync(journal)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => fs.readFileSync(path.join(journal, f), "utf8"))
      .join("");
    expect(logText).toContain(calls[4]!.answer.requestId); // the log is really captured
    for (const s of [secret, wrongSecret]) {
      expect(everything).not.toContain(s);
      expect(logText).not.toContain(s);
      expect(journalText).not.toContain(s);
    }
  });

  it("a flood of refusals with one key id from one address writes perKey rows and one summary", async () => {
    const [prefix] = ws.key.split(".") as [string, string];
    const before = await prisma().auditEntry.count();
    const from = "127.0.0.2";
    const flood = 40;
    await inParallel(Array.from({ length: flood }), 8, async () => {
      const answer = await call(t.url, "/v1/health", { headers: key(prefix, "bad"), from });
      expect([401, 429]).toContain(answer.status);
    });
    await settle();
    const rows = await prisma().auditEntry.findMany({ where: { ip: from }, orderBy: { id: "asc" } });
    const refused = rows.filter((r) => r.action === "auth.refused");
    const summaries = rows.filter((r) => r.action === "auth.refused.summary");
    expect(refused).toHaveLength(refusalLimits.perKey);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(2); // one per status (401, 429)
    expect(summed(summaries)).toBe(flood - refusalLimits.perKey);
    // Every row names the key and its workspace, so the workspace's admins see the attempts.
    for (const r of rows) expect([r.keyPrefix, r.workspaceId]).toEqual([prefix, ws.workspace.id]);
    expect((await prisma().auditEntry.count()) - before).toBe(rows.length);
  });

  it("many key ids from one address write perAddress rows; many addresses stop at perNode rows a minute", async () => {
    const from = "127.0.0.3";
    const ids = Array.from({ length: refusalLimits.perAddress + 10 }, unknownPrefix);
    await inParallel(ids, 8, (prefix) => call(t.url, "/v1/health", { headers: key(prefix, "bad"), from }));
    await settle();
    const rows = await prisma().auditEntry.findMany({ where: { ip: from } });
    const refused = rows.filter((r) => r.action === "auth.refused");
    expect(refused).toHaveLength(refusalLimits.perAddress);
    expect(new Set(refused.map((r) => r.keyPrefix)).size).toBe(refusalLimits.perAddress);
    for (const r of refused) expect(ids).toContain(r.keyPrefix);
    const summaries = rows.filter((r) => r.action === "auth.refused.summary");
    expect(summaries.every((r) => r.keyPrefix === null && r.workspaceId === null)).toBe(true);
    expect(summed(summaries)).toBe(10);

    // 8 addresses × 15 key ids: each address stays under perAddress, the node reaches perNode.
    const started = new Date(Date.now() - 1000);
    const addresses = Array.from({ length: 8 }, (_, i) => `127.0.1.${i + 10}`);
    const tries = addresses.flatMap((from) => Array.from({ length: 15 }, () => ({ from, prefix: unknownPrefix() })));
    await inParallel(tries, 8, (x) => call(t.url, "/v1/health", { headers: key(x.prefix, "bad"), from: x.from }));
    await settle();
    const fromThem = await prisma().auditEntry.count({ where: { ip: { in: addresses } } });
    expect(fromThem).toBe(refusalLimits.perNode);
    const nodeSummaries = await prisma().auditEntry.findMany({ where: { action: "auth.refused.summary", ip: null, createdAt: { gte: started } } });
    expect(summed(nodeSummaries)).toBe(tries.length - refusalLimits.perNode);
  });

  it("a client's X-Request-Id is kept only as client_request_id; the server's own id is the request id everywhere", async () => {
    const clientId = `client-${ulid()}.1`;
    const fresh = await addKey(t, ws.workspace.id);
    const ok = await call(t.url, "/v1/health", { headers: { authorization: `Bearer ${fresh.key}`, "x-request-id": clientId } });
    expect(ok.status).toBe(200);
    expect(ok.requestId).toMatch(ULID);
    expect(ok.requestId).not.toBe(clientId);
    const refused = await call(t.url, "/v1/health", { headers: { ...key(unknownPrefix(), "bad"), "x-request-id": "trace:abc/DEF+1=" }, from: "127.0.0.4" });
    expect(refused.status).toBe(401);
    // Not acceptable as ids: dropped, the call goes on.
    const rejected = ["=HYPERLINK(1)", "a b", "x".repeat(129), "-1", "é"];
    const others = [];
    // With a key: a person's repeated reads are grouped into one entry (decision 0320), a key's each have theirs.
    for (const bad of rejected) others.push(await call(t.url, "/v1/health", { headers: { authorization: `Bearer ${fresh.key}`, "x-request-id": bad } }));
    await settle();

    const byRequest = async (requestId: string) => prisma().auditEntry.findFirstOrThrow({ where: { requestId } });
    expect(await byRequest(ok.requestId)).toMatchObject({ requestId: ok.requestId, clientRequestId: clientId });
    expect(await byRequest(refused.requestId)).toMatchObject({ action: "auth.refused", clientRequestId: "trace:abc/DEF+1=" });
    const okAction = (await byRequest(ok.requestId)).action;
    for (const o of others) expect(await byRequest(o.requestId)).toMatchObject({ action: okAction, clientRequestId: null });
    expect(await prisma().auditEntry.count({ where: { requestId: clientId } })).toBe(0);
    // The log line of the request carries both, under their own names.
    const line = logText.split("\n").find((l) => l.includes(ok.requestId) && l.includes('"msg":"request"'));
    expect(JSON.parse(line!)).toMatchObject({ requestId: ok.requestId, clientRequestId: clientId });

    // Shown where the request id is shown: the REST audit log and GraphQL.
    const page = JSON.parse((await call(t.url, `/v1/dashboard/ws/${ws.workspace.slug}/audit-log?limit=100`, { headers: userAuth(admin) })).body) as {
      items: Array<{ request_id: string; client_request_id: string | null }>;
    };
    expect(page.items.find((i) => i.request_id === ok.requestId)?.client_request_id).toBe(clientId);
    const gql = await call(t.url, "/graphql", {
      method: "POST",
      headers: { ...userAuth(admin), "content-type": "application/json" },
      body: JSON.stringify({ query: `{ auditLog(workspace: "${ws.workspace.slug}", limit: 100) { items { requestId clientRequestId } } }` }),
    });
    const items = (JSON.parse(gql.body) as { data: { auditLog: { items: Array<{ requestId: string; clientRequestId: string | null }> } } }).data.auditLog.items;
    expect(items.find((i) => i.requestId === ok.requestId)?.clientRequestId).toBe(clientId);
  });
});

describeEachBackend("refusal limits by the minute", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await tdb?.dispose();
  });

  it("a window's summary is written when the next minute's first refusal comes, and counting starts afresh", async () => {
    let now = new Date("2030-01-01T00:00:00Z");
    const writer = new AuditWriter(tdb.db.prisma, { log: createLogger("silent") });
    const refusals = new RefusalAudit({ enqueue: (r) => writer.enqueue(r), workspaceOfKey: async () => null, now: () => now, log: createLogger("silent") });
    const prefix = unknownPrefix();
    const refuse = () => refusals.record({ status: 401, ip: "198.51.100.1", keyPrefix: prefix, requestId: ulid(), clientRequestId: null });
    for (let i = 0; i < refusalLimits.perKey + 2; i++) await refuse();
    await writer.flush();
    const rows = () => tdb.db.prisma.auditEntry.findMany({ where: { keyPrefix: prefix }, orderBy: { id: "asc" } });
    expect((await rows()).map((r) => r.action)).toEqual(Array(refusalLimits.perKey).fill("auth.refused"));

    now = new Date(now.getTime() + 60_000); // the next minute
    await refuse();
    await writer.flush();
    const after = await rows();
    expect(after.filter((r) => r.action === "auth.refused.summary").map((r) => [r.target, r.httpStatus, r.createdAt.toISOString()])).toEqual([
      ["2", 401, "2030-01-01T00:00:00.000Z"],
    ]);
    expect(after.filter((r) => r.action === "auth.refused")).toHaveLength(refusalLimits.perKey + 1);
    await refusals.close();
    await writer.close();
  });
});
