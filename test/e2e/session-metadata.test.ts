import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@vessel/client/cli";
import { Vessel } from "@vessel/client";
import { monotonicFactory } from "../../src/ids.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

type Listed = { items: Array<{ id: string; metadata: Record<string, string> }>; next_cursor: string | null; has_more: boolean };

describe.skipIf(!hasChromium)("session metadata", () => {
  let t: TestApp;
  let ws: Seeded;
  let other: Seeded;
  const made: Array<{ id: string; team: string; run: string }> = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "3", VESSEL_LOGS: "false" } });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    // 60 sessions over three teams. The first 4 (every team, every run) go through the API, each
    // released at once so the node never runs more than one; the other 56 are copies of the last
    // one's row with ids of their own (later ULIDs): a browser each (a launch after each release)
    // would add a minute to the suite and nothing to what a list finds.
    const teams = ["qa", "web", "data"];
    const metadataOf = (i: number) => ({ team: teams[i % 3]!, run: String(i % 4), "build.id": `b-${i}` });
    for (let i = 0; i < 4; i++) {
      const metadata = metadataOf(i);
      const { res, body } = await createSession(t, ws.key, { region: "us-east1", metadata });
      expect(res.status).toBe(201);
      expect(body).toMatchObject({ metadata });
      made.push({ id: body.id, team: metadata.team, run: metadata.run });
      expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    }
    const { prisma } = t.app.deps.db;
    // `browser` (no settings given: null) is left to its default, as Prisma takes no plain null for JSON.
    const { browser: _, ...template } = await prisma.session.findUniqueOrThrow({ where: { id: made.at(-1)!.id } });
    expect(_).toBeNull();
    const laterId = monotonicFactory();
    const copies = Array.from({ length: 56 }, (_, k) => ({ ...template, options: {}, id: `ses_${laterId()}`, metadata: metadataOf(4 + k) }));
    await prisma.session.createMany({ data: copies });
    made.push(...copies.map((c) => ({ id: c.id, team: c.metadata.team, run: c.metadata.run })));
  }, 180_000);
  afterAll(async () => t?.stop());

  async function list(key: string, query: string): Promise<{ status: number; body: Listed }> {
    const res = await fetch(`${t.url}/v1/sessions?${query}`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as Listed };
  }

  /** Every page of the filtered list, `limit` at a time. */
  async function walk(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const { status, body } = await list(ws.key, `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(status).toBe(200);
      expect(body.items.length).toBeLessThanOrEqual(limit);
      ids.push(...body.items.map((s) => s.id));
      if (!body.has_more) return ids;
      cursor = body.next_cursor;
    }
    throw new Error("the list did not end");
  }

  it("walks exactly the matching sessions, in ULID order, 7 at a time", async () => {
    for (const team of ["qa", "web", "data"]) {
      const expected = made.filter((m) => m.team === team).map((m) => m.id);
      expect(expected).toHaveLength(20);
      expect(await walk(`metadata[team]=${team}`, 7)).toEqual(expected);
    }
  });

  it("needs every key given to match", async () => {
    const expected = made.filter((m) => m.team === "qa" && m.run === "2").map((m) => m.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(await walk("metadata[team]=qa&metadata[run]=2", 7)).toEqual(expected);
    expect(await walk("metadata[team]=qa&metadata[run]=nope", 7)).toEqual([]);
    expect(await walk("metadata[team]=nobody", 7)).toEqual([]);
  });

  it("is the workspace's own: another workspace's filter finds nothing and its session shows none", async () => {
    expect((await list(other.key, "metadata[team]=qa")).body.items).toEqual([]);
    const { body } = await createSession(t, other.key, { region: "us-east1" });
    expect((body as unknown as { metadata: object }).metadata).toEqual({});
    await releaseSession(t, other.key, body.id);
  });

  it("refuses bad keys, bad values and too many entries with 400, creating nothing", async () => {
    const before = await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } });
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]));
    for (const metadata of [
      { Team: "qa" },
      { "a b": "x" },
      { ["k".repeat(65)]: "v" },
      { team: "x".repeat(513) },
      { team: 42 },
      tooMany,
      ["team"],
      JSON.parse('{"__proto__": "qa"}') as object,
    ]) {
      const { res, body } = await createSession(t, ws.key, { region: "us-east1", metadata });
      expect(res.status, JSON.stringify(metadata).slice(0, 60)).toBe(400);
      expect((body as unknown as { type: string }).type).toMatch(/\/errors\/validation-failed$/);
    }
    expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(before);
    for (const query of ["metadata[Team]=qa", "metadata[team]=a&metadata[team]=b", "metadata=qa&metadata[team]=qa", "metadata[__proto__]=qa"]) {
      expect((await list(ws.key, query)).status, query).toBe(400);
    }
  });

  it("is part of the idempotency fingerprint", async () => {
    const key = crypto.randomUUID();
    const first = await createSession(t, ws.key, { region: "us-east1", metadata: { team: "qa" } }, key);
    expect(first.res.status).toBe(201);
    const changed = await createSession(t, ws.key, { region: "us-east1", metadata: { team: "web" } }, key);
    expect(changed.res.status).toBe(422);
    const replay = await createSession(t, ws.key, { region: "us-east1", metadata: { team: "qa" } }, key);
    expect(replay.res.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    await releaseSession(t, ws.key, first.body.id);
  });

  it("is served and filtered over GraphQL too", async () => {
    const query = `query($m: [MetadataEntryInput!]) { sessions(metadata: $m, limit: 100) { items { id metadata { key value } } } }`;
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({
        query,
        variables: {
          m: [
            { key: "team", value: "web" },
            { key: "run", value: "1" },
          ],
        },
      }),
    });
    const body = (await res.json()) as { data: { sessions: { items: Array<{ id: string; metadata: Array<{ key: string; value: string }> }> } } };
    const expected = made.filter((m) => m.team === "web" && m.run === "1").map((m) => m.id);
    expect(body.data.sessions.items.map((s) => s.id)).toEqual(expected);
    expect(body.data.sessions.items[0]?.metadata.map((e) => e.key)).toEqual(["build.id", "run", "team"]);

    // A key zod would leave out of the object (so the filter would be ignored) is refused, as over REST.
    const proto = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({ query, variables: { m: [{ key: "__proto__", value: "web" }] } }),
    });
    const refused = (await proto.json()) as { data: unknown; errors?: Array<{ extensions?: { code?: string } }> };
    expect(refused.errors?.[0]?.extensions?.code).toBe("VALIDATION_FAILED");
  });

  it("is a filter of the client library and of the command line", async () => {
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const ids: string[] = [];
    for await (const s of vessel.sessions.list({ metadata: { team: "data", run: "3" }, limit: 2 })) ids.push(s.id);
    expect(ids).toEqual(made.filter((m) => m.team === "data" && m.run === "3").map((m) => m.id));

    const out: string[] = [];
    const cli = (argv: string[]) =>
      runCli(argv, { out: (line) => out.push(line), err: () => {}, interactive: false, env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url } });
    expect(await cli(["sessions", "list", "--metadata", "team=data", "--metadata", "run=3", "--json"])).toBe(0);
    expect((JSON.parse(out.join("\n")) as Array<{ id: string }>).map((s) => s.id)).toEqual(ids);
    out.length = 0;
    expect(await cli(["sessions", "create", "--region", "us-east1", "--metadata", "team=cli", "--json"])).toBe(0);
    const created = JSON.parse(out.join("\n")) as { id: string; metadata: Record<string, string> };
    expect(created.metadata).toEqual({ team: "cli" });
    await releaseSession(t, ws.key, created.id);
    expect(await cli(["sessions", "list", "--metadata", "nonsense"])).not.toBe(0);
  });
});
