import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { bearer, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";
import { cdpServed } from "../support/sockets.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const MiB = 1024 * 1024;
const LIMIT = 100 * MiB;
/** As many files as the 40 MiB uploads below, so only their bytes decide. */
const MAX_FILES = 8;

type Answer = { status: number; body: { name?: string; size?: number; type?: string } };

async function upload(t: TestApp, key: string, id: string, file: Blob, name: string): Promise<Answer> {
  const form = new FormData();
  form.append("file", file, name);
  const res = await fetch(`${t.url}/v1/sessions/${id}/files`, { method: "POST", headers: bearer(key), body: form });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

/** What the session's uploads folder holds: each stored file's bytes, read from the disk. */
function storedOnDisk(t: TestApp, id: string): number[] {
  const dir = t.app.deps.runtime.endpoint(id)!.uploadsDir;
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((entry) => path.join(dir, entry))
    .filter((p) => fs.lstatSync(p).isFile())
    .map((p) => fs.statSync(p).size);
}

async function listed(t: TestApp, key: string, id: string): Promise<string[]> {
  const res = await fetch(`${t.url}/v1/sessions/${id}/files`, { headers: bearer(key) });
  return ((await res.json()) as { items: { name: string }[] }).items.map((f) => f.name).sort();
}

function closed(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : ws.once("close", () => resolve())));
}

describe.skipIf(!hasChromium)("a session's quotas are reserved, not checked", () => {
  let t: TestApp;
  let low: TestApp;
  let ws: Seeded;
  let lowWs: Seeded;

  beforeAll(async () => {
    t = await startTestApp({
      env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "3", VESSEL_UPLOAD_MAX_BYTES: String(LIMIT), VESSEL_UPLOAD_MAX_FILES: String(MAX_FILES) },
    });
    // A node whose volume never has enough free space for uploads (4 PiB kept free); its CDP sockets are relayed inline.
    low = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "1", VESSEL_UPLOAD_MIN_FREE_BYTES: String(2 ** 52), VESSEL_CDP_RELAY: "inline" } });
    ws = await seedWorkspace(t);
    lowWs = await seedWorkspace(low);
  }, 240_000); // two nodes, one with a warm browser, on a shared machine: a bound, not a timing
  afterAll(async () => {
    await t?.stop();
    await low?.stop();
  });

  // 320 MiB through the multipart parser on a shared machine: not a timing, a bound on a slow run.
  it("stores at most VESSEL_UPLOAD_MAX_BYTES of 8 parallel 40 MiB uploads; the rest are 413 and leave nothing", { timeout: 180_000 }, async () => {
    const { body: session } = await createSession(t, ws.key);
    try {
      const file = new Blob([Buffer.alloc(40 * MiB, 7)]);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(t, ws.key, session.id, file, `big-${i}.bin`)));
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status !== 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(refused.map((a) => [a.status, a.body.type?.split("/").pop()])).toEqual(refused.map(() => [413, "payload-too-large"]));
      const onDisk = storedOnDisk(t, session.id);
      expect(onDisk.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(LIMIT);
      expect(onDisk).toEqual(created.map(() => 40 * MiB));
      expect(await listed(t, ws.key, session.id)).toEqual(created.map((a) => a.body.name).sort());
      // What the refused uploads had reserved was given back: the rest of the room is still there.
      const rest = LIMIT - created.length * 40 * MiB;
      expect((await upload(t, ws.key, session.id, new Blob([Buffer.alloc(rest, 1)]), "rest.bin")).status).toBe(201);
      expect((await upload(t, ws.key, session.id, new Blob(["x"]), "one-more.bin")).status).toBe(413);
    } finally {
      await releaseSession(t, ws.key, session.id);
    }
  });

  it("stores at most VESSEL_UPLOAD_MAX_FILES of 20 parallel small uploads; the rest are 413 too-many-files", async () => {
    const { body: session } = await createSession(t, ws.key);
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(t, ws.key, session.id, new Blob([`file ${i}`]), `small-${i}.txt`)));
      const created = answers.filter((a) => a.status === 201);
      expect(created).toHaveLength(MAX_FILES);
      expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body.type?.split("/").pop()])).toEqual(
        Array.from({ length: 20 - MAX_FILES }, () => [413, "too-many-files"]),
      );
      expect(storedOnDisk(t, session.id)).toHaveLength(MAX_FILES);
      expect(await listed(t, ws.key, session.id)).toEqual(created.map((a) => a.body.name).sort());
    } finally {
      await releaseSession(t, ws.key, session.id);
    }
  });

  it("refuses an upload with 507 when the volume would keep less than VESSEL_UPLOAD_MIN_FREE_BYTES free, storing nothing", async () => {
    const { body: session } = await createSession(low, lowWs.key);
    try {
      const answer = await upload(low, lowWs.key, session.id, new Blob(["hello"]), "hello.txt");
      expect(answer.status).toBe(507);
      expect(answer.body.type).toMatch(/\/errors\/insufficient-storage$/);
      expect(storedOnDisk(low, session.id)).toEqual([]);
      expect(fs.readdirSync(low.app.deps.runtime.endpoint(session.id)!.uploadsDir)).toEqual([]);
      expect(await listed(low, lowWs.key, session.id)).toEqual([]);
    } finally {
      await releaseSession(low, lowWs.key, session.id);
    }
  });

  for (const [relay, app] of [
    ["the relay host", () => t],
    ["inline", () => low],
  ] as const) {
    it(`closes a session's 17th CDP socket with 1008, and takes a new one once another has closed (${relay})`, async () => {
      const node = app();
      const key = node === t ? ws.key : lowWs.key;
      const { body: session } = await createSession(node, key);
      const open: WebSocket[] = [];
      try {
        for (let i = 0; i < 16; i++) {
          const got = await cdpServed(session.connect_url!);
          if (!("ws" in got)) throw new Error(`socket ${i + 1} was closed: ${got.code} ${got.reason}`);
          open.push(got.ws);
        }
        // All at once too: none of these may pass while the 16 hold.
        const extra = await Promise.all(Array.from({ length: 3 }, () => cdpServed(session.connect_url!)));
        for (const got of extra) {
          expect(got).toMatchObject({ code: 1008, reason: expect.stringMatching(/at most 16 CDP sockets/) });
        }
        const first = open.shift()!;
        first.close();
        await closed(first);
        await eventually(
          async () => node.app.deps.runtime.clientCount(session.id),
          (n) => n === 15,
        );
        const again = await cdpServed(session.connect_url!);
        if (!("ws" in again)) throw new Error(`refused after one closed: ${again.code} ${again.reason}`);
        open.push(again.ws);
        const over = await cdpServed(session.connect_url!);
        expect(over).toMatchObject({ code: 1008 });
      } finally {
        for (const s of open) s.close();
        await releaseSession(node, key, session.id);
      }
    });
  }
});
