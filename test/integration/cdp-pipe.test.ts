import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type ChromiumProcess } from "../../src/browser/launch/chromium.ts";
import type { CdpChannel } from "../../src/browser/cdp/pipe/pipe.ts";
import { createLogger } from "../../src/logger.ts";
import { listeningTcpSockets, processTree } from "../support/isolation.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const executablePath = chromiumPath();
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/** A channel's user: what it received, and a way to call and wait for the answer. */
function user(channel: CdpChannel) {
  const received: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let nextId = 1;
  channel.onMessage = (data) => {
    received.push(JSON.parse(data.toString("utf8")) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  };
  const until = async <T>(find: () => T | undefined): Promise<T> => {
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    received,
    /** Sends a command; resolves with the whole answer (result or error). */
    async call(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, any>> {
      const id = nextId++;
      const sent = channel.send({ id, method, params, ...(sessionId ? { sessionId } : {}) });
      if (!sent) return { refused: true };
      return until(() => received.find((m) => m.id === id && m.sessionId === sessionId));
    },
    event: (method: string, match: (m: Record<string, any>) => boolean = () => true) => until(() => received.find((m) => m.method === method && match(m))),
  };
}

describe.skipIf(!executablePath)("the browser's pipe, shared by channels", () => {
  let browser: ChromiumProcess;
  let root: string;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "vpipe-"));
    browser = await launchChromium({ executablePath: executablePath!, dataRoot: root, id: "pipe", log: createLogger("silent") });
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("opens no DevTools port: the browser's processes listen on no TCP socket", () => {
    const tree = processTree(browser.pid);
    expect(tree.length).toBeGreaterThanOrEqual(3); // browser, zygote, utilities: the search looked
    expect(listeningTcpSockets(tree)).toEqual([]);
  });

  it("keeps channels apart: each sees its own sessions and events, and cannot use another's sessions", async () => {
    const a = user(await browser.cdp.open());
    const b = user(await browser.cdp.open());
    const { result: created } = await a.call("Target.createTarget", { url: "about:blank" });
    const { result: attached } = await a.call("Target.attachToTarget", { targetId: created.targetId, flatten: true });
    const aSession = attached.sessionId as string;
    // a's attach is a's: the event came to a (root id removed), not to b.
    await a.event("Target.attachedToTarget", (m) => m.params.sessionId === aSession && m.sessionId === undefined);
    expect(b.received.some((m) => JSON.stringify(m).includes(aSession))).toBe(false);

    const { result: evaluated } = await a.call("Runtime.evaluate", { expression: "6*7", returnByValue: true }, aSession);
    expect(evaluated.result.value).toBe(42);
    // b may not talk to a's session: the pipe refuses before Chromium hears of it.
    expect(await b.call("Runtime.evaluate", { expression: "1" }, aSession)).toEqual({ refused: true });

    // Events b enabled reach b alone.
    await b.call("Target.setDiscoverTargets", { discover: true });
    await a.call("Target.createTarget", { url: "about:blank" });
    await b.event("Target.targetCreated", (m) => m.params.targetInfo.type === "page");
    expect(a.received.some((m) => m.method === "Target.targetCreated")).toBe(false);
  });

  it("detaches a closed channel's sessions, and the others go on", async () => {
    const channel = await browser.cdp.open();
    const a = user(channel);
    const other = user(await browser.cdp.open());
    const { result: created } = await a.call("Target.createTarget", { url: "about:blank" });
    const { result: attached } = await a.call("Target.attachToTarget", { targetId: created.targetId, flatten: true });
    const channelsBefore = browser.cdp.channels;
    channel.close();
    expect(channel.isOpen).toBe(false);
    expect(browser.cdp.channels).toBe(channelsBefore - 1);
    expect(attached.sessionId).toMatch(/^[0-9A-F]{32}$/);
    // Only the closed channel was attached to its page; once detached, nobody is, and the page lives on.
    const attachedNow = async () =>
      ((await other.call("Target.getTargets")).result.targetInfos as Array<{ targetId: string; attached: boolean }>).find(
        (t) => t.targetId === created.targetId,
      )?.attached;
    await expect.poll(attachedNow).toBe(false);
  });

  it("ends every channel when the browser goes", async () => {
    const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "vpipe-"));
    const doomed = await launchChromium({ executablePath: executablePath!, dataRoot, id: "doomed", log: createLogger("silent") });
    const channel = await doomed.cdp.open();
    let closed = false;
    channel.onClose = () => (closed = true);
    process.kill(-doomed.pid, "SIGKILL");
    await doomed.cdp.closed;
    expect(closed).toBe(true);
    expect(channel.isOpen).toBe(false);
    await expect(doomed.cdp.open()).rejects.toThrow(/closed/);
    await doomed.close();
    fs.rmSync(dataRoot, { recursive: true, force: true });
  });
});
