import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Ajv } from "ajv";
import draft06 from "ajv/dist/refs/json-schema-draft-06.json" with { type: "json" };
import { unzipSync } from "fflate";
import harSchema from "har-schema";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCodes, runCli } from "@vessel/client/cli";
import { Vessel } from "@vessel/client";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { ffprobe, hasFfmpeg } from "../support/recordings.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

/**
 * Issue 47, HAR and bundle: a recorded session loads a page with three subresources, a 404 and a
 * redirect; its HAR validates against the HAR 1.2 schema (har-schema) and holds those requests with
 * their statuses, timings and headers (credential values masked); its bundle is refused with 409
 * while the video is written, then unzips to the five parts, the video plays (ffprobe); another
 * workspace gets 404 for both; both are audited; the clients and the CLI fetch them.
 */

const hasChromium = chromiumPath() !== undefined;
if ((!hasChromium || !hasFfmpeg) && servicesRequired) throw new Error("Chromium and ffmpeg are required (VESSEL_REQUIRE_SERVICES=1)");

const SECRET = { authorization: "authz-h4r-51c2", cookie: "ck-h4r-9e0d", query: "qt-h4r-77aa", responseToken: "rt-h4r-3b6f" };
// A 1×1 PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const PAGE = `<!doctype html><title>evidence</title>
<link rel="stylesheet" href="/style.css"><script src="/app.js"></script>
<img src="/logo.png"><img src="/missing.png"><img src="/moved.png">
<script>fetch("/api?token=${SECRET.query}&page=2", { headers: { Authorization: "Bearer ${SECRET.authorization}" } }).then((r) => r.text()).then(() => { window.__done = true; });</script>`;

interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: Array<{ name: string; value: string }>; queryString: Array<{ name: string; value: string }> };
  response: { status: number; redirectURL: string; content: { mimeType: string; size: number }; headers: Array<{ name: string; value: string }> };
  timings: Record<string, number>;
}
interface Har {
  log: { version: string; pages: Array<{ id: string; title: string }>; entries: HarEntry[] };
}

/** The HAR 1.2 schema of har-schema (draft-06), formats checked by hand: ajv-formats is not ours to depend on. */
function harValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(draft06);
  ajv.addFormat("date-time", (s: string) => !Number.isNaN(Date.parse(s)));
  ajv.addFormat("ipv4", (s: string) => net.isIPv4(s));
  ajv.addFormat("ipv6", (s: string) => net.isIPv6(s));
  ajv.addFormat("uri", (s: string) => URL.canParse(s));
  for (const [name, schema] of Object.entries(harSchema)) if (name !== "har") ajv.addSchema(schema);
  return ajv.compile(harSchema.har!);
}

describe.skipIf(!hasChromium || !hasFfmpeg)("a session's HAR and evidence bundle", () => {
  let t: TestApp;
  let ws: Seeded;
  let other: Seeded;
  let site: http.Server;
  let origin: string;
  let id: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    site = http.createServer((req, res) => {
      const route = (req.url ?? "/").split("?")[0];
      if (route === "/page")
        return void res
          .writeHead(200, { "content-type": "text/html", "set-cookie": `sid=${SECRET.cookie}; Path=/`, "x-auth-token": SECRET.responseToken })
          .end(PAGE);
      if (route === "/style.css") return void res.writeHead(200, { "content-type": "text/css" }).end("body { background: #eee }");
      if (route === "/app.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end("window.__app = 1;");
      if (route === "/logo.png" || route === "/final.png") return void res.writeHead(200, { "content-type": "image/png" }).end(PNG);
      if (route === "/moved.png") return void res.writeHead(302, { location: "/final.png" }).end();
      if (route === "/api") return void res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      res.writeHead(404, { "content-type": "text/plain" }).end("no");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", () => resolve()));
    origin = `http://127.0.0.1:${(site.address() as net.AddressInfo).port}`;

    const { res, body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    expect(res.status).toBe(201);
    id = body.id;
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
    const [tab] = await browser.pages();
    await tab!.setCookie({ name: "pc", value: SECRET.cookie, url: origin });
    await tab!.goto(`${origin}/page`, { waitUntil: "load" });
    await tab!.waitForFunction(() => (window as { __done?: boolean }).__done === true);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await browser.disconnect();
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise((resolve) => site?.close(resolve));
  });

  const get = (what: string, key = ws.key) => fetch(`${t.url}/v1/sessions/${id}/${what}`, { headers: bearer(key) });

  it("refuses the bundle with 409 recording-not-ready while the video is being written, then streams the five parts; the video plays", async () => {
    const early = await get("bundle");
    expect(early.status).toBe(409);
    expect(early.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await early.json()) as { type: string }).type).toMatch(/\/errors\/recording-not-ready$/);

    expect((await releaseSession(t, ws.key, id)).status).toBe(204);
    const bundle = await eventually(
      () => get("bundle"),
      (r) => r.status !== 409,
      60_000,
    );
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("application/zip");
    expect(bundle.headers.get("content-disposition")).toContain(`${id}.zip`);
    expect(bundle.headers.get("content-length")).toBeNull();
    const files = unzipSync(new Uint8Array(await bundle.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(["events.json", "logs.ndjson", "recording.mp4", "session.har", "session.json"]);

    const session = JSON.parse(Buffer.from(files["session.json"]!).toString()) as { id: string; status: string; recording: boolean; connect_url: unknown };
    expect(session).toMatchObject({ id, status: "RELEASED", recording: true, connect_url: null });
    const events = JSON.parse(Buffer.from(files["events.json"]!).toString()) as Array<{ type: string; session_id: string }>;
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["session.running", "session.released", "recording.ready"]));
    const lines = Buffer.from(files["logs.ndjson"]!)
      .toString()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq: number; type: string });
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_l, i) => i + 1));
    expect(lines.some((l) => l.type === "network")).toBe(true);
    expect(lines.some((l) => l.type === "navigation")).toBe(true);
    const har = JSON.parse(Buffer.from(files["session.har"]!).toString()) as Har;
    expect(harValidator()(har)).toBe(true);
    expect(har.log.entries.length).toBeGreaterThanOrEqual(7);

    const video = Buffer.from(files["recording.mp4"]!);
    const whole = Buffer.from(await (await get("recording")).arrayBuffer());
    expect(video.equals(whole)).toBe(true);
    const probe = ffprobe(video);
    expect(probe.formatName).toContain("mp4");
    expect(probe.codec).toBe("h264");
    expect(probe.durationSeconds).toBeGreaterThan(0);
  });

  it("answers a HAR 1.2 document, valid by its schema, with the page, its three subresources, the 404 and both hops of the redirect", async () => {
    const res = await get("har");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const har = (await res.json()) as Har;
    const validate = harValidator();
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    expect(har.log.version).toBe("1.2");
    // The validator is no yes-man: an entry without its timings is refused.
    expect(validate({ log: { ...har.log, entries: [{ ...har.log.entries[0], timings: undefined }] } })).toBe(false);

    const page = har.log.pages.find((p) => p.title === `${origin}/page`);
    expect(page).toBeDefined();
    const byPath = (p: string) => har.log.entries.filter((e) => new URL(e.request.url).pathname === p);
    const one = (p: string) => {
      const found = byPath(p);
      expect(found, p).toHaveLength(1);
      return found[0]!;
    };
    expect(one("/page").response).toMatchObject({ status: 200, content: { mimeType: "text/html" } });
    expect(one("/style.css").response).toMatchObject({ status: 200, content: { mimeType: "text/css" } });
    expect(one("/app.js").response.status).toBe(200);
    expect(one("/logo.png").response).toMatchObject({ status: 200, content: { mimeType: "image/png" } });
    expect(one("/missing.png").response.status).toBe(404);
    expect(one("/moved.png").response).toMatchObject({ status: 302, redirectURL: `${origin}/final.png` });
    expect(one("/final.png").response.status).toBe(200);
    for (const p of ["/page", "/style.css", "/app.js", "/logo.png", "/missing.png", "/moved.png", "/final.png"]) {
      const entry = one(p);
      expect(entry.pageref, p).toBe(page!.id);
      expect(entry.time).toBeGreaterThanOrEqual(0);
      const phases = ["blocked", "dns", "connect", "send", "wait", "receive"].map((k) => Math.max(0, entry.timings[k]!));
      expect(Math.abs(phases.reduce((a, b) => a + b, 0) - entry.time)).toBeLessThan(0.5);
      expect(entry.request.headers.length, p).toBeGreaterThan(0);
    }
    expect(one("/logo.png").response.content.size).toBeGreaterThan(0);
    // In order of their start.
    const starts = har.log.entries.map((e) => e.startedDateTime);
    expect([...starts].sort()).toEqual(starts);

    // Header names kept; credential values masked by the logs' rule; nothing secret anywhere.
    const api = one("/api");
    expect(api.request.headers.find((h) => h.name.toLowerCase() === "authorization")?.value).toBe("[redacted]");
    expect(api.request.queryString).toEqual(
      expect.arrayContaining([
        { name: "token", value: "[redacted]" },
        { name: "page", value: "2" },
      ]),
    );
    const pageHeaders = one("/page").response.headers;
    expect(pageHeaders.find((h) => h.name.toLowerCase() === "x-auth-token")?.value).toBe("[redacted]");
    expect(pageHeaders.find((h) => h.name.toLowerCase() === "content-type")?.value).toBe("text/html");
    // Chromium hands Set-Cookie over apart (not read): when it is there, its value is masked.
    for (const h of pageHeaders.filter((h) => h.name.toLowerCase() === "set-cookie")) expect(h.value).toBe("[redacted]");
    const text = JSON.stringify(har);
    for (const secret of Object.values(SECRET)) expect(text.includes(secret), secret).toBe(false);
  });

  it("is 404 for another workspace and audited for every read", async () => {
    expect((await get("har", other.key)).status).toBe(404);
    expect((await get("bundle", other.key)).status).toBe(404);
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    const stranger = await seedUser(t, other.workspace.id, "OWNER");
    expect((await fetch(`${t.url}/v1/sessions/${id}/bundle`, { headers: userAuth(stranger) })).status).toBe(404);
    expect((await fetch(`${t.url}/v1/sessions/${id}/har`, { headers: userAuth(member) })).status).toBe(200);
    await t.app.deps.audit.flush();
    const bundles = await t.app.deps.db.prisma.auditEntry.findMany({ where: { action: "session.bundle.read", target: id } });
    expect(bundles.map((r) => r.httpStatus)).toEqual(expect.arrayContaining([200, 409, 404]));
    const hars = await t.app.deps.db.prisma.auditEntry.findMany({ where: { action: "session.har.read", target: id } });
    expect(hars.map((r) => r.httpStatus)).toEqual(expect.arrayContaining([200, 404]));
  });

  it("is fetched by the TS client and the CLI, and named by GraphQL", async () => {
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const har = (await vessel.sessions.har(id)) as unknown as Har;
    expect(har.log.entries.length).toBeGreaterThanOrEqual(7);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-bundle-"));
    const to = path.join(dir, "b.zip");
    const written = await vessel.sessions.bundle(id, { to });
    expect(written).toBe(fs.statSync(to).size);
    expect(Object.keys(unzipSync(fs.readFileSync(to))).length).toBe(5);

    const out: string[] = [];
    const io = {
      out: (line: string) => out.push(line),
      err: (line: string) => out.push(line),
      interactive: false,
      env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url },
    };
    const cliZip = path.join(dir, "cli.zip");
    expect(await runCli(["sessions", "bundle", id, "-o", cliZip], io)).toBe(exitCodes.ok);
    expect(Object.keys(unzipSync(fs.readFileSync(cliZip))).sort()).toEqual(["events.json", "logs.ndjson", "recording.mp4", "session.har", "session.json"]);
    const cliHar = path.join(dir, "s.har");
    expect(await runCli(["sessions", "har", id, "-o", cliHar], io)).toBe(exitCodes.ok);
    expect((JSON.parse(fs.readFileSync(cliHar, "utf8")) as Har).log.version).toBe("1.2");

    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({
        query: `query($id: String!) { sessionHar(id: $id) { url entries pages } sessionBundle(id: $id) { url parts } }`,
        variables: { id },
      }),
    });
    const data = ((await gql.json()) as { data: { sessionHar: { url: string; entries: number }; sessionBundle: { url: string; parts: string[] } } }).data;
    expect(data.sessionHar.url).toMatch(new RegExp(`/v1/sessions/${id}/har$`));
    expect(data.sessionHar.entries).toBe(har.log.entries.length);
    expect(data.sessionBundle).toMatchObject({
      url: expect.stringMatching(new RegExp(`/v1/sessions/${id}/bundle$`)),
      parts: expect.arrayContaining(["recording.mp4"]),
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
