import { z } from "zod";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { EXTENSION_ZIP_MAX_BYTES } from "../../services/extensions/extension-zip.ts";
import type { ExtensionView } from "../../services/extensions/extensions.ts";
import { operations } from "../../services/operations.ts";
import { AppError } from "../../errors.ts";
import { defineRoute, Reply, listEnvelope } from "../define-route.ts";
import { withUploadedFile } from "../multipart.ts";
import { readRawBody } from "../raw-body.ts";

const ExtensionDto = z
  .object({
    id: z.string().describe("`ext_<ULID>`"),
    name: z.string().describe("The manifest's name."),
    version: z.string().describe("The manifest's version."),
    size_bytes: z.number().int().describe("The zip's size."),
    sha256: z.string().describe("Hex SHA-256 of the zip as uploaded."),
    created_at: z.string(),
  })
  .meta({ id: "Extension" });

const toDto = (e: ExtensionView): z.output<typeof ExtensionDto> => ({
  id: e.id,
  name: e.name,
  version: e.version,
  size_bytes: e.sizeBytes,
  sha256: e.sha256,
  created_at: e.createdAt.toISOString(),
});

const Params = z.object({ id: z.string().min(1).max(64) });

export const extensionRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/extensions",
    operation: operations.uploadExtension,
    summary: "Upload a browser extension",
    description:
      "A zip of an unpacked Manifest V3 extension (manifest.json at its top, or in the one folder at its top), sent as the body " +
      "(`application/zip`) or as `multipart/form-data` field `file`; at most 16 MiB zipped, 64 MiB and 2,000 entries unpacked. Its place " +
      "in the workspace's quota is reserved first (409 extension-quota-exceeded), then it is checked and unpacked off the event loop " +
      "(422 invalid-extension; 422 extension-permission-refused for a debugging or native channel such as `debugger`), stored " +
      "encrypted, and loaded into the sessions created with its id in `extension_ids` (full Chromium, jailed browsers only: else 422 extensions-need-jail).",
    tags: ["Extensions"],
    input: {},
    multipart: { field: "file", description: "The zip (or send it as the whole body, `Content-Type: application/zip`)." },
    status: 201,
    response: ExtensionDto,
    problems: ["invalid-extension", "extension-permission-refused", "extensions-need-jail", "extension-quota-exceeded", "forbidden"],
    handler: async (ctx, _input, { req, res }, run) => {
      const zip = req.is("multipart/form-data")
        ? await withUploadedFile(req, "file", EXTENSION_ZIP_MAX_BYTES, async (file) => buffer(file.stream as Readable))
        : req.is(["application/zip", "application/x-zip-compressed", "application/octet-stream"])
          ? await readRawBody(req, res, EXTENSION_ZIP_MAX_BYTES)
          : undefined;
      if (!zip) throw new AppError("unsupported-media-type", "Send the zip as application/zip, or as multipart/form-data field file.");
      if (zip.length > EXTENSION_ZIP_MAX_BYTES)
        throw new AppError("payload-too-large", `An extension's zip may hold at most ${EXTENSION_ZIP_MAX_BYTES} bytes.`);
      return new Reply(201, toDto(await run(ctx, zip)));
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/extensions",
    operation: operations.extensions,
    summary: "List the workspace's extensions",
    description: "The list envelope, always one page (`has_more: false`): a workspace holds few extensions (its quota).",
    tags: ["Extensions"],
    input: {},
    status: 200,
    response: listEnvelope(ExtensionDto, "ExtensionList"),
    handler: async (ctx, _input, _http, run) => ({ items: (await run(ctx)).map(toDto), next_cursor: null, has_more: false }),
  }),
  defineRoute({
    method: "get",
    path: "/v1/extensions/{id}",
    operation: operations.extension,
    summary: "Get an extension",
    tags: ["Extensions"],
    input: { params: Params },
    status: 200,
    response: ExtensionDto,
    problems: ["not-found"],
    handler: async (ctx, { params }, _http, run) => toDto(await run(ctx, params.id)),
  }),
  defineRoute({
    method: "delete",
    path: "/v1/extensions/{id}",
    operation: operations.deleteExtension,
    summary: "Delete an extension",
    description: "Its key is destroyed with it. Sessions running with it keep it until they end; new sessions cannot ask for it.",
    tags: ["Extensions"],
    input: { params: Params },
    status: 204,
    problems: ["not-found"],
    handler: async (ctx, { params }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
];
