import { type RecordingView } from "../../services/recordings/recordings.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const RecordingStatus = builder.enumType("RecordingStatus", {
  description: "RECORDING while the session runs, PROCESSING while the video is encoded and stored after its end, then READY or FAILED.",
  values: ["RECORDING", "PROCESSING", "READY", "FAILED"] as const,
});

/** A session's video; its bytes come from REST (`url`: GET, with ranges). */
export const RecordingInfoRef = builder.objectRef<RecordingView>("RecordingInfo").implement({
  description: "A session's screen recording (MP4, H.264). The bytes come from REST: GET `url` (ranges allowed) once READY.",
  fields: (t) => ({
    status: t.field({ type: RecordingStatus, resolve: (r) => r.status }),
    contentType: t.exposeString("contentType"),
    sizeBytes: t.exposeInt("sizeBytes", { nullable: true, description: "Once READY." }),
    durationMs: t.exposeInt("durationMs", { nullable: true, description: "Once READY: as long as the session ran." }),
    frames: t.exposeInt("frames", { nullable: true }),
    width: t.exposeInt("width", { nullable: true }),
    height: t.exposeInt("height", { nullable: true }),
    failure: t.exposeString("failure", { nullable: true, description: "Why it FAILED." }),
    startedAt: t.field({ type: "DateTime", resolve: (r) => r.startedAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.endedAt }),
    readyAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.readyAt }),
    expiresAt: t.field({ type: "DateTime", description: "When the retention job deletes it.", resolve: (r) => r.expiresAt }),
    url: t.exposeString("url", { description: "GET /v1/sessions/{id}/recording on this deployment (API key, or the dashboard's cookie)." }),
  }),
});

const WORKSPACE_ARG = "The workspace (slug) to act in: optional; a dashboard user must be a member of the session's workspace, an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

builder.queryField(operations.sessionRecording.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionRecording },
    type: RecordingInfoRef,
    description: "A session's recording at any status (NOT_FOUND when there is none). An audited read, like fetching its bytes.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.sessionRecording, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.mutationField(operations.deleteRecording.id, (t) =>
  t.field({
    extensions: { operation: operations.deleteRecording },
    type: "Boolean",
    description: "Delete a session's recording and its data key (at any status).",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.deleteRecording, async (svc, run) => (await run(svc, id), true), opt(workspace)),
  }),
);
