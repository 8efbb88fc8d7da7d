import type { ProfileDocument } from "../../browser/profiles/format.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import type { PeerAddress } from "../../peers/peer-calls.ts";
import type { PlacedCreateReply } from "../../peers/placed-create.ts";

/** A placed create's call to the peer that runs it (src/peers/placed-create.ts makes it). */
export interface PeerCreates {
  /** Throws PeerUnreached (src/peers/peer-calls.ts) when the peer gave no word in time. */
  sendCreate(node: PeerAddress, request: unknown, deadlines: { ackMs: number; answerMs: number }): Promise<PlacedCreateReply>;
}

/** What the services ask of the cluster: a session's browser may run on any node. */
export interface ClusterHooks {
  /** Several nodes may share the database (PostgreSQL): a create may be placed on another (placement.ts). */
  readonly multiNode: boolean;
  /** True from SIGTERM on: this node takes no new sessions. */
  readonly draining: boolean;
  /** This node's lease ran out and has not been renewed since: it serves no session. */
  readonly fenced: boolean;
  /** The call that runs a create on the peer placement chose. */
  readonly peers: PeerCreates;
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
    /**
     * This node's part of the admission queue (absent in scripts): queue/dispatcher.ts. waitersFirst:
     * before a create takes a browser here, whoever waits in line takes one first; true when someone may
     * still wait for this node and it has no free browser (the next one to free is owed to them).
     */
    queue?: { wake(): void; waitersFirst(): Promise<boolean> };
  }
}
