import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CdpClient } from "../../src/browser/cdp/pipe/client.ts";
import type { BrowserLease } from "../../src/browser/pool/types.ts";
import { findChromium } from "../../src/browser/launch/command.ts";
import { internalContext } from "../../src/deps.ts";
import type { Session } from "../../src/generated/prisma/client.ts";
import { applyLeased, giveBackUnused, type CheckedFeature } from "../../src/services/sessions/browser-features/apply.ts";
import { defineFeature } from "../../src/services/sessions/browser-features/feature.ts";
import { browserSettings } from "../../src/services/sessions/browser-features/browser-settings.ts";
import type { CreateSessionInput } from "../../src/services/sessions/session-input.ts";
import { servicesRequired } from "../support/services.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

// Real Chromium and the app's own pool: a browser a dirtying feature was applied to is never a spare
// again (for any workspace), while one whose features were all undone is.

const input: CreateSessionInput = { region: "us-east1", browser: { locale: "fr-CH" } };

/** A feature as a new option's file would declare it: it leaves a cookie in the browser, which no undo removes. */
const leavesACookie = defineFeature({
  name: "leaves a cookie",
  reads: ["metadata"],
  phase: "leased",
  dirtiesSpare: true,
  wanted: () => true,
  apply: async ({ lease }) => {
    const cdp = await CdpClient.open(lease.cdp);
    try {
      await cdp.send("Storage.setCookies", { cookies: [{ name: "left", value: "behind", domain: "example.com", path: "/" }] });
    } finally {
      cdp.close();
    }
  },
});

async function cookies(lease: BrowserLease): Promise<string[]> {
  const cdp = await CdpClient.open(lease.cdp);
  try {
    return (await cdp.send<{ cookies: Array<{ name: string }> }>("Storage.getCookies")).cookies.map((c) => c.name);
  } finally {
    cdp.close();
  }
}

describe.skipIf(!findChromium(process.env.VESSEL_CHROMIUM_PATH) && !servicesRequired)("browser features and the pool (real Chromium)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { VESSEL_BROWSER_WARM: "1", VESSEL_BROWSER_CAPACITY: "2" } });
  });
  afterAll(() => t?.stop());

  const spareReady = () => vi.waitFor(() => expect(t.app.deps.browsers.report().warm).toBe(1), { timeout: 30_000, interval: 20 });

  /** Takes the warm spare for `sessionId`, applies `features` as a create does, and gives the browser back unused. */
  async function applyAndGiveBack(sessionId: string, features: CheckedFeature[]): Promise<BrowserLease> {
    await spareReady();
    const lease = t.app.deps.browsers.acquireSpare(sessionId);
    if (!lease) throw new Error("no spare");
    const ctx = internalContext(t.app.deps, sessionId);
    const now = new Date();
    const session: Session = {
      id: sessionId,
      workspaceId: "ws_features",
      status: "RUNNING",
      region: "us-east1",
      endReason: null,
      nodeId: "node",
      apiKeyId: null,
      endedById: null,
      profileId: null,
      saveProfileOnRelease: false,
      timeoutSeconds: 60,
      idleTimeoutSeconds: 60,
      liveViewInteractive: false,
      liveViewInstructions: null,
      liveViewGeneration: 0,
      metadata: {},
      browser: input.browser ?? null,
      extensionIds: [],
      options: {},
      logs: false,
      recording: false,
      createdAt: now,
      startedAt: now,
      expiresAt: now,
      lastActivityAt: null,
      endedAt: null,
    };
    const applied = await applyLeased(features, { ctx, input, workspaceId: "ws_features", session, lease });
    await giveBackUnused(applied, lease);
    return lease;
  }

  const checked = async (...features: (typeof browserSettings)[]) => {
    const ctx = internalContext(t.app.deps, "check");
    return Promise.all(features.map(async (feature) => ({ feature, apply: await feature.check({ ctx, input, workspaceId: "ws_features" }) })));
  };

  it("gives back a browser whose features were all undone: the next session gets the same browser", async () => {
    const first = await applyAndGiveBack("ses_clean_1", await checked(browserSettings));
    expect(t.app.deps.browsers.report()).toMatchObject({ inUse: 0, warm: 1 });
    const next = t.app.deps.browsers.acquireSpare("ses_clean_2")!;
    expect(next.pid).toBe(first.pid);
    await next.unused();
  });

  it("never gives back a browser a dirtying feature was applied to: it is closed, and the next session gets a fresh one", async () => {
    const launches = t.app.deps.browsers.launches;
    const dirty = await applyAndGiveBack("ses_dirty_1", await checked(browserSettings, leavesACookie));
    // Closed (giveBackUnused waits for it), not offered.
    const state = await Promise.race([dirty.exited.then(() => "exited"), new Promise((resolve) => setTimeout(() => resolve("still running"), 2_000))]);
    expect(state).toBe("exited");
    expect(t.app.deps.browsers.report().inUse).toBe(0);
    await spareReady();
    expect(t.app.deps.browsers.launches).toBeGreaterThan(launches);
    const next = t.app.deps.browsers.acquireSpare("ses_dirty_2")!;
    try {
      expect(next.pid).not.toBe(dirty.pid);
      expect(await cookies(next)).not.toContain("left");
    } finally {
      await next.release();
    }
    // Given back twice, or released after: nothing changes (the slot was freed once).
    await dirty.unused();
    expect(t.app.deps.browsers.report().inUse).toBe(0);
  });
});
