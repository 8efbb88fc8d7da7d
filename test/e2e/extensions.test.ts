import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { strToU8, zipSync } from "fflate";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { runCli } from "@vessel/client/cli";
import { Vessel } from "@vessel/client";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { openRecord, unwrapDataKey } from "../../src/crypto/data-keys.ts";
import { extensionKeyAad } from "../../src/services/extensions/extensions.ts";
import { rotateMasterKey } from "../../src/services/maintenance/master-key-rotation.ts";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, releaseSession } from "../support/sessions.ts";
import { uploadExtensionZip } from "../support/extensions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const FULL_CHROMIUM = "/usr/lib/chromium/chromium";
const hasChromium = chromiumPath() !== undefined && fs.existsSync(FULL_CHROMIUM);
if (!hasChromium && servicesRequired)
  throw new Error("Chromium (the headless shell and full Chromium) is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** An extension whose content script marks every page it runs in. */
function markerZip(manifest: Record<string, unknown> = {}, folder = ""): Uint8Array {
  return zipSync({
    [`${folder}manifest.json`]: strToU8(
      JSON.stringify({
        manifest_version: 3,
        name: "Vessel marker",
        version: "1.2.3",
        content_scripts: [{ matches: ["<all_urls>"], js: ["mark.js"], run_at: "document_end" }],
        ...manifest,
      }),
    ),
    [`${folder}mark.js`]: strToU8('document.documentElement.dataset.vesselMarker = "marked";'),
  });
}

const upload = uploadExtensionZip;

describe.skipIf(!hasChromium)("browser extensions", () => {
  let page: http.Server;
  let url: string;
  beforeAll(async () => {
    page = http.createServer((_req, res) => res.setHeader("content-type", "text/html").end("<!doctype html><title>plain</title><p>plain page</p>"));
    await new Promise<void>((r) => page.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  });
  afterAll(() => page?.close());

  describe("with full Chromium", () => {
    let t: TestApp;
    let ws: Seeded;
    let other: Seeded;
    beforeAll(async () => {
      t = await startTestApp({
        env: { VESSEL_CHROMIUM_PATH: FULL_CHROMIUM, VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "3", VESSEL_EGRESS_ALLOW: "127.0.0.1/32" },
      });
      ws = await seedWorkspace(t);
      other = await seedWorkspace(t);
    }, 60_000);
    afterAll(async () => t?.stop());

    const marker = async (connectUrl: string) => {
      const browser = await puppeteer.connect({ browserWSEndpoint: connectUrl });
      try {
        const tab = await browser.newPage();
        await tab.goto(url);
        await new Promise((r) => setTimeout(r, 300)); // a content script runs at document_end, just after load
        return await tab.evaluate(() => document.documentElement.dataset.vesselMarker ?? null);
      } finally {
        await browser.disconnect();
      }
    };

    it("loads an uploaded extension into the sessions that ask for it, and only those", async () => {
      const { status, body } = await upload(t, ws.key, markerZip({}, "marker/"));
      expect(status).toBe(201);
      expect(body).toMatchObject({ name: "Vessel marker", version: "1.2.3" });
      const id = body.id as string;
      const withIt = await createSession(t, ws.key, { region: "us-east1", extension_ids: [id] });
      expect(withIt.res.status).toBe(201);
      expect((withIt.body as unknown as { extension_ids: string[] }).extension_ids).toEqual([id]);
      const without = await createSession(t, ws.key, { region: "us-east1" });
      try {
        expect(await marker(withIt.body.connect_url!)).toBe("marked");
        expect(await marker(without.body.connect_url!)).toBeNull();
        // A client cannot load one itself: the Extensions domain is refused.
        const browser = await puppeteer.connect({ browserWSEndpoint: without.body.connect_url! });
        const cdp = await browser.target().createCDPSession();
        await expect(cdp.send("Extensions.loadUnpacked" as never, { path: "/tmp" } as never)).rejects.toThrow(/not available through Vessel/);
        await browser.disconnect();
      } finally {
        await releaseSession(t, ws.key, withIt.body.id);
        await releaseSession(t, ws.key, without.body.id);
      }
    });

    it("keeps extensions to their workspace, lists, reads and deletes them", async () => {
      const { body } = await upload(t, ws.key, markerZip({ name: "Second" }));
      const id = body.id as string;
      const list = (await (await fetch(`${t.url}/v1/extensions`, { headers: bearer(ws.key) })).json()) as { items: Array<{ id: string }> };
      expect(list.items.map((e) => e.id)).toContain(id);
      expect((await fetch(`${t.url}/v1/extensions/${id}`, { headers: bearer(other.key) })).status).toBe(404);
      expect((await createSession(t, other.key, { region: "us-east1", extension_ids: [id] })).res.status).toBe(404);
      expect((await fetch(`${t.url}/v1/extensions/${id}`, { method: "DELETE", headers: bearer(other.key) })).status).toBe(404);
      expect((await fetch(`${t.url}/v1/extensions/${id}`, { method: "DELETE", headers: bearer(ws.key) })).status).toBe(204);
      expect((await fetch(`${t.url}/v1/extensions/${id}`, { headers: bearer(ws.key) })).status).toBe(404);
      expect((await createSession(t, ws.key, { region: "us-east1", extension_ids: [id] })).res.status).toBe(404);
    });

    it("refuses what is not a Manifest V3 extension, storing nothing", async () => {
      const before = await t.app.deps.db.prisma.extension.count();
      const bad: Uint8Array[] = [
        strToU8("not a zip at all"),
        markerZip({ manifest_version: 2 }),
        markerZip({ version: "one" }),
        zipSync({ "readme.txt": strToU8("no manifest") }),
        zipSync({ "manifest.json": strToU8(JSON.stringify({ manifest_version: 3, name: "x", version: "1" })), "../escape.js": strToU8("x") }),
        zipSync(
          { "manifest.json": strToU8(JSON.stringify({ manifest_version: 3, name: "x", version: "1" })), "big.bin": new Uint8Array(70 * 1024 * 1024) },
          { level: 9 },
        ),
      ];
      for (const zip of bad) {
        const { status, body } = await upload(t, ws.key, zip);
        expect(status).toBe(422);
        expect(body.type).toMatch(/\/errors\/invalid-extension$/);
      }
      expect(await t.app.deps.db.prisma.extension.count()).toBe(before);
      // Stored sealed: the zip's bytes are nowhere in the row in the clear.
      const { body } = await upload(t, ws.key, markerZip());
      const row = await t.app.deps.db.prisma.extension.findUniqueOrThrow({ where: { id: body.id as string } });
      expect(Buffer.from(row.ciphertext).includes(Buffer.from("vesselMarker"))).toBe(false);
    });
    it("are uploaded, used and deleted through the client library and the command line, with browser settings", async () => {
      const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
      const uploaded = await vessel.extensions.upload(markerZip({ name: "From the client" }));
      expect((await vessel.extensions.list()).map((e) => e.id)).toContain(uploaded.id);
      const session = await vessel.sessions.create({ region: "us-east1", extensionIds: [uploaded.id], browser: { timezone: "Asia/Tokyo" } });
      try {
        expect(session.extension_ids).toEqual([uploaded.id]);
        expect(session.browser).toEqual({ timezone: "Asia/Tokyo" });
        expect(await marker(session.connect_url!)).toBe("marked");
      } finally {
        await vessel.sessions.release(session.id);
      }
      const out: string[] = [];
      const cli = (argv: string[]) =>
        runCli(argv, { out: (l) => out.push(l), err: () => {}, interactive: false, env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url } });
      expect(
        await cli([
          "sessions",
          "create",
          "--region",
          "us-east1",
          "--viewport",
          "1200x700",
          "--locale",
          "ja-JP",
          "--geolocation",
          "35.68,139.69",
          "--extension",
          uploaded.id,
          "--json",
        ]),
      ).toBe(0);
      const made = JSON.parse(out.join("\n")) as { id: string; browser: unknown; extension_ids: string[] };
      expect(made.browser).toEqual({ viewport: { width: 1200, height: 700 }, locale: "ja-JP", geolocation: { latitude: 35.68, longitude: 139.69 } });
      expect(made.extension_ids).toEqual([uploaded.id]);
      await releaseSession(t, ws.key, made.id);
      expect(await cli(["sessions", "create", "--region", "us-east1", "--viewport", "wide"])).toBe(2);
      out.length = 0;
      expect(await cli(["extensions", "list", "--json"])).toBe(0);
      expect((JSON.parse(out.join("\n")) as Array<{ id: string }>).map((e) => e.id)).toContain(uploaded.id);
      expect(await cli(["extensions", "delete", uploaded.id])).toBe(0);
      expect((await vessel.extensions.list()).map((e) => e.id)).not.toContain(uploaded.id);
    });

    it("re-wraps each extension's key on master-key rotation, leaving the sealed zip as it was", async () => {
      const zip = markerZip({ name: "Rotated" });
      const { body } = await upload(t, ws.key, zip);
      const id = body.id as string;
      const prisma = t.app.deps.db.prisma;
      const before = await prisma.extension.findUniqueOrThrow({ where: { id } });
      const current = t.app.deps.masterKey;
      const next = { key: randomBytes(32), id: "" };
      next.id = masterKeyId(next.key);
      const report = await rotateMasterKey(prisma, current, next);
      expect(report.extensions.failed).toEqual([]);
      expect(report.extensions.rewrapped).toBeGreaterThanOrEqual(1);
      const after = await prisma.extension.findUniqueOrThrow({ where: { id } });
      expect(after.masterKeyId).toBe(next.id);
      expect(Buffer.from(after.ciphertext).equals(Buffer.from(before.ciphertext))).toBe(true);
      expect(() => unwrapDataKey(current, extensionKeyAad(id), after.wrappedKey)).toThrow();
      expect(openRecord(unwrapDataKey(next, extensionKeyAad(id), after.wrappedKey), after.ciphertext, id).equals(Buffer.from(zip))).toBe(true);
      await rotateMasterKey(prisma, next, current); // back, for the running app
    });
  });

  describe("with the headless shell", () => {
    let t: TestApp;
    let ws: Seeded;
    beforeAll(async () => {
      t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "0", VESSEL_BROWSER_CAPACITY: "2" } });
      ws = await seedWorkspace(t);
    });
    afterAll(async () => t?.stop());

    it("accepts uploads but refuses a session with extensions: 422 extensions-unsupported, naming why", async () => {
      const { status, body } = await upload(t, ws.key, markerZip());
      expect(status).toBe(201);
      const { res, body: refused } = await createSession(t, ws.key, { region: "us-east1", extension_ids: [body.id] });
      expect(res.status).toBe(422);
      expect((refused as unknown as { type: string; detail: string }).type).toMatch(/\/errors\/extensions-unsupported$/);
      expect((refused as unknown as { detail: string }).detail).toMatch(/headless shell/);
      expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    });
  });
});
