// Carrying a create's features into its browser: checked before anything is taken, applied phase by
// phase, and undone (or the browser kept from the pool) when the browser goes back unused.
import type { BrowserLease } from "../../../browser/pool/types.ts";
import { browserFeatures } from "./registry.ts";
import { spareDirtiedBy, type BrowserFeature, type FeatureCheck, type FeaturePhase, type FeatureRequest, type FeatureRun, type Undo } from "./feature.ts";

/** A feature checked for one create, with its apply. */
export interface CheckedFeature {
  feature: BrowserFeature;
  apply(run: FeatureRun): Promise<Undo | void> | Undo | void;
}

/** What the `leased` phase put into a browser: what undoes it, and whether it may be a spare again. */
export interface AppliedFeatures {
  undo: Undo[];
  dirtiesSpare: boolean;
}

/** Runs every feature's check, in the registry's order: a refusal throws before anything is taken. */
export async function checkFeatures(c: FeatureCheck, features: readonly BrowserFeature[] = browserFeatures): Promise<CheckedFeature[]> {
  const checked: CheckedFeature[] = [];
  for (const feature of features) checked.push({ feature, apply: await feature.check(c) });
  return checked;
}

/** The features this create wants, in the registry's order. */
export function wantedFeatures<F extends { feature: BrowserFeature }>(checked: readonly F[], request: FeatureRequest): F[] {
  return checked.filter(({ feature }) => feature.wanted(request));
}

/** Whether one of them takes long to apply (the create then claims its key first; see FeatureSpec.slow). */
export const anySlow = (wanted: readonly { feature: BrowserFeature }[]): boolean => wanted.some(({ feature }) => feature.slow);

/**
 * Applies the `leased` features, one after the other. A browser one of them dirtied is marked so at
 * once: from then on nothing gives it back to the pool (BrowserLease.markDirty). On a failure the
 * caller releases the browser (closed, whatever was applied).
 */
export async function applyLeased(wanted: readonly CheckedFeature[], run: FeatureRun): Promise<AppliedFeatures> {
  const applied: AppliedFeatures = { undo: [], dirtiesSpare: false };
  const features: BrowserFeature[] = [];
  for (const ready of inPhase(wanted, "leased")) {
    features.push(ready.feature);
    applied.dirtiesSpare = spareDirtiedBy(features);
    if (applied.dirtiesSpare) run.lease.markDirty();
    const undo = await ready.apply(run);
    if (undo) applied.undo.push(undo);
  }
  return applied;
}

/**
 * Applies the features of a later phase (`recorded`, `running`), not waited for: the browser is the
 * session's for good (it is released, never given back, when the session ends). Each handles its
 * own failure (the profile's closes the browser; the start URL's is logged).
 */
export function applyStarted(wanted: readonly CheckedFeature[], phase: Exclude<FeaturePhase, "leased">, run: FeatureRun): void {
  for (const ready of inPhase(wanted, phase)) {
    if (spareDirtiedBy([ready.feature])) run.lease.markDirty();
    const done = ready.apply(run);
    if (done instanceof Promise) {
      done.catch((err: unknown) =>
        run.ctx.log.warn({ sessionId: run.session.id, feature: ready.feature.name, err: (err as Error)?.message }, "a browser feature could not be applied"),
      );
    }
  }
}

/** A browser no session took: its features undone, then back to the pool, unless one dirtied it (then closed). */
export async function giveBackUnused(applied: AppliedFeatures, lease: BrowserLease): Promise<void> {
  for (const undo of applied.undo) undo();
  await lease.unused();
}

function inPhase(wanted: readonly CheckedFeature[], phase: FeaturePhase): CheckedFeature[] {
  return wanted.filter(({ feature }) => feature.phase === phase);
}
