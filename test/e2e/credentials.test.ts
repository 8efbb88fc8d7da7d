import { randomBytes, randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { addKey, bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { startFrameCapture, type FrameCapture } from "../support/frame-capture.ts";
import { startLoginSite, type LoginSite } from "../support/login-site.ts";
import { createSession, type SessionBody } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const base32Secret = () => Array.from(randomBytes(32), (b) => BASE32[b % 32]).join("");

interface CredentialBody {
  id: string;
  name: string;
  origins: string[];
  username_hint: string;
  has_totp: boolean;
  created_at: string;
  last_used_at: string | null;
}

describe.skipIf(!hasChromium)("credentials: logins the agent never sees", () => {
  let t: TestApp;
  let a: Seeded;
  let b: Seeded;
  let plainKey: string;
  let site: LoginSite;
  let other: LoginSite;
  let capture: FrameCapture | undefined;
  let browser: Browser | undefined;
  const logs: string[] = [];
  const secret = { username: `agent-${randomUUID()}@example.com`, password: `pw-${randomUUID()}`, totpSecret: base32Secret() };
  const planted = [secret.password, secret.totpSecret];
  let credential: CredentialBody;
  /** Every answer of the API the test read, as text, to search for the secrets at the end. */
  const answers: string[] = [];

  beforeAll(async () => {
    other = await startLoginSite(secret, { host: "localhost" });
    site = await startLoginSite(secret, { frameSrc: `${other.origin}/login` });
    const log = createLogger(
      "debug",
      new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    );
    t = await startTestApp({ log, env: { VESSEL_BROWSER_CAPACITY: "3", VESSEL_MASTER_KEY: randomBytes(32).toString("base64") } });
    a = await seedWorkspace(t, { scopes: ["credentials:use", "credentials:manage"] });
    b = await seedWorkspace(t, { scopes: ["credentials:use", "credentials:manage"] });
    plainKey = (await addKey(t, a.workspace.id)).key;
    const res = await api("POST", "/v1/credentials", { name: "fixture", origins: [`${site.origin}/`], ...credentialSecrets() });
    expect(res.status).toBe(201);
    credential = (await res.json()) as CredentialBody;
  });
  afterAll(async () => {
    await t?.stop();
    await site?.close();
    await other?.close();
  });
  afterEach(async () => {
    await browser?.disconnect().catch(() => {});
    browser = undefined;
    await capture?.close();
    capture = undefined;
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "FORCE_STOP" });
  });

  const credentialSecrets = () => ({ username: secret.username, password: secret.password, totp_secret: secret.totpSecret });
  async function api(method: string, path: string, body?: unknown, key = a.key): Promise<Response> {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    answers.push(await res.clone().text());
    return res;
  }
  const fill = (session: string, body: Record<string, unknown> = {}, key = a.key, id = credential.id) =>
    api("POST", `/v1/sessions/${session}/credentials/${id}/fill`, body, key);

  /** A session with the agent's Puppeteer connected through a relay that keeps every CDP frame. */
  async function agentSession(): Promise<{ session: SessionBody; browser: Browser }> {
    const { res, body } = await createSession(t, a.key);
    expect(res.status).toBe(201);
    capture = await startFrameCapture(body.connect_url!);
    browser = await puppeteer.connect({ browserWSEndpoint: capture.url, defaultViewport: null });
    return { session: body, browser };
  }

  it("creates, lists and reads a credential without ever answering a secret", async () => {
    expect(credential).toMatchObject({ name: "fixture", origins: [site.origin], has_totp: true, last_used_at: null });
    expect(credential.id).toMatch(/^cred_/);
    expect(credential.username_hint).toMatch(/^ag•••@example\.com$/);
    const list = (await (await api("GET", "/v1/credentials")).json()) as { items: CredentialBody[] };
    expect(list.items.map((c) => c.id)).toEqual([credential.id]);
    expect((await api("GET", `/v1/credentials/${credential.id}`)).status).toBe(200);
    const dup = await api("POST", "/v1/credentials", { name: "fixture", origins: [site.origin], ...credentialSecrets() });
    expect(dup.status).toBe(409);
    const bad = await api("POST", "/v1/credentials", { name: "x", origins: ["https://a.example/path"], ...credentialSecrets(), totp_secret: "not base32!" });
    expect(bad.status).toBe(400);
  });

  it("fills through real key presses, submits, and the site signs in; the agent's CDP socket never carried a secret", async () => {
    const { session, browser } = await agentSession();
    const [page] = await browser.pages();
    await page!.goto(`${site.origin}/login`);
    const typed = await fill(session.id, { submit: false });
    expect(typed.status).toBe(200);
    expect(await typed.json()).toEqual({ filled: ["username", "password", "totp"], origin: site.origin });
    // The page saw a trusted keydown per character typed (the code has 6 digits).
    expect(await page!.evaluate(() => (window as unknown as { keys: number }).keys)).toBe(secret.username.length + secret.password.length + 6);

    const signed = await fill(session.id, { submit: true });
    expect(signed.status).toBe(200);
    await page!.waitForSelector("#welcome");
    expect(site.signIns.at(-1)).toMatchObject({ username: secret.username, password: secret.password, ok: true });

    const frames = capture!.frames.join("\n");
    expect(frames.length).toBeGreaterThan(1000);
    for (const value of [secret.username, secret.password, secret.totpSecret, encodeURIComponent(secret.username)]) expect(frames).not.toContain(value);
    // Nor in base64, as Chromium sends request bodies in postDataEntries.
    expect(frames).not.toContain(Buffer.from(`password=${secret.password}`).toString("base64").slice(4, 40));
    expect(frames).toContain('"hasPostData":true');
    const stored = await t.app.deps.db.prisma.credential.findUniqueOrThrow({ where: { id: credential.id } });
    expect(stored.lastUsedAt).not.toBeNull();
  });

  it("refuses a tab of another origin (422), leaves a cross-origin frame alone, and logs the fill as one CDP entry", async () => {
    const { session, browser } = await agentSession();
    const [page] = await browser.pages();
    await page!.goto(`${other.origin}/login`);
    const mismatch = await fill(session.id, { submit: true });
    expect(mismatch.status).toBe(422);
    expect(((await mismatch.json()) as { type: string }).type).toMatch(/\/credential-origin-mismatch$/);

    await page!.goto(`${site.origin}/framed`);
    const frame = (await (await page!.waitForSelector("#login"))!.contentFrame())!;
    await frame.waitForSelector("input[name=password]");
    const framed = await fill(session.id, { submit: true });
    expect(framed.status).toBe(200);
    expect(await framed.json()).toEqual({ filled: [], origin: site.origin });
    expect(await frame.$$eval("input", (inputs) => inputs.map((i) => (i as HTMLInputElement).value.length))).toEqual([0, 0, 0]);
    expect(other.posts).toEqual([]);

    // The session's log is written behind the calls: read until both fills are in it.
    await expect
      .poll(async () => {
        const read = await api("GET", `/v1/sessions/${session.id}/logs?type=cdp&limit=500`);
        return (await read.text()).match(/Vessel\.fillCredential/g)?.length ?? 0;
      })
      .toBe(2);
  });

  it("fills the tab the agent drove (the session's one active tab), not the one loaded last", async () => {
    const { session, browser } = await agentSession();
    const [login] = await browser.pages();
    await login!.goto(`${site.origin}/login`);
    // Loaded after the login page: the tab a "loaded last" guess would pick.
    const elsewhere = await browser.newPage();
    await elsewhere.goto(`${other.origin}/login`);
    const values = (page: typeof elsewhere) => page.$$eval("input", (inputs) => inputs.map((i) => (i as HTMLInputElement).value.length));

    // Clicking drives the login tab without bringing it to the front.
    await login!.click("form");
    const filled = await fill(session.id, { submit: false });
    expect(filled.status).toBe(200);
    expect(await filled.json()).toEqual({ filled: ["username", "password", "totp"], origin: site.origin });
    expect(await values(login!)).toEqual([secret.username.length, secret.password.length, 6]);
    // The same tab as the session's page (and so the live view and the recording).
    const query = { query: "query ($id: String!) { session(id: $id) { currentPage { url } } }", variables: { id: session.id } };
    const view = (await (await api("POST", "/graphql", query)).json()) as { data: { session: { currentPage: { url: string } | null } } };
    expect(view.data.session.currentPage?.url).toBe(`${site.origin}/login`);

    // Now the agent works in the other origin's tab: the fill refuses it and types nowhere.
    await elsewhere.click("body");
    const refused = await fill(session.id, { submit: true });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { type: string }).type).toMatch(/\/credential-origin-mismatch$/);
    expect(await values(elsewhere)).toEqual([0, 0, 0]);
    expect(other.posts).toEqual([]);
  });

  it("keeps workspaces apart (404) and needs the scopes (403)", async () => {
    const { session } = await agentSession();
    expect((await api("GET", `/v1/credentials/${credential.id}`, undefined, b.key)).status).toBe(404);
    const listB = (await (await api("GET", "/v1/credentials", undefined, b.key)).json()) as { items: unknown[] };
    expect(listB.items).toEqual([]);
    expect((await fill(session.id, {}, b.key)).status).toBe(404);
    expect((await api("DELETE", `/v1/credentials/${credential.id}`, undefined, b.key)).status).toBe(404);
    expect((await fill(session.id, {}, plainKey)).status).toBe(403);
    expect((await api("POST", "/v1/credentials", { name: "n", origins: [site.origin], ...credentialSecrets() }, plainKey)).status).toBe(403);
    expect((await api("PATCH", `/v1/credentials/${credential.id}`, { password: "x" }, plainKey)).status).toBe(403);
  });

  it("MCP: fill_credential by name signs in through the SDK's client", async () => {
    const { session, browser } = await agentSession();
    const [page] = await browser.pages();
    await page!.goto(`${site.origin}/login`);
    const client = new Client({ name: "vessel-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(a.key) } }));
    try {
      const before = site.signIns.length;
      const result = await client.callTool({ name: "fill_credential", arguments: { session_id: session.id, credential: "fixture", submit: true } });
      answers.push(JSON.stringify(result));
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ filled: ["username", "password", "totp"], origin: site.origin });
      await page!.waitForSelector("#welcome");
      expect(site.signIns.length).toBe(before + 1);
      expect(site.signIns.at(-1)!.ok).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("GraphQL answers no secret either, and PATCH replaces secrets", async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { ...bearer(a.key), "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      const text = await res.text();
      answers.push(text);
      return JSON.parse(text) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    const listed = await gql("{ credentials { items { id name origins usernameHint hasTotp lastUsedAt } } }");
    expect(listed.errors).toBeUndefined();
    const created = await gql("mutation($input: CreateCredentialInput!) { createCredential(input: $input) { id name hasTotp } }", {
      input: { name: "gql", origins: [site.origin], username: secret.username, password: secret.password, totpSecret: secret.totpSecret },
    });
    expect(created.errors).toBeUndefined();
    const id = (created.data!.createCredential as { id: string }).id;
    const patched = await api("PATCH", `/v1/credentials/${id}`, { totp_secret: null, name: "gql-renamed" });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ name: "gql-renamed", has_totp: false });
    expect((await api("DELETE", `/v1/credentials/${id}`)).status).toBe(204);
  });

  it("the planted password and TOTP secret are nowhere: answers, server log, session logs, audit rows, the database's bytes", async () => {
    const all = answers.join("\n") + logs.join("\n");
    for (const value of planted) expect(all).not.toContain(value);
    const audit = await t.app.deps.db.prisma.auditEntry.findMany({ where: { action: { startsWith: "credential." } } });
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(["credential.create", "credential.fill", "credential.update", "credential.delete"]));
    const prisma = t.app.deps.db.prisma;
    const tables = await prisma.$queryRawUnsafe<Array<{ name: string }>>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    expect(tables.map((x) => x.name)).toContain("credentials");
    let dump = "";
    for (const { name } of tables) {
      const rows = await prisma.$queryRawUnsafe<Array<{ j: string }>>(`SELECT row_to_json(x)::text AS j FROM "${name}" x`);
      dump += rows.map((r) => r.j).join("\n");
    }
    expect(dump.length).toBeGreaterThan(1000);
    for (const value of planted) {
      expect(dump).not.toContain(value);
      expect(dump).not.toContain(Buffer.from(value).toString("hex"));
    }
  });
});
