import { describe, expect, it } from "vitest";
import type { Session } from "../../src/generated/prisma/client.ts";
import { anySlow, wantedFeatures } from "../../src/services/sessions/browser-features/apply.ts";
import { defineFeature, spareDirtiedBy, type FeaturePhase } from "../../src/services/sessions/browser-features/feature.ts";
import { browserFeatures } from "../../src/services/sessions/browser-features/registry.ts";
import type { CreateSessionInput } from "../../src/services/sessions/session-input.ts";

// The pool rule is derived from the features' declarations: a browser may go back to the pool
// unless a feature the create applied to it dirties a spare.

/** The row a create would write, as planSession builds it (only what the features read matters). */
function rowOf(input: CreateSessionInput): Session {
  const now = new Date();
  return {
    id: "ses_test",
    workspaceId: "ws_test",
    status: "RUNNING",
    region: input.region,
    endReason: null,
    nodeId: "node",
    apiKeyId: null,
    endedById: null,
    profileId: input.profile_id ?? null,
    saveProfileOnRelease: false,
    timeoutSeconds: 60,
    idleTimeoutSeconds: 60,
    liveViewInteractive: false,
    liveViewInstructions: null,
    liveViewGeneration: 0,
    metadata: {},
    browser: input.browser ?? null,
    extensionIds: input.extension_ids ?? [],
    options: {},
    logs: input.logs ?? false,
    recording: input.recording ?? false,
    createdAt: now,
    startedAt: now,
    expiresAt: now,
    lastActivityAt: null,
    endedAt: null,
  };
}

const registered = browserFeatures.map((feature) => ({ feature }));

/** Whether the features this create wants in `phase` dirty the browser (what giveBackUnused then does). */
function dirtied(input: Omit<CreateSessionInput, "region">, phase: FeaturePhase = "leased"): boolean {
  const full = { region: "us-east1", ...input };
  const wanted = wantedFeatures(registered, { input: full, session: rowOf(full) }).filter(({ feature }) => feature.phase === phase);
  return spareDirtiedBy(wanted.map(({ feature }) => feature));
}

describe("browser features: the pool rule follows from their declarations", () => {
  it("a create with extensions dirties its browser as they load; settings and an upstream proxy do not", () => {
    expect(dirtied({ extension_ids: ["ext_1"] })).toBe(true);
    expect(dirtied({ extension_ids: ["ext_1"], browser: { locale: "fr-CH" } })).toBe(true);
    expect(dirtied({ browser: { locale: "fr-CH", viewport: { width: 800, height: 600 } }, proxy: { server: "http://proxy.example:8080" } })).toBe(false);
    expect(dirtied({ extension_ids: [] })).toBe(false);
    expect(dirtied({})).toBe(false);
  });

  it("a profile, a recording and a start URL dirty the browser in their own phases", () => {
    expect(dirtied({ profile_id: "prf_1" }, "recorded")).toBe(true);
    expect(dirtied({ recording: true }, "running")).toBe(true);
    expect(dirtied({ start_url: "https://example.com/" }, "running")).toBe(true);
    expect(dirtied({ logs: true }, "running")).toBe(false);
  });

  it("derives the decision from whatever is registered, a new feature included", () => {
    const blockAds = defineFeature({
      name: "block ads",
      reads: ["metadata"],
      phase: "leased",
      dirtiesSpare: true,
      wanted: ({ input }) => input.metadata?.["block_ads"] === "true",
      apply: () => {},
    });
    const withIt = [...browserFeatures, blockAds];
    const input = { region: "us-east1", metadata: { block_ads: "true" } };
    const wanted = wantedFeatures(
      withIt.map((feature) => ({ feature })),
      { input, session: rowOf(input) },
    );
    expect(wanted.map(({ feature }) => feature.name)).toContain("block ads");
    expect(spareDirtiedBy(wanted.map(({ feature }) => feature))).toBe(true);
    expect(spareDirtiedBy(wantedFeatures(registered, { input, session: rowOf(input) }).map(({ feature }) => feature))).toBe(false);
  });

  it("a slow feature (extensions) sends the create the two-statement way", () => {
    const input = { region: "us-east1", extension_ids: ["ext_1"] };
    expect(anySlow(wantedFeatures(registered, { input, session: rowOf(input) }))).toBe(true);
    const plain = { region: "us-east1", browser: { locale: "fr-CH" } };
    expect(anySlow(wantedFeatures(registered, { input: plain, session: rowOf(plain) }))).toBe(false);
  });

  it("every feature says whether it dirties a spare, and reads options of the create input", () => {
    for (const feature of browserFeatures) {
      expect(typeof feature.dirtiesSpare, feature.name).toBe("boolean");
      expect(feature.reads.length, feature.name).toBeGreaterThan(0);
    }
    // A feature that does not say is a type error (checked by `tsc -p .`), not a default.
    // @ts-expect-error dirtiesSpare is required
    defineFeature({ name: "forgetful", reads: ["browser"], phase: "leased", wanted: () => true, apply: () => {} });
  });
});
