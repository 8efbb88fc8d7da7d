import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionFirstKey } from "../../src/services/api-keys/first-start.ts";
import { bearer, seedWorkspace, startTestApp, type TestApp } from "../support/app.ts";

describe("the embedded default's first start", () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-first-"));
  });
  afterAll(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("writes a working API key to a private file once, and never again", async () => {
    const file = await provisionFirstKey(t.app.deps, dir);
    expect(file).toBe(path.join(dir, "first-api-key"));
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600);
    const key = fs.readFileSync(file!, "utf8").trim();
    expect((await fetch(`${t.url}/v1/sessions`, { headers: bearer(key) })).status).toBe(200);
    expect(await provisionFirstKey(t.app.deps, dir)).toBeNull();
  });

  it("does nothing when a workspace already exists", async () => {
    const other = await startTestApp();
    try {
      await seedWorkspace(other);
      expect(await provisionFirstKey(other.app.deps, dir)).toBeNull();
    } finally {
      await other.stop();
    }
  });
});
