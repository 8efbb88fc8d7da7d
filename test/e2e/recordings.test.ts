import fs from "node:fs";
import puppeteer from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { exitCodes, runCli } from "@vessel/client/cli";
import { NotFoundError, TimeoutError, Vessel } from "@vessel/client";
import { recordingFile } from "../../src/services/recordings/recording-store.ts";
import { endSession } from "../../src/services/sessions/sessions.ts";
import { bearer, seedUser, seedWorkspace, startTestApp, userAuth, type Seeded, type TestApp } from "../support/app.ts";
import { ffprobe, hasFfmpeg, lastFramePixel, near, PAGE_RGB, startColourPage } from "../support/recordings.ts";
import { createSession, eventually, releaseSession } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

/**
 * Recordings end to end with real Chromium, the jailed ffmpeg and the embedded database: a session
 * created with `recording: true` visits a page of one colour, ends, and its video is fetched whole
 * and by ranges, read by ffprobe, decoded, refused to another workspace, deleted, and expired.
 */

const hasChromium = chromiumPath() !== undefined;
if ((!hasChromium || !hasFfmpeg) && servicesRequired) throw new Error("Chromium and ffmpeg are required (VESSEL_REQUIRE_SERVICES=1)");

const recordingUrl = (t: TestApp, id: string, query = "") => `${t.url}/v1/sessions/${id}/recording${query}`;

