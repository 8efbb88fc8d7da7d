import type { ExtensionView } from "../../services/extensions/extensions.ts";
import { EXTENSION_ZIP_MAX_BYTES } from "../../services/extensions/extension-zip.ts";
import { validationError } from "../../errors.ts";
import { operations } from "../../services/operations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { isBase64 } from "../base64.ts";

const WORKSPACE = "The workspace (slug) to act in: required for dashboard users; an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

const ExtensionRef = builder.objectRef<ExtensionView>("Extension").implement({
  description: "A Manifest V3 extension of the workspace, loaded into the sessions that name it in extensionIds (full Chromium only).",
  fields: (t) => ({
    id: t.exposeString("id"),
    name: t.exposeString("name"),
    version: t.exposeString("version"),
    sizeBytes: t.exposeInt("sizeBytes"),
    sha256: t.exposeString("sha256"),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
  }),
});

builder.queryField(operations.extensions.id, (t) =>
  t.field({
    extensions: { operation: operations.extensions },
    type: [ExtensionRef],
    args: { workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.extensions, (svc, run) => run(svc), opt(args.workspace)),
  }),
);

builder.queryField(operations.extension.id, (t) =>
  t.field({
    extensions: { operation: operations.extension },
    type: ExtensionRef,
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.extension, (svc, run) => run(svc, args.id), opt(args.workspace)),
  }),
);

builder.mutationField(operations.uploadExtension.id, (t) =>
  t.field({
    extensions: { operation: operations.uploadExtension },
    type: ExtensionRef,
    description: "Uploads a zip of an unpacked Manifest V3 extension, as base64 (within the GraphQL request's size limit; REST takes up to 16 MiB).",
    args: { zipBase64: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.uploadExtension,
        (svc, run) => {
          if (args.zipBase64.length > (EXTENSION_ZIP_MAX_BYTES * 4) / 3 + 4 || !isBase64(args.zipBase64))
            throw validationError([{ field: "zipBase64", message: "must be base64 of a zip" }]);
          return run(svc, Buffer.from(args.zipBase64, "base64"));
        },
        opt(args.workspace),
      ),
  }),
);

builder.mutationField(operations.deleteExtension.id, (t) =>
  t.field({
    extensions: { operation: operations.deleteExtension },
    type: "Boolean",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.deleteExtension, async (svc, run) => (await run(svc, args.id), true), opt(args.workspace)),
  }),
);
