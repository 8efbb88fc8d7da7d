// Fill a real upload form in a Vessel session: the file goes into the session first, then the page's
// file input takes it by its path, as it would from a person's disk.
//   VESSEL_API_KEY=vs_… VESSEL_BASE_URL=http://localhost:8080 npx tsx examples/upload-form.ts <form url> [file]
import { readFile } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";
import { Vessel } from "@vessel/client";

const [url, file] = process.argv.slice(2);
if (!url) throw new Error("usage: upload-form.ts <url of a page with a file input in a form> [file to upload]");
const bytes = file ? await readFile(file) : Buffer.from(`Hello from Vessel, ${new Date().toISOString()}\n`);
const name = file ? path.basename(file) : "hello.txt";

const vessel = new Vessel();
const session = await vessel.sessions.create({ region: process.env.VESSEL_REGION ?? "us-east1" });
try {
  // Into the session's own folder: the only place on the server a file input may read from.
  const uploaded = await vessel.sessions.uploadFile(session.id, bytes, name);
  const browser = await chromium.connectOverCDP(session.connect_url!);
  const page = await browser.contexts()[0]!.newPage();
  await page.goto(url);
  await page.setInputFiles('input[type="file"]', uploaded.path);
  // Submit the form the input belongs to, and wait for the page it leads to.
  await Promise.all([page.waitForLoadState("load"), page.locator('input[type="file"]').evaluate((input: HTMLInputElement) => input.form!.requestSubmit())]);
  await page.waitForURL((u) => u.toString() !== url);
  console.log(
    JSON.stringify({
      session: session.id,
      uploaded: { name: uploaded.name, size: uploaded.size, sha256: uploaded.sha256 },
      answer: (await page.textContent("body"))?.trim(),
    }),
  );
  await browser.close();
} finally {
  await vessel.sessions.release(session.id);
}
