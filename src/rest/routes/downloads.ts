import { z } from "zod";
import { DownloadDto, listDownloads, openDownload } from "../../services/downloads/downloads.ts";
import { defineRoute, FileReply } from "../define-route.ts";

const Params = z.object({ id: z.string().min(1).max(64) });

export const downloadRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/downloads",
    operationId: "sessionDownloads",
    summary: "List a session's downloads",
    description:
      "Files the session's pages downloaded, oldest first. Chromium saves them in the session's own folder, whatever folder a CDP " +
      "client asks for; together they may take at most `VESSEL_DOWNLOAD_MAX_BYTES` (a download that would pass it is cancelled and " +
      "listed as `refused`). The list outlives the session; the files do not: fetch them before releasing it.",
    tags: ["Sessions"],
    input: { params: Params },
    status: 200,
    response: z.object({ items: z.array(DownloadDto) }).meta({ id: "DownloadList" }),
    problems: ["not-found"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }) => ({ items: await listDownloads(ctx, params.id) }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/downloads/{download_id}",
    operationId: "sessionDownload",
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
    handler: async (ctx, { params }) => {
      const file = await openDownload(ctx, params.id, params.download_id);
      return new FileReply(file.name, file.size, file.open);
    },
  }),
];
