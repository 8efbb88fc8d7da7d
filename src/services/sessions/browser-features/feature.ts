// What a browser feature is: one create option (or a few) carried into the session's browser.
import type { BrowserLease } from "../../../browser/pool/types.ts";
import type { Session } from "../../../generated/prisma/client.ts";
import type { ServiceContext } from "../../../kernel/context.ts";
import type { CreateSessionInput } from "../session-input.ts";

/**
 * When a feature is applied, in the order a create goes:
 * - `leased`: to the browser just taken from the pool, before the session is recorded. The create
 *   may still give the browser back unused (a replay, no room left): what the feature returns
 *   (its undo) runs then, and a feature that `dirtiesSpare` keeps the browser from the pool.
 * - `recorded`: once the row is written, before the runtime tracks the browser (before any
 *   channel is opened on its pipe).
 * - `running`: once the runtime tracks it (its finishers may be registered); not waited for.
 */
export type FeaturePhase = "leased" | "recorded" | "running";

/** What a create decided before a browser is taken: its input and the row it will write. */
export interface FeatureRequest {
  input: CreateSessionInput;
  session: Session;
}

/** What a feature's check sees: before anything is taken, so a refusal has nothing to undo. */
export interface FeatureCheck {
  ctx: ServiceContext;
  input: CreateSessionInput;
  workspaceId: string;
}

/** What a feature's apply sees: the create, and the session's browser. */
export interface FeatureRun extends FeatureRequest {
  ctx: ServiceContext;
  workspaceId: string;
  lease: BrowserLease;
}

/** Undoes a `leased` feature on a browser that goes back unused (a CDP channel closed, say). */
export type Undo = () => void;

/** One feature as its file declares it; `S` is what its check hands to its apply. */
export interface FeatureSpec<S = undefined> {
  /** For logs and tests. */
  name: string;
  /** The create options it reads (what a reader of the registry looks for; the option's own declaration is in session-input.ts). */
  reads: readonly (keyof CreateSessionInput)[];
  phase: FeaturePhase;
  /**
   * Whether applying it leaves in the browser what no undo removes (an extension loaded, a profile's
   * cookies, a visited page): such a browser never goes back to the pool, for any workspace. No
   * default on purpose: a feature that does not say does not typecheck.
   */
  dirtiesSpare: boolean;
  /**
   * Applying it may take seconds (copying and loading extensions): the create then claims its key in
   * a statement of its own first, so a replay never waits for (or is refused) a browser.
   */
  slow?: boolean;
  /** Whether this create wants it applied. */
  wanted(request: FeatureRequest): boolean;
  /** Before anything is taken, for every create: refuses it (throws) or reads what apply needs. */
  check?(c: FeatureCheck): Promise<S>;
  apply(run: FeatureRun, checked: S): Promise<Undo | void> | Undo | void;
}

/** A feature as the registry holds it: its check's result kept inside the apply it returns. */
export interface BrowserFeature {
  readonly name: string;
  readonly reads: readonly (keyof CreateSessionInput)[];
  readonly phase: FeaturePhase;
  readonly dirtiesSpare: boolean;
  readonly slow: boolean;
  wanted(request: FeatureRequest): boolean;
  /** Runs the feature's check, if it has one, and answers its apply. */
  check(c: FeatureCheck): Promise<(run: FeatureRun) => Promise<Undo | void> | Undo | void>;
}

/** Declares a feature (one file each, registered in registry.ts). */
export function defineFeature<S = undefined>(spec: FeatureSpec<S>): BrowserFeature {
  return {
    name: spec.name,
    reads: spec.reads,
    phase: spec.phase,
    dirtiesSpare: spec.dirtiesSpare,
    slow: spec.slow ?? false,
    wanted: (request) => spec.wanted(request),
    check: async (c) => {
      const checked = (spec.check ? await spec.check(c) : undefined) as S;
      return (run) => spec.apply(run, checked);
    },
  };
}

/**
 * Whether a browser these features were applied to may go back to the pool: never once one of them
 * dirties a spare. The only place the rule is decided (the lease enforces it, browser/pool/lease.ts).
 */
export function spareDirtiedBy(applied: readonly Pick<BrowserFeature, "dirtiesSpare">[]): boolean {
  return applied.some((feature) => feature.dirtiesSpare);
}
