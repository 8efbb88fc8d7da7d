import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";

// security.md H46, token-in-URL hygiene: a page whose address carries a credential leaks it to no
// one (no Referer, no cache, no framing), the log holds `token=[redacted]` and never the token, no
// audit row holds it, and a token in the query string is no credential on any REST route (RFC 6750
// §2.3, CWE-598): `?token=<valid JWT>` answers 401. The e2e live-view test checks the same headers
// on the page of a running session, and the log across a whole viewing.

let t: TestApp;
let seeded: Seeded;
const logLines: string[] = [];
let cdpToken: string;
let liveToken: string;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  t = await startTestApp({ log: createLogger("debug", sink) });
  seeded = await seedWorkspace(t);
  const expiresAt = new Date(Date.now() + 600_000);
  // Valid signatures for a session that does not exist: the token itself is good, only its use is wrong.
  const sessionId = "ses_01JZZZZZZZZZZZZZZZZZZZZZZZ";
  cdpToken = await t.app.deps.tokens.mint({ sessionId, workspaceId: seeded.workspace.id, audience: "cdp", expiresAt });
  liveToken = await t.app.deps.tokens.mint({ sessionId, workspaceId: seeded.workspace.id, audience: "live-view", expiresAt });
});
afterAll(async () => t?.stop());

describe("H46: token-in-URL hygiene", () => {
  it("the live view's pages (a link's page, refused or not, and the page a reload lands on) leak nothing of their address", async () => {
    for (const path of [`/?token=${liveToken}`, "/?token=not-a-token", "/live-view"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(res.headers.get("cache-control"), path).toBe("no-store");
      expect(res.headers.get("content-security-policy"), path).toMatch(/frame-ancestors 'self'/);
      expect(await res.text(), path).not.toContain(liveToken);
    }
  });

  it("a valid connect token in the query string is not a credential on any REST route: 401", async () => {
    for (const token of [cdpToken, liveToken]) {
      for (const path of [
        "/v1/health",
        "/v1/sessions",
        "/v1/sessions/ses_01JZZZZZZZZZZZZZZZZZZZZZZZ",
        "/api/v1/profiles",
        `/v1/dashboard/ws/${seeded.workspace.slug}/api-keys`,
      ]) {
        const res = await fetch(`${t.url}${path}?token=${token}`);
        expect(res.status, path).toBe(401);
        expect(res.headers.get("content-type"), path).toMatch(/^application\/problem\+json/);
        expect(await res.text(), path).not.toContain(token);
      }
    }
    // The same routes with the key answer: what was refused was the credential's place, not the route.
    expect((await fetch(`${t.url}/v1/sessions?token=${cdpToken}`, { headers: bearer(seeded.key) })).status).toBe(200);
  });

  it("the log and the audit log hold `token=[redacted]`, never the token", async () => {
    for (const path of [
      `/?token=${liveToken}`,
      `/cdp/json/version?token=${cdpToken}`,
      `/v1/sessions?token=${cdpToken}`,
      `/graphql?token=${cdpToken}&query={__typename}`,
    ]) {
      await (await fetch(`${t.url}${path}`)).text();
    }
    await t.app.deps.audit.flush();
    const log = logLines.join("");
    expect(log).toContain("token=[redacted]");
    for (const token of [cdpToken, liveToken]) expect(log.includes(token)).toBe(false);
    const rows = JSON.stringify(await t.app.deps.db.prisma.auditEntry.findMany({ where: { workspaceId: seeded.workspace.id } }));
    for (const token of [cdpToken, liveToken]) expect(rows.includes(token)).toBe(false);
  });
});
