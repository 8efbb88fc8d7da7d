// The one-statement writes of a session's start and end (src/services/sessions/session-start.ts), its
// audit entry as a part of them (audit.ts auditInsertSql), and the event recorder's raw inserts:
// the same SQL runs on PGlite and on PostgreSQL, and writes what the transactions it replaced wrote.
import { sessionRow } from "../support/session-row.ts";
import { ulid } from "ulid";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { Prisma, type Session } from "../../src/generated/prisma/client.ts";
import { createLogger } from "../../src/logger.ts";
import { memoryPubSub } from "../../src/pubsub.ts";
import { auditInsertSql, writeAuditInTx, type AuditRecord } from "../../src/services/audit/audit.ts";
import { newEvent, type SessionEventType } from "../../src/services/session-events/session-events.ts";
import { Metrics } from "../../src/metrics.ts";
import { setAsideCount } from "../support/metrics.ts";
import { EventRecorder } from "../../src/services/session-events/event-recorder.ts";
import { endSessionStatement, insertStartedSession, releaseSessionStatement } from "../../src/services/sessions/session-start.ts";
import { createTestDatabase, describeEachBackend } from "../support/db.ts";
import type { TestDatabase } from "../support/db.ts";

describeEachBackend("session statements", (backend) => {
  let t: TestDatabase;
  let workspaceId: string;
  const otherWorkspaceId = `ws_${ulid()}`;

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    workspaceId = `ws_${ulid()}`;
    await t.db.prisma.workspace.create({ data: { id: workspaceId, slug: `s-${ulid().toLowerCase()}`, name: "statements" } });
    await t.db.prisma.workspace.create({ data: { id: otherWorkspaceId, slug: `o-${ulid().toLowerCase()}`, name: "other" } });
  });
  afterAll(async () => {
    await t?.dispose();
  });

  const prisma = () => t.db.prisma;

  function record(over: Partial<AuditRecord> = {}): AuditRecord {
    return {
      workspaceId,
      keyPrefix: "vs_01J0000000000000000000000A",
      actorUserId: null,
      action: "session.create",
      target: null,
      httpStatus: 201,
      requestId: `req-${ulid()}`,
      ip: "127.0.0.1",
      at: new Date("2030-01-02T03:04:05.678Z"),
      ...over,
    };
  }

  const session = (over: Partial<Session> = {}): Session => sessionRow(workspaceId, over, new Date("2030-01-02T03:04:05.678Z"));

  async function start(s: Session, audit: Prisma.Sql | null = null): Promise<void> {
    await prisma().$executeRaw(
      insertStartedSession(s, newEvent(s.id, "session.running", {}, s.createdAt), { also: Prisma.sql`SELECT 1` }, audit && (() => audit)),
    );
  }

  const entriesFor = (target: string) => prisma().auditEntry.findMany({ where: { target }, orderBy: { id: "asc" } });
  const eventsOf = (sessionId: string) => prisma().sessionEvent.findMany({ where: { sessionId }, orderBy: { id: "asc" } });
  const strip = <T extends { id: string }>({ id: _id, ...rest }: T) => rest;

  test("an audit entry written inside a statement is the row writeAuditInTx writes, with or without a condition", async () => {
    const target = `ses_${ulid()}`;
    const r = record({ target });
    await writeAuditInTx(prisma(), r);
    await prisma().$executeRaw(auditInsertSql(r));
    await prisma().$executeRaw(auditInsertSql(r, Prisma.sql`TRUE`));
    await prisma().$executeRaw(auditInsertSql(r, Prisma.sql`FALSE`));
    await prisma().$executeRaw(auditInsertSql(record({ target, workspaceId: null, keyPrefix: "vs_X.secret", requestId: null, ip: null })));
    const rows = await entriesFor(target);
    expect(rows).toHaveLength(4);
    expect(rows.slice(1, 3).map(strip)).toEqual([strip(rows[0]!), strip(rows[0]!)]);
    expect(rows[0]).toMatchObject({ workspaceId, action: "session.create", httpStatus: 201, ip: "127.0.0.1", createdAt: r.at });
    // The secret after the dot is never stored; nulls stay nulls.
    expect(rows[3]).toMatchObject({ workspaceId: null, keyPrefix: "vs_X", requestId: null, ip: null });
  });

  test("a start writes the row, its first event and its audit entry in one statement", async () => {
    const s = session();
    await start(s, auditInsertSql(record({ target: s.id })));
    expect(await prisma().session.findUnique({ where: { id: s.id } })).toEqual(s);
    expect((await eventsOf(s.id)).map((e) => e.type)).toEqual(["session.running"]);
    expect(await entriesFor(s.id)).toMatchObject([{ action: "session.create", httpStatus: 201, target: s.id, workspaceId }]);
    // Without an entry (no principal) the rest is written all the same.
    const quiet = session();
    await start(quiet);
    expect(await prisma().session.findUnique({ where: { id: quiet.id } })).toEqual(quiet);
    expect(await entriesFor(quiet.id)).toEqual([]);
  });

  test("a start that takes the idempotency key writes it with the answer; with the key taken it writes nothing", async () => {
    const key = crypto.randomUUID();
    const claim = (body: string) => Prisma.sql`INSERT INTO "idempotency_records"
        ("workspace_id", "key", "fingerprint", "state", "response_status", "response_body", "resource_id", "expires_at")
      VALUES (${workspaceId}, ${key}, 'fp', 'COMPLETED', 201, ${JSON.stringify({ body })}::jsonb, ${body}, now() + interval '1 day')
      ON CONFLICT DO NOTHING RETURNING 1 AS "taken"`;
    const startClaimed = (s: Session) =>
      prisma().$queryRaw<Array<{ taken: boolean }>>(
        insertStartedSession(s, newEvent(s.id, "session.running", {}, s.createdAt), { claim: claim(s.id) }, (when) =>
          auditInsertSql(record({ target: s.id }), when),
        ),
      );
    const first = session({ liveViewInstructions: "Sign in, then click Done", idleTimeoutSeconds: null, apiKeyId: null });
    expect(await startClaimed(first)).toEqual([{ taken: true }]);
    expect(await prisma().session.findUnique({ where: { id: first.id } })).toEqual(first);
    expect((await eventsOf(first.id)).map((e) => e.type)).toEqual(["session.running"]);
    expect(await entriesFor(first.id)).toMatchObject([{ action: "session.create", target: first.id }]);
    expect(await prisma().idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } })).toMatchObject({
      state: "COMPLETED",
      responseStatus: 201,
      responseBody: { body: first.id },
      resourceId: first.id,
      lockedUntil: null,
    });

    const second = session();
    expect(await startClaimed(second)).toEqual([{ taken: false }]);
    expect(await prisma().session.findUnique({ where: { id: second.id } })).toBeNull();
    expect(await eventsOf(second.id)).toEqual([]);
    expect(await entriesFor(second.id)).toEqual([]);
    expect(await prisma().idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } })).toMatchObject({ resourceId: first.id });
  });

  test("a failing part writes nothing: the session, its event and the entry go together", async () => {
    const s = session();
    await start(s);
    const again = { ...s, workspaceId };
    await expect(start(again, auditInsertSql(record({ target: `${s.id}-dup` })))).rejects.toThrow();
    expect(await entriesFor(`${s.id}-dup`)).toEqual([]);
    expect(await eventsOf(s.id)).toHaveLength(1);
  });

  test("an end changes a live session once, with its events; its audit entry is written either way", async () => {
    const s = session();
    await start(s);
    const endedAt = new Date("2030-01-02T03:05:00.123Z");
    const end = { id: s.id, status: "TIMED_OUT", reason: "IDLE_TIMEOUT", endedAt, endedById: null } as const;
    // A background event still waiting for its batch goes in first, then the final event.
    const waiting = newEvent(s.id, "cdp.disconnected", { clients: 0 }, new Date(endedAt.getTime() - 5));
    const first = await prisma().$queryRaw<Array<{ workspace_id: string }>>(
      endSessionStatement(
        end,
        [waiting, newEvent(s.id, "session.timed_out", { reason: "idle_timeout" }, endedAt)],
        auditInsertSql(record({ target: s.id, action: "session.release", httpStatus: 204 })),
      ),
    );
    expect(first).toEqual([{ workspace_id: workspaceId }]);
    expect(await prisma().session.findUnique({ where: { id: s.id } })).toMatchObject({
      status: "TIMED_OUT",
      endReason: "IDLE_TIMEOUT",
      endedAt,
      endedById: null,
    });
    const second = await prisma().$queryRaw<unknown[]>(
      endSessionStatement(
        { ...end, status: "FAILED", reason: "BROWSER_CRASH" },
        [newEvent(s.id, "cdp.connected", {}, endedAt), newEvent(s.id, "session.failed", {}, endedAt)],
        auditInsertSql(record({ target: s.id, action: "session.release", httpStatus: 204 })),
      ),
    );
    expect(second).toEqual([]);
    expect(await prisma().session.findUnique({ where: { id: s.id } })).toMatchObject({ status: "TIMED_OUT", endReason: "IDLE_TIMEOUT" });
    const events = await eventsOf(s.id);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ["session.running", {}],
      ["cdp.disconnected", { clients: 0 }],
      ["session.timed_out", { reason: "idle_timeout" }],
    ]);
    expect(events.map((e) => e.createdAt)).toEqual([s.createdAt, waiting.createdAt, endedAt]);
    expect(await entriesFor(s.id)).toHaveLength(2);
    // Without an entry: a runtime end (no caller).
    const quiet = session();
    await start(quiet);
    await prisma().$queryRaw(endSessionStatement({ ...end, id: quiet.id }, [newEvent(quiet.id, "session.timed_out", {}, endedAt)], null));
    expect(await prisma().session.findUnique({ where: { id: quiet.id } })).toMatchObject({ status: "TIMED_OUT" });
    expect(await entriesFor(quiet.id)).toEqual([]);
  });

  test("a release reads and ends in one statement: only a live session of the workspace that saves nothing", async () => {
    type Row = { status: string; saves: boolean; ended: boolean };
    const endedAt = new Date("2030-01-02T03:06:00.000Z");
    const release = (id: string, ws: string) =>
      prisma().$queryRaw<Row[]>(
        releaseSessionStatement(
          { id, workspaceId: ws, endedAt },
          [newEvent(id, "cdp.disconnected", { clients: 0 }, endedAt), newEvent(id, "session.released", { reason: "client_release" }, endedAt)],
          (when) => auditInsertSql(record({ target: id, action: "session.release", httpStatus: 204 }), when),
        ),
      );
    const s = session();
    await start(s);
    // Another workspace's session: no row, nothing changed, no entry.
    expect(await release(s.id, otherWorkspaceId)).toEqual([]);
    expect(await release(`ses_${ulid()}`, workspaceId)).toEqual([]);
    expect(await entriesFor(s.id)).toEqual([]);

    expect(await release(s.id, workspaceId)).toEqual([{ status: "RUNNING", saves: false, ended: true }]);
    expect(await prisma().session.findUnique({ where: { id: s.id } })).toMatchObject({
      status: "RELEASED",
      endReason: "CLIENT_RELEASE",
      endedAt,
      endedById: null,
    });
    expect((await eventsOf(s.id)).map((e) => [e.type, e.data])).toEqual([
      ["session.running", {}],
      ["cdp.disconnected", { clients: 0 }],
      ["session.released", { reason: "client_release" }],
    ]);
    expect(await entriesFor(s.id)).toMatchObject([{ action: "session.release", httpStatus: 204, workspaceId }]);

    // Ended already: answered as read, nothing written (the transport audits the call).
    expect(await release(s.id, workspaceId)).toEqual([{ status: "RELEASED", saves: false, ended: false }]);
    expect(await eventsOf(s.id)).toHaveLength(3);
    expect(await entriesFor(s.id)).toHaveLength(1);

    // Saves its profile on release: left running for the caller to save first.
    const saving = session({ saveProfileOnRelease: true });
    await start(saving);
    expect(await release(saving.id, workspaceId)).toEqual([{ status: "RUNNING", saves: true, ended: false }]);
    expect(await prisma().session.findUnique({ where: { id: saving.id } })).toMatchObject({ status: "RUNNING", endedAt: null });
    expect(await eventsOf(saving.id)).toHaveLength(1);
    expect(await entriesFor(saving.id)).toEqual([]);
  });

  test("the recorder writes and publishes a session's events in the order they happened", async () => {
    const s = session();
    await start(s);
    const pubsub = memoryPubSub();
    const heard: string[] = [];
    const unsubscribe = pubsub.subscribe(`session-events:${s.id}`, (message) => void heard.push((JSON.parse(message) as { type: string }).type));
    const recorder = new EventRecorder({ db: t.db, now: () => new Date(), log: createLogger("silent"), pubsub });
    const types = ["cdp.connected", "cdp.disconnected", "cdp.connected", "cdp.refused", "cdp.disconnected"] as const;
    const written = await Promise.all(types.map((type, i) => recorder.record(s.id, type, { clients: i })));
    await recorder.flush();
    unsubscribe();
    expect(written.map((e) => e?.type)).toEqual(types);
    expect(heard).toEqual(types);
    const rows = (await eventsOf(s.id)).slice(1);
    expect(rows.map((e) => [e.type, e.data])).toEqual(types.map((type, i) => [type, { clients: i }]));
    expect(rows.map((e) => e.id)).toEqual(written.map((e) => e!.id));
    // An event for a session that does not exist is logged and answered null, and the chain goes on.
    expect(await recorder.record(`ses_${ulid()}`, "cdp.connected")).toBeNull();
    expect(await recorder.record(s.id, "cdp.connected", { clients: 9 })).toMatchObject({ type: "cdp.connected", data: { clients: 9 } });
  });

  test("one event the database cannot store does not cost the others: escaped or set aside, and counted", async () => {
    const s = session();
    await start(s);
    const metrics = new Metrics();
    const recorder = new EventRecorder(
      { db: t.db, now: () => new Date(), log: createLogger("silent"), pubsub: memoryPubSub(), setAside: metrics.setAside },
      3600_000,
    );
    recorder.later(s.id, "cdp.connected", { clients: 1 });
    // A CDP client's method name with a NUL and a lone surrogate (jsonb refuses both): stored escaped.
    recorder.later(s.id, "cdp.refused", { method: "Page.x\u0000\uD800", reason: "not allowed" });
    // A type the database refuses (NUL in a text column): set aside.
    recorder.later(s.id, "cdp.\u0000" as SessionEventType, {});
    const done = await recorder.record(s.id, "live_view.done", {});
    expect(done?.type).toBe("live_view.done");
    const rows = (await eventsOf(s.id)).slice(1);
    expect(rows.map((e) => [e.type, e.data])).toEqual([
      ["cdp.connected", { clients: 1 }],
      ["cdp.refused", { method: "Page.x\\u0000\\uD800", reason: "not allowed" }],
      ["live_view.done", {}],
    ]);
    expect(await setAsideCount(metrics, "events")).toBe(2);
    // What a session's end takes into its own statement is screened already: it cannot fail that statement.
    recorder.later(s.id, "cdp.refused", { method: "\u0000" });
    expect(recorder.take(s.id).map((e) => e.data)).toEqual([{ method: "\\u0000" }]);
    expect(await setAsideCount(metrics, "events")).toBe(3);
  });

  test("background events wait for their batch, or go with the session's next write, in the order they happened", async () => {
    const [a, b] = [session(), session()];
    await start(a);
    await start(b);
    const pubsub = memoryPubSub();
    const heard: string[] = [];
    const unsubscribe = [a, b].map((s) =>
      pubsub.subscribe(`session-events:${s.id}`, (message) => void heard.push(`${s === a ? "a" : "b"} ${(JSON.parse(message) as { type: string }).type}`)),
    );
    // A batch an hour long: nothing is written until flush() (or the session's next write).
    const recorder = new EventRecorder({ db: t.db, now: () => new Date(), log: createLogger("silent"), pubsub }, 3600_000);
    const typesOf = async (id: string) => (await eventsOf(id)).slice(1).map((e) => e.type);

    recorder.later(a.id, "cdp.connected", { clients: 1 });
    recorder.later(b.id, "cdp.refused", { method: "Page.navigate" });
    recorder.later(a.id, "cdp.disconnected", { clients: 0 });
    expect(await typesOf(a.id)).toEqual([]);
    expect(heard).toEqual([]);
    await recorder.flush();
    expect(await typesOf(a.id)).toEqual(["cdp.connected", "cdp.disconnected"]);
    expect(await typesOf(b.id)).toEqual(["cdp.refused"]);
    expect(heard.filter((h) => h.startsWith("a"))).toEqual(["a cdp.connected", "a cdp.disconnected"]);
    expect(heard).toContain("b cdp.refused");

    // Its batch comes due by itself.
    const quick = new EventRecorder({ db: t.db, now: () => new Date(), log: createLogger("silent"), pubsub }, 20);
    quick.later(b.id, "cdp.connected", { clients: 1 });
    await vi.waitFor(async () => expect(await typesOf(b.id)).toEqual(["cdp.refused", "cdp.connected"]), { timeout: 10_000, interval: 20 });

    // A record() takes the session's waiting events with it, ahead of its own, at once.
    recorder.later(a.id, "cdp.connected", { clients: 1 });
    const done = await recorder.record(a.id, "live_view.done", {});
    expect(done?.type).toBe("live_view.done");
    expect(await typesOf(a.id)).toEqual(["cdp.connected", "cdp.disconnected", "cdp.connected", "live_view.done"]);

    // take() hands them to the caller's statement; putBack() returns them, ahead of newer ones.
    recorder.later(b.id, "egress.refused", { host: "10.0.0.1" });
    const taken = recorder.take(b.id);
    expect(taken.map((e) => e.type)).toEqual(["egress.refused"]);
    expect(recorder.take(b.id)).toEqual([]);
    recorder.later(b.id, "cdp.connected", { clients: 1 });
    recorder.putBack(b.id, taken);
    await recorder.flush();
    expect(await typesOf(b.id)).toEqual(["cdp.refused", "cdp.connected", "egress.refused", "cdp.connected"]);

    // A batch with a session that is gone: the other sessions' events are written all the same.
    recorder.later(`ses_${ulid()}`, "cdp.connected");
    recorder.later(a.id, "cdp.disconnected", { clients: 0 });
    await recorder.flush();
    expect((await typesOf(a.id)).at(-1)).toBe("cdp.disconnected");
    for (const u of unsubscribe) u();
  });
});