describe.skipIf(!hasChromium || !hasFfmpeg)("session recordings", () => {
  let t: TestApp;
  let ws: Seeded;
  let other: Seeded;
  let page: Awaited<ReturnType<typeof startColourPage>>;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    page = await startColourPage();
  });
  afterAll(async () => {
    await t?.stop();
    await page?.close();
  });
  afterEach(async () => {
    const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
    for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
  });

  /** A recorded session that showed the colour page for a while, released; answers its id once its video is READY. */
  async function recorded(): Promise<string> {
    const { res, body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    expect(res.status).toBe(201);
    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
    const [tab] = await browser.pages();
    await tab!.goto(page.url);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await browser.disconnect();
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    await eventually(
      () => fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) }).then((r) => r.status),
      (s) => s !== 409,
      60_000,
    );
    return body.id;
  }

  it("records the session's screen into an MP4 of its length that shows the page, served whole and by ranges to its workspace only", async () => {
    const { res, body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    expect(res.status).toBe(201);
    // While it runs: not ready yet, with a hint when to come back.
    const early = await fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) });
    expect(early.status).toBe(409);
    expect(early.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await early.json()) as { type: string }).type).toMatch(/\/errors\/recording-not-ready$/);
    expect(await t.app.deps.db.prisma.recording.findUnique({ where: { sessionId: body.id } })).toMatchObject({ status: "RECORDING", storage: "file" });

    const browser = await puppeteer.connect({ browserWSEndpoint: body.connect_url! });
    const [tab] = await browser.pages();
    await tab!.goto(page.url);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await browser.disconnect();
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);

    const whole = await eventually(
      () => fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) }),
      (r) => r.status !== 409,
      60_000,
    );
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(Number(whole.headers.get("content-length"))).toBe(bytes.length);

    const session = await t.app.deps.db.prisma.session.findUniqueOrThrow({ where: { id: body.id } });
    const row = await t.app.deps.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: body.id } });
    expect(row).toMatchObject({ status: "READY", sizeBytes: bytes.length });
    const probe = ffprobe(bytes);
    expect(probe.formatName).toContain("mp4");
    expect(probe).toMatchObject({ codec: "h264", pixFmt: "yuv420p", width: row.width, height: row.height });
    const sessionSeconds = (session.endedAt!.getTime() - session.startedAt!.getTime()) / 1000;
    expect(Math.abs(probe.durationSeconds - sessionSeconds)).toBeLessThanOrEqual(1);
    // The last frame shows the page: its colour away from the animated box.
    expect(near(lastFramePixel(bytes, probe.width, Math.floor(probe.width / 2), Math.floor(probe.height / 2)), PAGE_RGB)).toBe(true);

    // Ranges: exactly those bytes of the whole.
    const ranged = await fetch(recordingUrl(t, body.id), { headers: { ...bearer(ws.key), range: "bytes=100-1099" } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes 100-1099/${bytes.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(100, 1100))).toBe(true);
    const tail = await fetch(recordingUrl(t, body.id), { headers: { ...bearer(ws.key), range: "bytes=-300" } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 300))).toBe(true);
    const from = await fetch(recordingUrl(t, body.id), { headers: { ...bearer(ws.key), range: `bytes=${bytes.length - 10}-` } });
    expect(Buffer.from(await from.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const beyond = await fetch(recordingUrl(t, body.id), { headers: { ...bearer(ws.key), range: `bytes=${bytes.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${bytes.length}`);

    // Another workspace cannot tell it exists.
    expect((await fetch(recordingUrl(t, body.id), { headers: bearer(other.key) })).status).toBe(404);
    expect((await fetch(recordingUrl(t, body.id), { method: "DELETE", headers: bearer(other.key) })).status).toBe(404);

    // Every read is audited, refused ones included.
    await t.app.deps.audit.flush();
    const reads = await t.app.deps.db.prisma.auditEntry.findMany({ where: { action: "session.recording.read", target: body.id } });
    expect(reads.map((r) => r.httpStatus)).toEqual(expect.arrayContaining([200, 206, 409, 416]));

    // Its events say when it was ready; GraphQL tells the same story.
    const events = (await (await fetch(`${t.url}/v1/sessions/${body.id}/events`, { headers: bearer(ws.key) })).json()) as {
      items: Array<{ type: string; data: Record<string, unknown> }>;
    };
    expect(events.items.find((e) => e.type === "recording.ready")?.data).toMatchObject({ size_bytes: bytes.length });
    const gql = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { ...bearer(ws.key), "content-type": "application/json" },
      body: JSON.stringify({
        query: `query($id: String!) { session(id: $id) { recordingInfo { status sizeBytes durationMs url } } }`,
        variables: { id: body.id },
      }),
    });
    const info = ((await gql.json()) as { data: { session: { recordingInfo: { status: string; sizeBytes: number; durationMs: number; url: string } } } }).data
      .session.recordingInfo;
    expect(info).toMatchObject({
      status: "READY",
      sizeBytes: bytes.length,
      durationMs: row.durationMs,
      url: `${t.config.publicBaseUrl}/v1/sessions/${body.id}/recording`,
    });

    // Its bytes are sealed on disk: no MP4 signature in the clear.
    const sealed = fs.readFileSync(recordingFile(t.config, body.id));
    expect(sealed.includes(Buffer.from("ftypisom"))).toBe(false);
    expect(bytes.includes(Buffer.from("ftyp"))).toBe(true);
  });

  it("reaches a dashboard member (naming the workspace or not), not a member of another workspace", async () => {
    const id = await recorded();
    const member = await seedUser(t, ws.workspace.id, "MEMBER");
    const stranger = await seedUser(t, other.workspace.id, "OWNER");
    expect((await fetch(recordingUrl(t, id), { headers: userAuth(member) })).status).toBe(200);
    expect((await fetch(recordingUrl(t, id, `?workspace=${ws.workspace.slug}`), { headers: userAuth(member) })).status).toBe(200);
    expect((await fetch(recordingUrl(t, id), { headers: userAuth(stranger) })).status).toBe(404);
    expect((await fetch(recordingUrl(t, id, `?workspace=${other.workspace.slug}`), { headers: userAuth(stranger) })).status).toBe(404);
  });

  it("DELETE removes the row, its key and its bytes: 404 afterwards", async () => {
    const id = await recorded();
    const file = recordingFile(t.config, id);
    expect(fs.existsSync(file)).toBe(true);
    expect((await fetch(recordingUrl(t, id), { method: "DELETE", headers: bearer(ws.key) })).status).toBe(204);
    expect(await t.app.deps.db.prisma.recording.findUnique({ where: { sessionId: id } })).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
    expect((await fetch(recordingUrl(t, id), { headers: bearer(ws.key) })).status).toBe(404);
    expect((await fetch(recordingUrl(t, id), { method: "DELETE", headers: bearer(ws.key) })).status).toBe(404);
  });

  it("the retention job deletes recordings past their expiry, row and bytes; an expired one is 404 before the job runs", async () => {
    const id = await recorded();
    const file = recordingFile(t.config, id);
    await t.app.deps.db.prisma.recording.update({ where: { sessionId: id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await fetch(recordingUrl(t, id), { headers: bearer(ws.key) })).status).toBe(404);
    expect(fs.existsSync(file)).toBe(true);
    await t.app.jobs.runNow("purge-expired-recordings");
    expect(await t.app.deps.db.prisma.recording.findUnique({ where: { sessionId: id } })).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
  });

  it("the client waits for the recording and downloads it (bytes, stream, file); the CLI saves it with -o", async () => {
    const vessel = new Vessel({ apiKey: ws.key, baseUrl: t.url });
    const session = await vessel.sessions.create({ region: "us-east1", recording: true });
    const browser = await puppeteer.connect({ browserWSEndpoint: session.connect_url! });
    const [tab] = await browser.pages();
    await tab!.goto(page.url);
    await browser.disconnect();
    // Still running: a client that will not wait is told so.
    await expect(vessel.sessions.downloadRecording(session.id, { waitSeconds: 0 })).rejects.toBeInstanceOf(TimeoutError);
    await vessel.sessions.release(session.id);
    const bytes = await vessel.sessions.downloadRecording(session.id);
    expect(ffprobe(Buffer.from(bytes)).codec).toBe("h264");
    const streamed = Buffer.from(await new Response(await vessel.sessions.downloadRecording(session.id, { stream: true })).arrayBuffer());
    expect(streamed.equals(Buffer.from(bytes))).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-rec-cli-"));
    try {
      expect(await vessel.sessions.downloadRecording(session.id, { to: path.join(dir, "a.mp4") })).toBe(bytes.length);
      expect(fs.readFileSync(path.join(dir, "a.mp4")).equals(Buffer.from(bytes))).toBe(true);
      const out: string[] = [];
      const io = { out: (line: string) => out.push(line), err: () => {}, interactive: false, env: { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url } };
      expect(await runCli(["sessions", "recording", session.id, "-o", path.join(dir, "b.mp4")], io)).toBe(exitCodes.ok);
      expect(fs.readFileSync(path.join(dir, "b.mp4")).equals(Buffer.from(bytes))).toBe(true);
      expect(out.join("\n")).toContain(`${bytes.length} bytes`);
      expect(await runCli(["sessions", "recording", session.id], io)).toBe(exitCodes.usage);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await vessel.sessions.deleteRecording(session.id);
    await expect(vessel.sessions.downloadRecording(session.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a session released right after its create still has a video (of its blank page)", async () => {
    const { body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    await t.app.deps.recordings.settled();
    const row = await t.app.deps.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: body.id } });
    expect(row).toMatchObject({ status: "READY", failure: null });
    expect(row.frames).toBeGreaterThanOrEqual(1);
    const res = await fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) });
    expect(ffprobe(Buffer.from(await res.arrayBuffer())).codec).toBe("h264");
  });

  it("a session without `recording` has no recording: no row, 404", async () => {
    const { body } = await createSession(t, ws.key);
    expect((await fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) })).status).toBe(404);
    await releaseSession(t, ws.key, body.id);
    await t.app.deps.recordings.settled();
    expect(await t.app.deps.db.prisma.recording.findUnique({ where: { sessionId: body.id } })).toBeNull();
    expect((await fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) })).status).toBe(404);
  });
});

