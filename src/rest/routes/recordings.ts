import { z } from "zod";
import { AppError } from "../../errors.ts";
import { openRecording, requireReady } from "../../services/recordings/recordings.ts";
import { operations } from "../../services/operations.ts";
import { parseByteRange } from "../byte-range.ts";
import { defineRoute, MediaReply } from "../define-route.ts";

const Params = z.object({ id: z.string().min(1).max(64) });
const Query = z.object({
  workspace: z.string().min(1).max(64).optional().describe("Dashboard users may name the session's workspace (slug); API keys act in their own."),
});

export const recordingRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/recording",
    operation: operations.sessionRecording,
    summary: "Fetch a session's recording",
    description:
      "The session's screen as an MP4 (H.264, variable frame rate), for sessions created with `recording: true` (or on a deployment " +
      "recording by default), once the session has ended and the video is stored: 409 `recording-not-ready` with `Retry-After` " +
      "before (the `recording.ready` event says when), 404 when there is none (not recorded, deleted, expired after " +
      "`VESSEL_RECORDING_RETENTION_DAYS`, or failed: the detail says why). Served inline with `Accept-Ranges: bytes`: one " +
      "`Range` gets 206 with exactly those bytes (a player seeks this way), a range past the end 416. Dashboard users reach it " +
      "with their cookie (a `<video src>`). Every read is audited (`session.recording.read`).",
    tags: ["Sessions"],
    input: {
      params: Params,
      query: Query,
      headers: z.object({ range: z.string().max(200).optional().describe("`bytes=first-last`, `bytes=first-` or `bytes=-suffix`.") }),
    },
    status: 200,
    file: "video/mp4",
    alternatives: { 206: { description: "One byte range of the video.", headers: { "Content-Range": "`bytes first-last/size`" } } },
    problems: ["not-found", "forbidden", "recording-not-ready", "range-not-satisfiable"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params, query, headers }, _http, run) => {
      const recording = await run(ctx, params.id);
      const { sizeBytes } = requireReady(recording);
      const range = parseByteRange(headers.range, sizeBytes);
      if (range === "unsatisfiable") {
        throw new AppError("range-not-satisfiable", `The recording has ${sizeBytes} bytes.`, {}, { "Content-Range": `bytes */${sizeBytes}` });
      }
      const bytes = range ?? { start: 0, end: sizeBytes - 1 };
      const stream = await openRecording(ctx, recording, bytes);
      return new MediaReply(recording.contentType, `${recording.sessionId}.mp4`, sizeBytes, range, () => stream);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/sessions/{id}/recording",
    operation: operations.deleteRecording,
    summary: "Delete a session's recording",
    description: "Deletes the video and its data key at once (at any status: one still being made is dropped). 204; 404 when there is none.",
    tags: ["Sessions"],
    input: { params: Params, query: Query },
    status: 204,
    problems: ["not-found", "forbidden"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params, query }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
];
