import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { connectToPipe } from "../support/pipe-transport.ts";
import { afterEach, describe, expect, it } from "vitest";
import { launchChromium, type ChromiumProcess } from "../../src/browser/launch/chromium.ts";
import { findChromium } from "../../src/browser/launch/command.ts";
import { warmUpProfile } from "../../src/browser/pool/warm-up.ts";
import { createLogger } from "../../src/logger.ts";
import { servicesRequired } from "../support/services.ts";

// Real Chromium, both binaries when installed: the warm-up must leave nothing a client can see.

const shell = findChromium(process.env.VESSEL_CHROMIUM_PATH);
const fullPath = "/usr/lib/chromium/chromium";
const binaries = [...new Set([shell, fs.existsSync(fullPath) ? fullPath : undefined].filter((b): b is string => b !== undefined))];
if (binaries.length === 0 && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1)");

const roots: string[] = [];
const browsers: ChromiumProcess[] = [];
afterEach(async () => {
  await Promise.allSettled(browsers.splice(0).map((b) => b.close()));
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

async function launch(executablePath: string): Promise<ChromiumProcess> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "vw-"));
  roots.push(root);
  const browser = await launchChromium({ executablePath, dataRoot: root, id: "warmup", log: createLogger("silent") });
  browsers.push(browser);
  return browser;
}

describe.skipIf(binaries.length === 0).each(binaries)("a warmed-up spare (%s)", (executablePath) => {
  it("has its cookie database and HTTP cache created, and looks to a client like a fresh browser", async () => {
    const browser = await launch(executablePath);
    await warmUpProfile(browser.cdp);
    // What the warm-up is for: the stores a first navigation would otherwise create.
    expect(fs.existsSync(path.join(browser.dir, "profile", "Default", "Cookies"))).toBe(true);
    expect(fs.existsSync(path.join(browser.dir, "profile", "Default", "Cache"))).toBe(true);

    const client = await connectToPipe(browser.cdp);
    try {
      const pages = await client.pages();
      expect(pages.map((p) => p.url())).toEqual(["about:blank"]);
      expect(client.browserContexts()).toHaveLength(1);
      const session = await client.target().createCDPSession();
      const { targetInfos } = (await session.send("Target.getTargets")) as { targetInfos: Array<{ type: string; url: string }> };
      expect(targetInfos.filter((t) => t.type === "page").map((t) => t.url)).toEqual(["about:blank"]);
      expect((await session.send("Storage.getCookies")).cookies).toEqual([]);
      // The page still works as a fresh one does, history included.
      expect(await pages[0]!.evaluate(() => history.length)).toBe(1);
    } finally {
      await client.disconnect();
    }
  });
});
