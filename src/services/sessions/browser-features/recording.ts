import { startRecording } from "../../recordings/recorder.ts";
import { defineFeature } from "./feature.ts";

/** `recording` (default: the deployment's): the session's screen into a video, stopped by a runtime finisher as it ends. */
export const recording = defineFeature({
  name: "recording",
  reads: ["recording"],
  phase: "running",
  // A screencast runs on the browser until its finisher stops it.
  dirtiesSpare: true,
  wanted: ({ session }) => session.recording,
  apply: ({ ctx, session, lease }) => startRecording(ctx.deps, session, lease),
});
