import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
