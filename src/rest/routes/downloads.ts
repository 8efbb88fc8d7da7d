import { z } from "zod";
import { openDownload, type Download } from "../../services/downloads/downloads.ts";
import { defineRoute, FileReply, listEnvelope } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

const DownloadDto = z
  .object({
    id: z.string().describe("Chromium's id for the download (a UUID)."),
    name: z.string().describe("The file name the site suggested."),
    state: z.enum(["in_progress", "completed", "canceled", "refused"]),
    bytes: z.number().int().describe("Size when completed; bytes received so far otherwise."),
    reason: z.string().nullable().describe("Why it was refused (the size cap, for example)."),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    available: z.boolean().describe("Whether GET …/downloads/{download_id} serves it now: completed, and the session still running."),
  })
  .meta({ id: "Download" });

function toDownloadDto(d: Download): z.output<typeof DownloadDto> {
  return {
    id: d.id,
    name: d.name,
    state: d.state,
    bytes: d.bytes,
    reason: d.reason,
    started_at: d.startedAt.toISOString(),
    ended_at: d.endedAt ? d.endedAt.toISOString() : null,
    available: d.available,
  };
}

const Params = z.object({ id: z.string().min(1).max(64) });

export const downloadRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/downloads",
    operation: operations.sessionDownloads,
    summary: "List a session's downloads",
    description:
      "Files the session's pages downloaded, oldest first. Chromium saves them in the session's own folder, whatever folder a CDP " +
      "client asks for; together they may take at most `VESSEL_DOWNLOAD_MAX_BYTES` (a download that would pass it is cancelled and " +
      "listed as `refused`). The list outlives the session; the files do not: fetch them before releasing it. " +
      "The list envelope, always one page (`has_more: false`).",
    tags: ["Sessions"],
    input: { params: Params },
    status: 200,
    response: listEnvelope(DownloadDto, "DownloadList"),
    problems: ["not-found"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }, _http, run) => ({ items: (await run(ctx, params.id)).map(toDownloadDto), next_cursor: null, has_more: false }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/downloads/{download_id}",
    operation: operations.sessionDownload,
    summary: "Fetch a downloaded file",
    description:
      "The file's bytes as an attachment (`application/octet-stream`, never rendered). Only completed downloads of a running " +
      "session: 409 while it is still downloading or when it was refused, 410 once the session has ended.",
    tags: ["Sessions"],
    input: { params: Params.extend({ download_id: z.string().min(1).max(64) }) },
    status: 200,
    file: true,
    problems: ["not-found", "conflict", "gone"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }, _http, run) => {
      const file = await openDownload(ctx, params.id, await run(ctx, params.id, params.download_id));
      return new FileReply(file.name, file.size, file.open);
    },
  }),
];
