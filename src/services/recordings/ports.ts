import type { RecordingNode } from "./recording-node.ts";

/** What the recordings domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    /** The recordings this node is making, which a drain or a stop waits for (recording-node.ts). */
    recordings: RecordingNode;
  }
}
