import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import busboy from "busboy";
import path from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { startPageServer } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

const root = path.resolve(import.meta.dirname, "../..");

/** Runs an example as a user would (`npx tsx examples/<name>.ts <url>`), with `onLine` seeing each line it prints. */
function runExample(name: string, env: Record<string, string>, args: string[], onLine: (line: string) => void = () => {}) {
  return new Promise<{ code: number | null; lines: string[]; stderr: string }>((resolve) => {
    // The examples import `@vessel/client` as a user does; the condition resolves it to the workspace source (no build needed).
    const child = spawn(process.execPath, ["--conditions=@vessel/source", "--import", "tsx", `examples/${name}.ts`, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    const lines: string[] = [];
    let stderr = "";
    let partial = "";
    child.stdout.on("data", (chunk: Buffer) => {
      partial += chunk.toString();
      const parts = partial.split("\n");
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        onLine(line);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, lines, stderr });
    });
  });
}

describe.skipIf(!hasChromium)("the examples run green against a local server", () => {
  let t: TestApp;
  let ws: Seeded;
  let site: Awaited<ReturnType<typeof startPageServer>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    ws = await seedWorkspace(t);
    site = await startPageServer();
    env = { VESSEL_API_KEY: ws.key, VESSEL_BASE_URL: t.url };
  });
  afterAll(async () => {
    await site?.close();
    await t?.stop();
  });

  const releasedAll = async () => expect(await t.app.deps.db.prisma.session.count({ where: { workspaceId: ws.workspace.id, status: "RUNNING" } })).toBe(0);

  it("puppeteer", async () => {
    const run = await runExample("puppeteer", env, [site.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.lines.at(-1)!)).toMatchObject({ title: "Vessel test page" });
    await releasedAll();
  }, 60_000);

  it("playwright", async () => {
    const run = await runExample("playwright", env, [site.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.lines.at(-1)!)).toMatchObject({ title: "Vessel test page", heading: "hello from loopback" });
    await releasedAll();
  }, 60_000);

  it("upload-form: a real multipart form receives the file the session was given", async () => {
    // The form's server reads the multipart body as any web application would.
    const form = http.createServer((req, res) => {
      if (req.method !== "POST")
        return res
          .setHeader("content-type", "text/html")
          .end('<form method="post" enctype="multipart/form-data" action="/upload"><input type="file" name="doc"><button>Send</button></form>');
      const parts: Array<{ name: string; size: number; text: string }> = [];
      const parser = busboy({ headers: req.headers });
      parser.on("file", (_field, stream, info) => {
        const chunks: Buffer[] = [];
        stream
          .on("data", (c: Buffer) => chunks.push(c))
          .on("end", () => parts.push({ name: info.filename ?? "", size: Buffer.concat(chunks).length, text: Buffer.concat(chunks).toString() }));
      });
      parser.on("close", () =>
        res.setHeader("content-type", "text/plain").end(`received ${parts.map((p) => `${p.name} ${p.size} bytes: ${p.text}`).join("; ")}`),
      );
      req.pipe(parser);
    });
    await new Promise<void>((r) => form.listen(0, "127.0.0.1", () => r()));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vessel-example-")), "report.csv");
    fs.writeFileSync(file, "a,b\n1,2\n");
    try {
      const run = await runExample("upload-form", env, [`http://127.0.0.1:${(form.address() as AddressInfo).port}/`, file]);
      expect(run.code, run.stderr).toBe(0);
      const out = JSON.parse(run.lines.at(-1)!) as { uploaded: { name: string; size: number }; answer: string };
      expect(out.uploaded).toMatchObject({ name: "report.csv", size: 8 });
      expect(out.answer).toBe("received report.csv 8 bytes: a,b\n1,2");
      await releasedAll();
    } finally {
      form.close();
    }
  }, 60_000);

  it("webhook-receiver: checks a real delivery's signature, refuses a forged one", async () => {
    const port = await freePort();
    const auth = { authorization: `Bearer ${ws.key}`, "content-type": "application/json" };
    const made = await fetch(`${t.url}/v1/webhooks`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/`, events: ["session.released"] }),
    });
    const hook = (await made.json()) as { id: string; secret: string };
    // A server runs until stopped: spawned here (not runExample, which waits for the exit) and killed at the end.
    const child = spawn(process.execPath, ["--conditions=@vessel/source", "--import", "tsx", "examples/webhook-receiver.ts"], {
      cwd: root,
      env: { ...process.env, ...env, VESSEL_WEBHOOK_SECRET: hook.secret, PORT: String(port) },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      await expect.poll(() => out, { timeout: 30_000 }).toContain('"listening"');
      const forged = await fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: { "webhook-id": "msg_x", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
        body: "{}",
      });
      expect(forged.status).toBe(400);
      const test = (await (await fetch(`${t.url}/v1/webhooks/${hook.id}:test`, { method: "POST", headers: auth })).json()) as { id: string };
      await expect.poll(() => out, { timeout: 20_000 }).toContain(`"webhook_id":"${test.id}","type":"webhook.test"`);
      const log = (await (await fetch(`${t.url}/v1/webhooks/${hook.id}/deliveries`, { headers: auth })).json()) as { items: unknown[] };
      expect(log.items).toMatchObject([{ status: "delivered", last_response_code: 204 }]);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("hand-off: a person clicks Done in the live view, then the script carries on", async () => {
    const person = await chromium.launch({
      executablePath: chromiumPath(),
      args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-quic"],
    });
    let clicked: Promise<void> | undefined;
    try {
      const run = await runExample("hand-off", env, [site.url], (line) => {
        const { live_view_url } = JSON.parse(line) as { live_view_url?: string };
        if (!live_view_url) return;
        clicked = (async () => {
          const page = await person.newPage();
          await page.goto(live_view_url);
          await page.locator("#done").click();
          await page.locator("#done-status").filter({ hasText: "Done sent" }).waitFor();
        })();
      });
      await clicked;
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.lines.at(-1)!)).toMatchObject({ title: "Vessel test page" });
      await releasedAll();
    } finally {
      await person.close();
    }
  }, 60_000);
});
