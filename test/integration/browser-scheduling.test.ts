import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launchChromium } from "../../src/browser/launch/chromium.ts";
import { findChromium } from "../../src/browser/launch/command.ts";
import { liveGroupMembers } from "../../src/browser/launch/processes.ts";
import type { BrowserScheduling } from "../../src/browser/launch/scheduling.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";

// Real Chromium, started by the launcher process like the pool's (src/browser/launch/scheduling.ts says
// why): every process of a `batch` browser, renderers included, runs under SCHED_BATCH, jailed or
// not; a `normal` one under the default policy. The pid the node watches stays the browser's.

const SCHED_OTHER = 0;
const SCHED_BATCH = 3;
const executablePath = findChromium(process.env.VESSEL_CHROMIUM_PATH)!;
const log = createLogger("silent");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function launchWithPage(scheduling: BrowserScheduling | undefined, jailed: boolean) {
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vs-"));
  cleanups.push(() => fs.rmSync(dataRoot, { recursive: true, force: true }));
  const browser = await launchChromium({ executablePath, dataRoot, id: "b", log, ...(scheduling ? { scheduling } : {}), ...(jailed ? { jail: {} } : {}) });
  cleanups.push(() => browser.close());
  // A tab with a document of its own: a renderer, forked after the browser started.
  await browser.cdp.call("Target.createTarget", { url: "data:text/html,<p>scheduled</p>" });
  for (const deadline = Date.now() + 10_000; liveGroupMembers(browser.pid).length < 3; await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error("the browser started no renderer");
  }
  return browser;
}

const policies = (pid: number) => liveGroupMembers(pid).map((p) => p.policy);

describe("how the browsers are scheduled", () => {
  it("batch: the browser and every process it starts run under SCHED_BATCH; the watched pid is the browser's own", async () => {
    const browser = await launchWithPage("batch", false);
    expect(fs.readFileSync(`/proc/${browser.pid}/cmdline`, "utf8").split("\0")[0]).toBe(executablePath);
    const all = policies(browser.pid);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(new Set(all)).toEqual(new Set([SCHED_BATCH]));
  });

  it("batch, jailed: bubblewrap and the Chromium inside it run under SCHED_BATCH", async () => {
    const browser = await launchWithPage("batch", true);
    expect(fs.readFileSync(`/proc/${browser.pid}/cmdline`, "utf8")).toContain("bwrap");
    expect(new Set(policies(browser.pid))).toEqual(new Set([SCHED_BATCH]));
  });

  it("normal (and no setting at all): the default policy", async () => {
    expect(new Set(policies((await launchWithPage("normal", false)).pid))).toEqual(new Set([SCHED_OTHER]));
    expect(new Set(policies((await launchWithPage(undefined, false)).pid))).toEqual(new Set([SCHED_OTHER]));
  });

  it("a node is configured for batch unless told otherwise; anything but batch or normal is refused", () => {
    expect(loadConfig({}).browser.scheduling).toBe("batch");
    expect(loadConfig({ VESSEL_BROWSER_SCHEDULING: "normal" }).browser.scheduling).toBe("normal");
    expect(() => loadConfig({ VESSEL_BROWSER_SCHEDULING: "fifo" })).toThrow(/must be batch or normal/);
  });
});
