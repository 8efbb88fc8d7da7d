import type { SessionLogs } from "./session-logs.ts";

/** What the session-logs domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    /** The logs of the sessions running on this node, while they are captured and written. */
    sessionLogs: SessionLogs;
  }
}