describe.skipIf(!hasChromium || !hasFfmpeg)("a recording that cannot be encoded", () => {
  let t: TestApp;
  let ws: Seeded;
  beforeAll(async () => {
    // An "ffmpeg" that exits at once: the session runs as usual, its recording fails.
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "1", VESSEL_FFMPEG_PATH: "/usr/bin/false" } });
    ws = await seedWorkspace(t);
  });
  afterAll(async () => t?.stop());

  it("fails with a reason (row, event), answers 404 saying so, and keeps no bytes", async () => {
    const { res, body } = await createSession(t, ws.key, { region: "us-east1", recording: true });
    expect(res.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await releaseSession(t, ws.key, body.id)).status).toBe(204);
    await t.app.deps.recordings.settled();
    const row = await t.app.deps.db.prisma.recording.findUniqueOrThrow({ where: { sessionId: body.id } });
    expect(row).toMatchObject({ status: "FAILED", failure: "the video could not be encoded", sizeBytes: null });
    expect(fs.existsSync(recordingFile(t.config, body.id))).toBe(false);
    const answer = await fetch(recordingUrl(t, body.id), { headers: bearer(ws.key) });
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { detail: string }).detail).toContain("the video could not be encoded");
    const events = (await (await fetch(`${t.url}/v1/sessions/${body.id}/events`, { headers: bearer(ws.key) })).json()) as {
      items: Array<{ type: string; data: Record<string, unknown> }>;
    };
    expect(events.items.find((e) => e.type === "recording.failed")?.data).toEqual({ reason: "the video could not be encoded" });
    expect(events.items.some((e) => e.type === "session.released")).toBe(true);
  });
});
