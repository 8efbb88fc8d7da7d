import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@vessel/client/cli";
import { createLogger } from "../../src/logger.ts";
import { seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";

/** Issue 25: a caller's mistakes (4xx) are not the server's; the log keeps error level for the server's own failures. */
describe("the server log and client errors", () => {
  let t: TestApp;
  const lines: Array<{ level: number; msg: string; err?: { stack?: string } }> = [];
  beforeAll(async () => {
    const log = createLogger(
      "debug",
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(JSON.parse(String(chunk)));
          cb();
        },
      }),
    );
    t = await startTestApp({ log, users: undefined });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const gql = async (query: string, headers: Record<string, string> = {}) =>
    (
      await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query }) })
    ).json() as Promise<{
      errors?: Array<{ extensions?: { code?: string } }>;
    }>;

  it("logs unauthenticated, not found and validation errors at debug, without a stack; a signed-out dashboard visit logs no error", async () => {
    const { key } = await seedWorkspace(t);
    const auth = { authorization: `Bearer ${key}` };
    const before = lines.length;
    // What the dashboard does signed out: its page, then `me`, then a refresh without a cookie.
    expect((await fetch(`${t.url}/dashboard/`)).status).toBe(200);
    expect((await gql("{ me { id } }")).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    expect((await gql("mutation { refreshSignIn { accessTokenExpiresAt } }")).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    expect((await gql(`{ session(id: "ses_01J00000000000000000000000") { id } }`, auth)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gql(`{ sessions(limit: 0) { items { id } } }`, auth)).errors?.[0]?.extensions?.code).toMatch(/BAD_USER_INPUT|VALIDATION/);
    expect((await gql("{ nosuchfield }", auth)).errors?.[0]).toBeDefined();
    const logged = lines.slice(before);
    expect(logged.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
    expect(logged.filter((l) => l.err?.stack)).toEqual([]);
    expect(logged.some((l) => l.level === 20 && /^client error: /.test(l.msg))).toBe(true);
  });

  it("takes enum query values in any case and names the rule and the allowed values when refusing; no stack for any 4xx", async () => {
    const { key } = await seedWorkspace(t);
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const before = lines.length;
    const list = await fetch(`${t.url}/v1/sessions?status=running`, { headers: auth });
    expect(list.status).toBe(200);
    // The command line passes what was typed: `vessel sessions list --status running`.
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(["sessions", "list", "--status", "running", "--json"], {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      interactive: false,
      env: { VESSEL_API_KEY: key, VESSEL_BASE_URL: t.url },
    });
    expect({ code, err }).toEqual({ code: 0, err: [] });
    const bad = await fetch(`${t.url}/v1/sessions?status=sleeping`, { headers: auth });
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as { errors: Array<{ field: string; message: string }> };
    expect(badBody.errors[0]).toMatchObject({ field: "query.status", message: expect.stringContaining("RUNNING") });
    const created = await fetch(`${t.url}/v1/sessions`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({ metadata: { Team: "qa" } }),
    });
    expect(created.status).toBe(400);
    const fields = ((await created.json()) as { errors: Array<{ field: string; message: string }> }).errors;
    expect(fields.find((f) => f.field === "body.region")?.message).toMatch(/required.*us-east1/);
    expect(fields.find((f) => f.field === "body.metadata.Team")?.message).toMatch(/lower case/);
    // What the dashboard sends for `?status=released` typed into its address (before it learnt to fold the case).
    const r = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        query: "query Sessions($status: SessionStatus) { sessions(status: $status) { items { id } } }",
        variables: { status: "released" },
      }),
    });
    expect(r.status).toBeLessThan(500);
    const logged = lines.slice(before);
    expect(logged.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
    expect(logged.filter((l) => l.err?.stack)).toEqual([]);
  });

  it("says when no sign-in mail went out (no SMTP, an address that may not sign in), without the address", async () => {
    const before = lines.length;
    const r = await gql(`mutation { requestSignIn(email: "stranger@nowhere.example", codeChallenge: "${"a".repeat(43)}") { linkLifetimeSeconds } }`, {
      "sec-fetch-site": "same-origin",
    });
    expect(r.errors).toBeUndefined();
    const said = lines.slice(before).filter((l) => /no sign-in mail sent/.test(l.msg));
    expect(said).toHaveLength(1);
    expect(said[0]!.level).toBe(40);
    expect(JSON.stringify(said[0])).toContain("nowhere.example");
    expect(JSON.stringify(lines.slice(before))).not.toContain("stranger@");
  });
});
