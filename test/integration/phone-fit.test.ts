import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CdpClient } from "../../src/browser/cdp/pipe/client.ts";
import { launchChromium, type ChromiumProcess } from "../../src/browser/launch/chromium.ts";
import { findChromium } from "../../src/browser/launch/command.ts";
import { phoneFitter } from "../../src/live-view/phone-fit.ts";
import { createLogger } from "../../src/logger.ts";
import { servicesRequired } from "../support/services.ts";

// The live view's phone layout on a real tab: a viewer turning from portrait to landscape while the
// phone layout is still being applied gets the page back as it was.

const executablePath = findChromium(process.env.VESSEL_CHROMIUM_PATH);
if (!executablePath && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1)");

describe.skipIf(!executablePath)("the live view's phone layout on a real tab", () => {
  let root: string;
  let browser: ChromiumProcess;
  let cdp: CdpClient;
  let session: string;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "vpf-"));
    browser = await launchChromium({ executablePath: executablePath!, dataRoot: root, id: "fit", log: createLogger("silent") });
    cdp = await CdpClient.open(browser.cdp);
    const { targetInfos } = await cdp.send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
    const page = targetInfos.find((t) => t.type === "page")!;
    ({ sessionId: session } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true }));
  }, 60_000);
  afterAll(async () => {
    cdp?.close();
    await browser?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const width = async () =>
    (await cdp.send<{ result: { value: number } }>("Runtime.evaluate", { expression: "screen.width", returnByValue: true }, session)).result.value;

  it("undoes a phone layout asked for a moment before, still in flight", async () => {
    const desktop = await width();
    let viewport = { w: 390, h: 844, dpr: 3 };
    const fit = phoneFitter(cdp, () => viewport, { interactive: true, browser: null });
    await fit(session);
    expect(await width()).toBe(390); // the screen the page is laid out for
    viewport = { w: 1440, h: 900, dpr: 1 };
    await fit(session);
    expect(await width()).toBe(desktop);

    viewport = { w: 390, h: 844, dpr: 3 };
    const applying = fit(session); // not awaited: the viewer turns at once
    viewport = { w: 1440, h: 900, dpr: 1 };
    await Promise.all([applying, fit(session)]);
    expect(await width()).toBe(desktop);
  }, 60_000);
});
