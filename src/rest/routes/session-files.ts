import { z } from "zod";
import type { SessionFile } from "../../services/session-files/session-files.ts";
import { operations } from "../../services/operations.ts";
import { defineRoute, Reply, listEnvelope } from "../define-route.ts";
import { withUploadedFile } from "../multipart.ts";

const SessionFileDto = z
  .object({
    id: z.string().describe("`file_<32 hex>`"),
    name: z.string().describe("The file's name as the page sees it (the uploaded name, made safe)."),
    size: z.number().int(),
    sha256: z.string().describe("Hex SHA-256 of the bytes stored."),
    path: z
      .string()
      .describe(
        "Where the file is in the session's own folder: give it to `DOM.setFileInputFiles` or Puppeteer's `uploadFile(path)`. Not to Playwright, which reads a path on its own machine: give it a buffer.",
      ),
    uploaded_at: z.string(),
    available: z.boolean().describe("Whether the file is still there (the session runs); files go with the session."),
  })
  .meta({ id: "SessionFile" });

const toDto = (f: SessionFile): z.output<typeof SessionFileDto> => ({
  id: f.id,
  name: f.name,
  size: f.size,
  sha256: f.sha256,
  path: f.path,
  uploaded_at: f.uploadedAt.toISOString(),
  available: f.available,
});

const Params = z.object({ id: z.string().min(1).max(64) });

export const sessionFileRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/sessions/{id}/files",
    operation: operations.uploadSessionFile,
    summary: "Upload a file into a running session",
    description:
      "Puts a file into the session's own folder for its pages' file inputs (`multipart/form-data`, field `file`). The answer's " +
      "`path` is accepted by `DOM.setFileInputFiles`, so by Puppeteer's `elementHandle.uploadFile(path)` (and chrome-remote-interface); no " +
      "other path on the server is. Playwright needs no upload and must not be given the path: over `connectOverCDP` it reads " +
      "`setInputFiles(path)` on the client's own machine and never sends the path, so pass the bytes instead, " +
      "`setInputFiles(selector, { name, mimeType, buffer })`. All of a session's files together may take " +
      "`VESSEL_UPLOAD_MAX_BYTES` and `VESSEL_UPLOAD_MAX_FILES`, uploads in progress included (413 beyond, with nothing kept); an upload " +
      "that would leave the node's volume with less than `VESSEL_UPLOAD_MIN_FREE_BYTES` free is 507. Files go with the session when it ends.",
    tags: ["Sessions"],
    input: { params: Params },
    multipart: { field: "file", description: "The file; its name (the part's filename) is what the page sees." },
    status: 201,
    response: SessionFileDto,
    problems: ["not-found", "gone", "conflict", "forbidden", "too-many-files", "insufficient-storage"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }, { req }, run) => {
      // The body's length bounds the file's: the service reserves it up front (and gives back what the file did not use).
      const length = req.headers["content-length"];
      const declaredBytes = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
      const stored = await withUploadedFile(req, "file", ctx.deps.config.browser.uploadMaxBytes, (file) =>
        run(ctx, params.id, { ...file, ...(declaredBytes !== undefined ? { declaredBytes } : {}) }),
      );
      return new Reply(201, toDto(stored));
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/sessions/{id}/files",
    operation: operations.sessionFiles,
    summary: "List the files uploaded into a session",
    description:
      "Oldest first. The list outlives the session; the files do not (`available`). The list envelope, always one page (`has_more: false`): " +
      "a session holds at most `VESSEL_UPLOAD_MAX_FILES`.",
    tags: ["Sessions"],
    input: { params: Params },
    status: 200,
    response: listEnvelope(SessionFileDto, "SessionFileList"),
    problems: ["not-found"],
    auth: "apiKeyOrUser",
    handler: async (ctx, { params }, _http, run) => ({ items: (await run(ctx, params.id)).map(toDto), next_cursor: null, has_more: false }),
  }),
];
