import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import puppeteer, { type ElementHandle } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@vessel/client/cli";
import { Vessel } from "@vessel/client";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** A form whose script shows the chosen file's name and bytes, as an upload form's preview would. */
const FORM = `<!doctype html><title>upload</title><input type="file" id="f"><pre id="out"></pre>
<script>document.getElementById("f").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  document.getElementById("out").textContent = file.name + ":" + (await file.text());
});</script>`;

type Uploaded = { id: string; name: string; size: number; sha256: string; path: string; available: boolean };

describe.skipIf(!hasChromium)("files uploaded into a session", () => {
  let t: TestApp;
  let ws: Seeded;
  let other: Seeded;
  let site: http.Server;
  let siteUrl: string;
  const LIMIT = 64 * 1024;

  beforeAll(async () => {
    t = await startTestApp({
      env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "4", VESSEL_UPLOAD_MAX_BYTES: String(LIMIT), VESSEL_EGRESS_ALLOW: "127.0.0.1/32" },
    });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    site = http.createServer((_req, res) => res.setHeader("content-type", "text/html").end(FORM));
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    site?.close();
    await t?.stop();
  });

  async function upload(key: string, id: string, bytes: Buffer | string, name: string): Promise<{ status: number; body: Uploaded & { type?: string } }> {
    const form = new FormData();
    form.append("file", new Blob([bytes as BlobPart]), name);
    const res = await fetch(`${t.url}/v1/sessions/${id}/files`, { method: "POST", headers: bearer(key), body: form });
    return { status: res.status, body: (await res.json()) as Uploaded & { type?: string } };
  }
  const uploadsOf = (id: string) => t.app.deps.runtime.endpoint(id)!.uploadsDir;
  const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }) : []);

  it("puts a file where Puppeteer's uploadFile(path) can pick it, and the page reads its bytes", async () => {
    const { body: session } = await createSession(t, ws.key);
    const { status, body } = await upload(ws.key, session.id, "hello from puppeteer ✓", "greeting.txt");
    expect(status).toBe(201);
    expect(body).toMatchObject({ name: "greeting.txt", size: Buffer.byteLength("hello from puppeteer ✓"), available: true });
    expect(body.sha256).toBe(createHash("sha256").update("hello from puppeteer ✓").digest("hex"));
    expect(body.path.startsWith(uploadsOf(session.id) + path.sep)).toBe(true);
    const browser = await puppeteer.connect({ browserWSEndpoint: session.connect_url! });
    try {
      const page = await browser.newPage();
      await page.goto(siteUrl);
      const input = (await page.$("#f")) as ElementHandle<HTMLInputElement>;
      await input.uploadFile(body.path);
      await page.waitForFunction(() => document.getElementById("out")!.textContent !== "");
      expect(await page.$eval("#out", (e) => e.textContent)).toBe("greeting.txt:hello from puppeteer ✓");
      // Anything else on the server is still refused: a host file, and another session's upload.
      const { body: elsewhere } = await createSession(t, ws.key);
      const theirs = await upload(ws.key, elsewhere.id, "not yours", "theirs.txt");
      for (const forbidden of ["/etc/hostname", theirs.body.path, path.join(uploadsOf(session.id), "..", "profile", "Local State")]) {
        const cdp = await page.createCDPSession();
        const { root } = await cdp.send("DOM.getDocument");
        const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector: "#f" });
        await expect(cdp.send("DOM.setFileInputFiles", { nodeId, files: [forbidden] }), forbidden).rejects.toThrow(/session's own folder/);
      }
      await releaseSession(t, ws.key, elsewhere.id);
    } finally {
      await browser.disconnect();
      await releaseSession(t, ws.key, session.id);
    }
  });

  it("works with Playwright's setInputFiles(path) over connectOverCDP, from the client library and the CLI", async () => {
    const { body: session } = await createSession(t, ws.key);
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const viaClient = await vessel.sessions.uploadFile(session.id, new TextEncoder().encode("from the client"), "client.txt");
    const local = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vessel-upload-")), "from-cli.txt");
    fs.writeFileSync(local, "from the CLI");
    const out: string[] = [];
    const code = await runCli(["sessions", "upload", session.id, local, "--json"], {
      out: (l) => out.push(l),
      err: () => {},
      interactive: false,
      env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url },
    });
    expect(code).toBe(0);
    const viaCli = JSON.parse(out.join("\n")) as Uploaded;
    expect(viaCli.name).toBe("from-cli.txt");
    const browser = await chromium.connectOverCDP(session.connect_url!);
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(siteUrl);
      for (const [file, expected] of [
        [viaClient.path, "client.txt:from the client"],
        [viaCli.path, "from-cli.txt:from the CLI"],
      ] as const) {
        await page.setInputFiles("#f", file);
        await page.waitForFunction((e) => document.getElementById("out")!.textContent === e, expected);
      }
    } finally {
      await browser.close();
      await releaseSession(t, ws.key, session.id);
    }
    const listed = (await vessel.sessions.files(session.id)).map((f) => [f.name, f.available]);
    expect(listed).toEqual([
      ["client.txt", false],
      ["from-cli.txt", false],
    ]);
  });

  it("uploadFile(id, path) from plain JavaScript uploads the file at that path, under its name; the list is the envelope", async () => {
    const { body: session } = await createSession(t, ws.key);
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const local = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vessel-upload-")), "report.txt");
    fs.writeFileSync(local, "the file's own bytes");
    try {
      // What plain JavaScript may do: no type says the second argument must be bytes.
      const upload = vessel.sessions.uploadFile as (id: string, data: unknown, name?: string) => Promise<Uploaded>;
      const uploaded = await upload.call(vessel.sessions, session.id, local);
      expect(uploaded).toMatchObject({ name: "report.txt", size: Buffer.byteLength("the file's own bytes") });
      const renamed = await upload.call(vessel.sessions, session.id, local, "renamed.txt");
      expect(renamed.name).toBe("renamed.txt");
      await expect(upload.call(vessel.sessions, session.id, { not: "bytes" }, "x.txt")).rejects.toThrow(TypeError);
      await expect(upload.call(vessel.sessions, session.id, new Uint8Array([1]))).rejects.toThrow(/name the file/);
      const res = await fetch(`${t.url}/v1/sessions/${session.id}/files`, { headers: bearer(ws.key) });
      const list = (await res.json()) as { items: Uploaded[]; next_cursor: unknown; has_more: unknown };
      expect(list).toMatchObject({ next_cursor: null, has_more: false });
      expect(list.items.map((f) => [f.name, f.size])).toEqual([
        ["report.txt", 20],
        ["renamed.txt", 20],
      ]);
    } finally {
      await releaseSession(t, ws.key, session.id);
    }
  });

  it("refuses what is too large, alone or with the session's earlier files, leaving nothing on disk", async () => {
    const { body: session } = await createSession(t, ws.key);
    try {
      const big = await upload(ws.key, session.id, Buffer.alloc(LIMIT + 1, 1), "big.bin");
      expect(big.status).toBe(413);
      expect(big.body.type).toMatch(/\/errors\/payload-too-large$/);
      expect(filesIn(uploadsOf(session.id))).toEqual([]);
      expect((await upload(ws.key, session.id, Buffer.alloc(LIMIT / 2, 2), "half.bin")).status).toBe(201);
      const more = await upload(ws.key, session.id, Buffer.alloc(LIMIT / 2 + 1, 3), "more.bin");
      expect(more.status).toBe(413);
      expect(filesIn(uploadsOf(session.id))).toHaveLength(2); // half.bin and its folder, nothing of more.bin
      const res = await fetch(`${t.url}/v1/sessions/${session.id}/files`, { headers: bearer(ws.key) });
      expect(((await res.json()) as { items: Uploaded[] }).items.map((f) => f.name)).toEqual(["half.bin"]);
    } finally {
      await releaseSession(t, ws.key, session.id);
    }
  });

  it("keeps names safe, refuses malformed bodies, another workspace and ended sessions", async () => {
    const { body: session } = await createSession(t, ws.key);
    const sneaky = await upload(ws.key, session.id, "x", "../../..evil<name>|.txt");
    expect(sneaky.status, JSON.stringify(sneaky.body)).toBe(201);
    expect(sneaky.body.name).toBe("evil_name__.txt");
    const accented = await upload(ws.key, session.id, "x", "résumé ✓.txt");
    expect(accented.body.name).toBe("résumé ✓.txt");
    // A control character cannot even be part of a multipart header.
    expect((await upload(ws.key, session.id, "x", "bad\u0001name.txt")).status).toBe(400);
    expect(path.dirname(path.dirname(sneaky.body.path))).toBe(uploadsOf(session.id));
    expect((await upload(other.key, session.id, "x", "a.txt")).status).toBe(404);
    expect((await fetch(`${t.url}/v1/sessions/${session.id}/files`, { headers: bearer(other.key) })).status).toBe(404);
    const json = await fetch(`${t.url}/v1/sessions/${session.id}/files`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    const empty = new FormData();
    empty.append("note", "no file here");
    expect((await fetch(`${t.url}/v1/sessions/${session.id}/files`, { method: "POST", headers: bearer(ws.key), body: empty })).status).toBe(400);
    const broken = await fetch(`${t.url}/v1/sessions/${session.id}/files`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "multipart/form-data; boundary=x" },
      body: "--x\r\nnonsense",
    });
    expect(broken.status).toBe(400);
    await releaseSession(t, ws.key, session.id);
    expect((await upload(ws.key, session.id, "late", "late.txt")).status).toBe(410);
    await t.app.deps.audit.flush();
    const audited = await t.app.deps.db.prisma.auditEntry.findMany({
      where: { action: "session.file_upload", target: session.id },
      select: { httpStatus: true },
    });
    expect(audited.map((a) => a.httpStatus).sort()).toEqual([201, 201, 400, 400, 400, 404, 410, 415].sort());
  });

  it("has a GraphQL twin: list, and small uploads as base64", async () => {
    const { body: session } = await createSession(t, ws.key);
    const gql = async (query: string, variables: Record<string, unknown>) =>
      (await (
        await fetch(`${t.url}/graphql`, {
          method: "POST",
          headers: { ...bearer(ws.key), "content-type": "application/json" },
          body: JSON.stringify({ query, variables }),
        })
      ).json()) as {
        data?: Record<string, unknown>;
        errors?: unknown[];
      };
    const made = await gql(`mutation($id: String!) { uploadSessionFile(sessionId: $id, name: "g.txt", contentBase64: "aGk=") { name size path } }`, {
      id: session.id,
    });
    expect(made.data?.uploadSessionFile).toMatchObject({ name: "g.txt", size: 2 });
    expect(fs.readFileSync((made.data!.uploadSessionFile as { path: string }).path, "utf8")).toBe("hi");
    const listed = await gql(`query($id: String!) { sessionFiles(sessionId: $id) { name available } }`, { id: session.id });
    expect(listed.data?.sessionFiles).toEqual([{ name: "g.txt", available: true }]);
    expect(
      (await gql(`mutation($id: String!) { uploadSessionFile(sessionId: $id, name: "b", contentBase64: "%%%") { name } }`, { id: session.id })).errors,
    ).toBeDefined();
    await releaseSession(t, ws.key, session.id);
  });
});
