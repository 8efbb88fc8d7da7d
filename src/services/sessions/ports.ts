import type { ProfileDocument } from "../../browser/profiles/format.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import type { Idempotent } from "../../kernel/idempotency.ts";
import type { CreateSessionInput } from "./session-input.ts";
import type { SessionView } from "./session-view.ts";

/** What the services ask of the cluster: a session's browser may run on any node. */
export interface ClusterHooks {
  /** True from SIGTERM on: this node takes no new sessions. */
  readonly draining: boolean;
  /**
   * Runs a create where it should run, decided once: on another node when this one should not (full,
   * draining, another region); else `here`, and on another node after `here` failed for lack of
   * capacity. The workspace a dashboard user named travels in `ctx.workspace`.
   */
  placeCreate(
    ctx: ServiceContext,
    input: CreateSessionInput,
    idempotencyKey: string,
    here: () => Promise<Idempotent<SessionView>>,
  ): Promise<Idempotent<SessionView>>;
  /** A session's end was recorded: the node that runs its browser closes it (and its sockets). */
  sessionEnded(sessionId: string, message: string): void;
  /** Activity without a socket (keepalive): the node that runs the session restarts its idle countdown. */
  touch(sessionId: string): void;
  /** What a session's browser holds now, read by the node that runs it. */
  captureElsewhere(sessionId: string, workspaceId: string, baseProfileId: string | null): Promise<{ document: ProfileDocument }>;
}

/** What the sessions domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    /** The other nodes (absent in scripts): placement, forwarding, drain. See src/cluster/. */
    cluster?: ClusterHooks;
    /** This node's part of the admission queue (absent in scripts): queue/dispatcher.ts. */
    queue?: { wake(): void };
  }
}
