import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { strToU8, zipSync, type Zippable } from "fflate";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newDataKey, sealRecord } from "../../src/crypto/data-keys.ts";
import { extensionKeyAad } from "../../src/services/extensions/extensions.ts";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { uploadExtensionZip } from "../support/extensions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

// Issue 41: extension zips are read once, off the event loop, within caps; no extension gets a
// debugging or native channel; only jailed nodes take extensions; each workspace's count and bytes
// are reserved, so parallel uploads cannot pass them.

const FULL_CHROMIUM = "/usr/lib/chromium/chromium";
const hasChromium = chromiumPath() !== undefined && fs.existsSync(FULL_CHROMIUM);
if (!hasChromium && servicesRequired) throw new Error("Chromium (full Chromium) is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const manifest = (extra: Record<string, unknown> = {}) =>
  strToU8(
    JSON.stringify({
      manifest_version: 3,
      name: "Vessel safety",
      version: "1.0",
      content_scripts: [{ matches: ["<all_urls>"], js: ["mark.js"], run_at: "document_end" }],
      background: { service_worker: "worker.js" },
      ...extra,
    }),
  );
const extension = (extra: Record<string, unknown> = {}, files: Zippable = {}) =>
  zipSync({
    "manifest.json": manifest(extra),
    "mark.js": strToU8('document.documentElement.dataset.vesselSafety = "ran";'),
    "worker.js": strToU8("chrome.runtime.onInstalled.addListener(() => {});"),
    ...files,
  });

/** A zip whose entry `name` says it inflates to `declared` bytes (central directory and local header), whatever it holds. */
function lying(zip: Uint8Array, name: string, declared: number): Uint8Array {
  const out = Buffer.from(zip);
  const bytes = Buffer.from(name);
  for (let at = 0; at + 4 < out.length; at++) {
    const sig = out.readUInt32LE(at);
    if (sig === 0x04034b50 && out.subarray(at + 30, at + 30 + bytes.length).equals(bytes)) out.writeUInt32LE(declared, at + 22);
    if (sig === 0x02014b50 && out.subarray(at + 46, at + 46 + bytes.length).equals(bytes)) out.writeUInt32LE(declared, at + 24);
  }
  return out;
}

const upload = uploadExtensionZip;

const unpackedCount = async (t: TestApp) => (await t.app.deps.metrics!.extensionZipsUnpacked.get()).values[0]?.value ?? 0;

describe.skipIf(!hasChromium)("extension safety (issue 41)", () => {
  describe("on a jailed node", () => {
    let t: TestApp;
    let page: http.Server;
    let url: string;
    beforeAll(async () => {
      page = http.createServer((_req, res) => res.setHeader("content-type", "text/html").end("<!doctype html><title>plain</title><p>plain"));
      await new Promise<void>((r) => page.listen(0, "127.0.0.1", () => r()));
      url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
      t = await startTestApp({
        env: {
          VESSEL_CHROMIUM_PATH: FULL_CHROMIUM,
          VESSEL_BROWSER_JAIL: "required",
          VESSEL_BROWSER_CAPACITY: "2",
          VESSEL_EGRESS_ALLOW: "127.0.0.1/32",
          VESSEL_EXTENSIONS_MAX_PER_WORKSPACE: "3",
          VESSEL_EXTENSIONS_MAX_BYTES_PER_WORKSPACE: String(1024 * 1024),
        },
      });
    }, 60_000);
    afterAll(async () => {
      await t?.stop();
      page?.close();
    });

    it("refuses an extension asking for debugger (422 naming it) and loads the same without it, never unpacking it again per create", async () => {
      const ws = await seedWorkspace(t);
      const refusals: Array<[Record<string, unknown>, string]> = [
        [{ permissions: ["storage", "debugger"] }, "debugger"],
        [{ optional_permissions: ["nativeMessaging"] }, "nativeMessaging"],
        [{ devtools_page: "devtools.html" }, "devtools_page"],
        [{ permissions: ["proxy"] }, "proxy"],
        [{ host_permissions: ["file:///*"] }, "file:///*"],
        [{ externally_connectable: { matches: ["https://example.com/*"] } }, "externally_connectable"],
      ];
      for (const [extra, permission] of refusals) {
        const { status, body } = await upload(t, ws.key, extension(extra));
        expect(status, permission).toBe(422);
        expect(body.type).toMatch(/\/errors\/extension-permission-refused$/);
        expect(body.permission).toBe(permission);
        expect(body.detail).toContain(permission);
      }
      expect(await t.app.deps.db.prisma.extension.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
      expect(await t.app.deps.db.prisma.extensionReservation.count()).toBe(0);

      const { status, body } = await upload(t, ws.key, extension({ permissions: ["storage"] }));
      expect(status).toBe(201);
      const unpacked = await unpackedCount(t);
      const created = await createSession(t, ws.key, { region: "us-east1", extension_ids: [body.id] });
      expect(created.res.status).toBe(201);
      try {
        const browser = await puppeteer.connect({ browserWSEndpoint: created.body.connect_url! });
        const tab = await browser.newPage();
        await tab.goto(url);
        await tab.waitForFunction(() => document.documentElement.dataset.vesselSafety === "ran", { timeout: 10_000 });
        await browser.disconnect();
      } finally {
        await releaseSession(t, ws.key, created.body.id);
      }
      // The create copied the folder prepared at upload: no zip was read again.
      expect(await unpackedCount(t)).toBe(unpacked);
    }, 120_000);

    it("prepares a stored extension once on a node that has none (after a restart), checking it again there", async () => {
      const ws = await seedWorkspace(t);
      const { body } = await upload(t, ws.key, extension({ name: "prepared again" }));
      // One stored before the refusal list existed: sealed as an upload was, straight into its row.
      const old = Buffer.from(extension({ permissions: ["debugger"] }));
      const id = "ext_01J00000000000000000000OLD";
      const { dataKey, wrappedKey, masterKeyId } = newDataKey(t.app.deps.masterKey, extensionKeyAad(id));
      await t.app.deps.db.prisma.extension.create({
        data: {
          id,
          workspaceId: ws.workspace.id,
          name: "old",
          version: "1",
          sizeBytes: old.length,
          sha256: createHash("sha256").update(old).digest("hex"),
          ciphertext: sealRecord(dataKey, old, id),
          wrappedKey,
          masterKeyId,
        },
      });
      await t.app.deps.extensions.start(); // as at a restart: nothing prepared on this node
      const unpacked = await unpackedCount(t);
      const refused = await createSession(t, ws.key, { region: "us-east1", extension_ids: [id] });
      expect(refused.res.status).toBe(422);
      expect(refused.body as unknown).toMatchObject({ permission: "debugger" });
      const created = await createSession(t, ws.key, { region: "us-east1", extension_ids: [body.id] });
      expect(created.res.status).toBe(201);
      await releaseSession(t, ws.key, created.body.id);
      const again = await createSession(t, ws.key, { region: "us-east1", extension_ids: [body.id] });
      expect(again.res.status).toBe(201);
      await releaseSession(t, ws.key, again.body.id);
      // The old one and the clean one were each read once from the database; the second create only copied.
      expect(await unpackedCount(t)).toBe(unpacked + 2);
    }, 120_000);

    it("refuses zips beyond the caps, with symlinks or lying sizes, storing and leaving nothing", async () => {
      const ws = await seedWorkspace(t);
      const prepared = () => fs.readdirSync(t.app.deps.extensions.root);
      const before = prepared();
      const many: Zippable = {};
      for (let i = 0; i < 2_001; i++) many[`f/${i}`] = new Uint8Array(0);
      const bad: Array<[string, Uint8Array]> = [
        ["an entry inflating to 40 MiB", extension({}, { "big.bin": new Uint8Array(40 * 1024 * 1024) })],
        ["2,002 entries and more", zipSync({ "manifest.json": manifest(), ...many }, { level: 9 })],
        ["a symlink", extension({}, { link: [strToU8("/etc/passwd"), { os: 3, attrs: 0o120777 << 16 }] })],
        ["an entry lying about its size", lying(extension({}, { "big.bin": new Uint8Array(8 * 1024 * 1024) }), "big.bin", 1000)],
      ];
      for (const [what, zip] of bad) {
        const { status, body } = await upload(t, ws.key, zip);
        expect(status, what).toBe(422);
        expect(body.type, what).toMatch(/\/errors\/invalid-extension$/);
      }
      expect(await t.app.deps.db.prisma.extension.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
      expect(await t.app.deps.db.prisma.extensionReservation.count()).toBe(0);
      expect(prepared()).toEqual(before);
    }, 120_000);

    it("reserves each workspace's count and bytes: parallel uploads cannot pass them, a delete frees a place", async () => {
      const ws = await seedWorkspace(t);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(t, ws.key, extension({ name: `parallel ${i}` }))));
      const stored = results.filter((r) => r.status === 201);
      expect(stored).toHaveLength(3);
      for (const r of results.filter((r) => r.status !== 201)) {
        expect(r.status).toBe(409);
        expect(r.body).toMatchObject({ quota: "count", limit: 3 });
        expect(r.body.type).toMatch(/\/errors\/extension-quota-exceeded$/);
      }
      expect(await t.app.deps.db.prisma.extension.count({ where: { workspaceId: ws.workspace.id } })).toBe(3);
      const gone = stored[0]!.body.id as string;
      const preparedOf = async (id: string) => fs.readdirSync(t.app.deps.extensions.root).filter((n) => n.startsWith(`${id}-`));
      expect(await preparedOf(gone)).toHaveLength(1);
      expect((await fetch(`${t.url}/v1/extensions/${gone}`, { method: "DELETE", headers: bearer(ws.key) })).status).toBe(204);
      await eventually(
        () => preparedOf(gone),
        (names) => names.length === 0,
      ); // every node drops its prepared copy
      expect((await upload(t, ws.key, extension({ name: "after a delete" }))).status).toBe(201);

      // Bytes: another workspace, one zip of 600 KB stored, a second does not fit in 1 MiB.
      const other = await seedWorkspace(t);
      const noise = () => extension({}, { "noise.bin": [randomBytes(600 * 1024), { level: 0 }] });
      expect((await upload(t, other.key, noise())).status).toBe(201);
      const refused = await upload(t, other.key, noise());
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ quota: "bytes", limit: 1024 * 1024 });
      expect(await t.app.deps.db.prisma.extensionReservation.count()).toBe(0);
    }, 120_000);
  });

  describe("on a node whose browsers run unjailed", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { VESSEL_CHROMIUM_PATH: FULL_CHROMIUM, VESSEL_BROWSER_JAIL: "off", VESSEL_BROWSER_CAPACITY: "1" } });
    }, 60_000);
    afterAll(async () => t?.stop());

    it("refuses extensions at upload and at create: 422 extensions-need-jail", async () => {
      const ws = await seedWorkspace(t);
      const { status, body } = await upload(t, ws.key, extension());
      expect(status).toBe(422);
      expect(body.type).toMatch(/\/errors\/extensions-need-jail$/);
      expect(await t.app.deps.db.prisma.extension.count()).toBe(0);
      const created = await createSession(t, ws.key, { region: "us-east1", extension_ids: ["ext_01J0000000000000000000000"] });
      expect(created.res.status).toBe(422);
      expect((created.body as unknown as { type: string }).type).toMatch(/\/errors\/extensions-need-jail$/);
      expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    });
  });
});
