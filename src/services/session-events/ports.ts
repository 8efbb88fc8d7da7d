import type { EventRecorder } from "./event-recorder.ts";

/** What the session-events domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    /** Session events that happen outside requests (viewers, CDP clients), written in the background. */
    events: EventRecorder;
  }
}
