import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { chromium } from "playwright-core";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Vessel } from "@vessel/client";
import { createLogger } from "../../src/logger.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

/** security.md I49–I55 through real CDP clients: what a session's browser may reach and ask for. */
describe.skipIf(!hasChromium)("the browser policy", () => {
  let t: TestApp;
  let ws: Seeded;
  // 127.0.0.2 plays a public site (the only allowlisted address); 127.0.0.1 is this machine.
  let publicSite: http.Server;
  let publicUrl: string;
  let otherService: http.Server;
  let otherPort: number;
  const otherServiceHits: string[] = [];
  const logLines: string[] = [];
  const bigServed = { aborted: false };
  let browser: Browser | undefined;

  beforeAll(async () => {
    publicSite = http.createServer((req, res) => {
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="big.bin"' });
        const chunk = Buffer.alloc(256 * 1024, 7);
        let sent = 0;
        bigServed.aborted = false;
        res.once("close", () => (bigServed.aborted = sent < 64));
        const timer = setInterval(() => {
          if (sent++ >= 64 || res.destroyed) return void (clearInterval(timer), res.end());
          res.write(chunk);
        }, 15);
        return;
      }
      if (req.url === "/download") {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="report.txt"' });
        res.end("report body");
        return;
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<title>public</title><a id="dl" href="/download" download>download</a><p>${req.headers.host}</p>`);
    });
    otherService = http.createServer((req, res) => {
      otherServiceHits.push(req.url ?? "");
      res.end("internal secret");
    });
    publicUrl = `http://127.0.0.2:${await listen(publicSite, "127.0.0.2")}`;
    otherPort = await listen(otherService, "127.0.0.1");
    const sink = { write: (line: string) => void logLines.push(line) };
    t = await startTestApp({
      env: { VESSEL_EGRESS_ALLOW: "127.0.0.2/32", VESSEL_DOWNLOAD_MAX_BYTES: "4194304", LOG_LEVEL: "debug" },
      log: createLogger("debug", sink as never),
    });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    publicSite?.close();
    otherService?.close();
  });
  afterEach(async () => {
    await browser?.disconnect().catch(() => {});
    browser = undefined;
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  async function session(body: Record<string, unknown> = {}): Promise<{ id: string; page: Page; browser: Browser }> {
    const { res, body: s } = await createSession(t, ws.key, { region: "us-east1", ...body });
    expect(res.status).toBe(201);
    browser = await puppeteer.connect({ browserWSEndpoint: s.connect_url! });
    const page = await browser.newPage();
    return { id: s.id, page, browser };
  }

  const eventsOf = async (id: string, type: string) =>
    (await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: id, type }, orderBy: { id: "asc" } })).map(
      (e) => e.data as Record<string, unknown>,
    );

  it("loads an allowlisted site, and refuses this machine, other loopback services, metadata, private ranges and names that resolve to loopback", async () => {
    const { id, page, browser: b } = await session();
    const ok = await page.goto(`${publicUrl}/`);
    expect(ok?.status()).toBe(200);
    expect(await page.title()).toBe("public");

    const refused = [
      t.url, // Vessel itself
      `http://127.0.0.1:${otherPort}/`,
      `http://localhost:${otherPort}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      `http://[::1]:${otherPort}/`,
    ];
    for (const url of refused) {
      await expect(page.goto(url, { timeout: 10_000 }), url).rejects.toThrow(/net::ERR_/);
    }
    // A page script gets no further than the navigation did (a fresh tab: the last one shows an error page).
    const scripted = await b.newPage();
    await scripted.goto(`${publicUrl}/`);
    const fetched = await scripted.evaluate(
      async (u) =>
        fetch(u).then(
          (r) => r.text(),
          (e: Error) => `failed: ${e.message}`,
        ),
      `http://127.0.0.1:${otherPort}/x`,
    );
    expect(fetched).toMatch(/^failed/);
    expect(otherServiceHits).toEqual([]);

    const egress = await eventually(
      () => eventsOf(id, "egress.refused"),
      (e) => e.length >= refused.length,
    );
    expect(egress.map((e) => e.host)).toEqual(expect.arrayContaining(["127.0.0.1", "localhost", "169.254.169.254", "10.0.0.1"]));
  });

  it("refuses file:// and browser-internal pages with a CDP error, and the connection keeps working", async () => {
    const { id, page, browser: b } = await session();
    await expect(page.goto("file:///etc/passwd")).rejects.toThrow(/Vessel policy: Page\.navigate refused/);
    // However it is spelled: schemes are case-insensitive, and URL parsers drop tabs.
    await expect(page.goto("FILE:///etc/passwd")).rejects.toThrow(/Vessel policy: Page\.navigate refused/);
    await expect(page.goto("fi\tle:///etc/passwd")).rejects.toThrow(/Vessel policy: Page\.navigate refused/);
    const cdp = await b.target().createCDPSession();
    await expect(cdp.send("Target.createTarget", { url: "chrome://version" })).rejects.toThrow(/Vessel policy: Target\.createTarget refused/);
    // The same connection still works.
    await page.goto(`${publicUrl}/`);
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
    // A page cannot read local files either.
    const local = await page.evaluate(() =>
      fetch("file:///etc/passwd").then(
        (r) => r.text(),
        (e: Error) => `failed: ${e.message}`,
      ),
    );
    expect(local).toMatch(/^failed/);
    // All four refusals (three navigations, one new target): events are written in batches, so the first ones can be read before the last.
    const refusals = await eventually(
      () => eventsOf(id, "cdp.refused"),
      (e) => e.length >= 4,
    );
    expect(refusals.map((e) => e.method)).toEqual(expect.arrayContaining(["Page.navigate", "Target.createTarget"]));
    expect(JSON.stringify(refusals)).not.toContain("/etc/passwd");
  });

  const api = (pathname: string) => fetch(`${t.url}${pathname}`, { headers: { authorization: `Bearer ${ws.key}` } });
  const listDownloads = async (id: string) => ((await (await api(`/v1/sessions/${id}/downloads`)).json()) as { items: Array<Record<string, unknown>> }).items;

  it("refuses a download folder outside the session's own with a CDP error; downloads land in the session's folder and are served by the API", async () => {
    const { id, page, browser: b } = await session();
    const elsewhere = fs.mkdtempSync("/tmp/vessel-elsewhere-");
    try {
      const cdp = await b.target().createCDPSession();
      await expect(cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: elsewhere })).rejects.toThrow(
        /Vessel policy: Browser\.setDownloadBehavior refused: downloads stay in the session's own folder/,
      );
      // The connection keeps working, and the download goes where the server says.
      await page.goto(`${publicUrl}/`);
      await page.click("#dl");
      const [done] = await eventually(
        () => eventsOf(id, "download.completed"),
        (e) => e.length === 1,
      );
      expect(done).toMatchObject({ name: "report.txt", bytes: 11 });
      const folder = t.app.deps.runtime.endpoint(id)!.downloadsDir;
      expect(fs.readdirSync(folder)).toEqual(["report.txt"]);
      expect(fs.readdirSync(elsewhere)).toEqual([]);
      expect(await page.evaluate(() => 1 + 1)).toBe(2);

      const [listed] = await listDownloads(id);
      expect(listed).toMatchObject({ id: done!.download_id, name: "report.txt", state: "completed", bytes: 11, available: true, reason: null });
      const file = await api(`/v1/sessions/${id}/downloads/${String(done!.download_id)}`);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("application/octet-stream");
      expect(file.headers.get("content-disposition")).toBe(`attachment; filename="report.txt"; filename*=UTF-8''report.txt`);
      expect(file.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await file.text()).toBe("report body");
      // The same through the client library.
      const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
      expect((await vessel.sessions.downloads(id)).map((d) => d.name)).toEqual(["report.txt"]);
      expect(Buffer.from(await vessel.sessions.download(id, String(done!.download_id))).toString()).toBe("report body");
      expect((await api(`/v1/sessions/${id}/downloads/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      expect((await api(`/v1/sessions/${id}/downloads/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);

      // The list outlives the session; the file does not.
      await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
      expect((await listDownloads(id))[0]).toMatchObject({ state: "completed", available: false });
      const gone = await api(`/v1/sessions/${id}/downloads/${String(done!.download_id)}`);
      expect(gone.status).toBe(410);
      expect(gone.headers.get("content-type")).toMatch(/problem\+json/);
      // Another workspace sees nothing.
      const other = await seedWorkspace(t);
      expect((await fetch(`${t.url}/v1/sessions/${id}/downloads`, { headers: { authorization: `Bearer ${other.key}` } })).status).toBe(404);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("gives a browser context a client creates the same download folder and cap", async () => {
    const { id, browser: b } = await session();
    const context = await b.createBrowserContext();
    const page = await context.newPage();
    await page.goto(`${publicUrl}/`);
    await page.click("#dl");
    const [done] = await eventually(
      () => eventsOf(id, "download.completed"),
      (e) => e.length === 1,
    );
    expect(done).toMatchObject({ name: "report.txt", bytes: 11 });
    expect(fs.readdirSync(t.app.deps.runtime.endpoint(id)!.downloadsDir)).toEqual(["report.txt"]);
    await context.close();
  });

  it("lets Playwright keep its own download handling, pointed at the session's folder", async () => {
    const { res, body: s } = await createSession(t, ws.key, { region: "us-east1" });
    expect(res.status).toBe(201);
    const pw = await chromium.connectOverCDP(s.connect_url!);
    try {
      const page = await pw.contexts()[0]!.newPage();
      await page.goto(`${publicUrl}/`);
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#dl")]);
      expect(download.suggestedFilename()).toBe("report.txt");
      const [done] = await eventually(
        () => eventsOf(s.id, "download.completed"),
        (e) => e.length === 1,
      );
      // Chromium names the file by its id (allowAndName), in the session's folder, not Playwright's.
      expect(fs.readdirSync(t.app.deps.runtime.endpoint(s.id)!.downloadsDir)).toEqual([done!.download_id]);
      const file = await api(`/v1/sessions/${s.id}/downloads/${String(done!.download_id)}`);
      expect(file.headers.get("content-disposition")).toContain('filename="report.txt"');
      expect(await file.text()).toBe("report body");
      expect(await page.evaluate(() => 2 + 2)).toBe(4);
      // Issue 25: the folder Playwright sets on connect is swapped, as designed; nothing was refused.
      await t.app.deps.events.flush();
      expect(await eventsOf(s.id, "cdp.refused")).toEqual([]);
    } finally {
      await pw.close();
    }
  });

  it("cancels a download that would pass the session's cap, and deletes what it wrote", async () => {
    const { id, page } = await session();
    await page.goto(`${publicUrl}/`);
    // 16 MiB trickled over ~1 s against a 4 MiB cap (VESSEL_DOWNLOAD_MAX_BYTES above).
    await page.evaluate(() => {
      const a = document.createElement("a");
      a.href = "/big";
      a.download = "big.bin";
      document.body.append(a);
      a.click();
    });
    const [refused] = await eventually(
      () => eventsOf(id, "download.refused"),
      (e) => e.length === 1,
      20_000,
    );
    expect(refused).toMatchObject({ name: "big.bin" });
    expect(String(refused!.reason)).toMatch(/would pass 4194304 bytes/);
    const folder = t.app.deps.runtime.endpoint(id)!.downloadsDir;
    const leftover = await eventually(
      async () => fs.readdirSync(folder),
      (files) => files.length === 0,
    );
    expect(leftover).toEqual([]);
    // Chromium stopped reading, and the egress hop closed the site's connection: the rest never came.
    await eventually(
      async () => bigServed.aborted,
      (aborted) => aborted,
      5_000,
    );
    const [listed] = await listDownloads(id);
    expect(listed).toMatchObject({ name: "big.bin", state: "refused", available: false });
    expect((await api(`/v1/sessions/${id}/downloads/${String(refused!.download_id)}`)).status).toBe(409);
    // A small download still fits afterwards.
    await page.click("#dl");
    await eventually(
      () => eventsOf(id, "download.completed"),
      (e) => e.length === 1,
    );
  });

  it("sends a session's traffic through its upstream proxy with credentials, which appear nowhere", async () => {
    const seen: Array<{ target: string; auth: string | undefined }> = [];
    const upstream = http.createServer();
    upstream.on("connect", (req, client: net.Socket) => {
      seen.push({ target: req.url ?? "", auth: req.headers["proxy-authorization"] });
      const [host, port] = (req.url ?? "").split(":");
      const out = net.connect({ host, port: Number(port) }, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        out.pipe(client);
        client.pipe(out);
      });
      out.on("error", () => client.destroy());
    });
    const proxyPort = await listen(upstream, "127.0.0.2");
    const password = "pr0xy-passw0rd-7f3a";
    try {
      const { id, page } = await session({ proxy: { server: `http://127.0.0.2:${proxyPort}`, username: "alice", password } });
      expect((await page.goto(`${publicUrl}/via-proxy`))?.status()).toBe(200);
      expect(seen.at(-1)).toEqual({
        target: expect.stringMatching(/^127\.0\.0\.2:\d+$/),
        auth: `Basic ${Buffer.from(`alice:${password}`).toString("base64")}`,
      });
      // Still judged by the policy: loopback is refused before the upstream hears of it.
      const before = seen.length;
      await expect(page.goto(`http://127.0.0.1:${otherPort}/`, { timeout: 10_000 })).rejects.toThrow(/net::ERR_/);
      expect(seen.length).toBe(before);

      const answer = await (await fetch(`${t.url}/v1/sessions/${id}`, { headers: { authorization: `Bearer ${ws.key}` } })).text();
      expect(answer).not.toContain(password);
      const rows = JSON.stringify(await t.app.deps.db.prisma.idempotencyRecord.findMany()) + JSON.stringify(await t.app.deps.db.prisma.sessionEvent.findMany());
      expect(rows).not.toContain(password);
      expect(rows).not.toContain(Buffer.from(`alice:${password}`).toString("base64"));
      await t.app.deps.audit.flush();
      expect(JSON.stringify(await t.app.deps.db.prisma.auditEntry.findMany())).not.toContain(password);
      expect(logLines.join("\n")).not.toContain(password);
    } finally {
      upstream.close();
    }
  });
});

describe.skipIf(!hasChromium)("downloads turned off (VESSEL_DOWNLOAD_MAX_BYTES=0)", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: http.Server;
  let siteUrl: string;
  beforeAll(async () => {
    site = http.createServer((req, res) => {
      if (req.url === "/file") {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="a.bin"' });
        return void res.end("bytes");
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<a id="dl" href="/file" download>file</a>');
    });
    siteUrl = `http://127.0.0.2:${await listen(site, "127.0.0.2")}`;
    t = await startTestApp({ env: { VESSEL_EGRESS_ALLOW: "127.0.0.2/32", VESSEL_DOWNLOAD_MAX_BYTES: "0" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => {
    await t?.stop();
    site?.close();
  });

  it("refuses every download, even after a client allows them in a folder of its own", async () => {
    const { res, body: s } = await createSession(t, ws.key, { region: "us-east1" });
    expect(res.status).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: s.connect_url! });
    try {
      const page = await browser.newPage();
      // Playwright's form of the call: let through, pointed at the session's folder; the cap still says no.
      const cdp = await browser.target().createCDPSession();
      await cdp.send("Browser.setDownloadBehavior", { behavior: "allowAndName", downloadPath: "/tmp", eventsEnabled: true });
      await page.goto(`${siteUrl}/`);
      await page.click("#dl");
      const refused = await eventually(
        async () =>
          (await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: s.id, type: "download.refused" } })).map(
            (e) => e.data as Record<string, unknown>,
          ),
        (e) => e.length === 1,
      );
      expect(refused[0]).toMatchObject({ name: "a.bin", reason: "downloads are turned off on this server" });
      const folder = t.app.deps.runtime.endpoint(s.id)!.downloadsDir;
      await eventually(
        async () => fs.readdirSync(folder),
        (files) => files.length === 0,
      );
      expect(await t.app.deps.db.prisma.sessionEvent.count({ where: { sessionId: s.id, type: "download.completed" } })).toBe(0);
    } finally {
      await browser.disconnect();
      await endSession(t.app.deps, s.id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
    }
  });
});
