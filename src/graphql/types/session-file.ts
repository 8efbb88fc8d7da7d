import { Readable } from "node:stream";
import { validationError } from "../../errors.ts";
import type { SessionFile } from "../../services/session-files/session-files.ts";
import { operations } from "../../services/operations.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { isBase64 } from "../base64.ts";

const SessionFileRef = builder.objectRef<SessionFile>("SessionFile").implement({
  description: "A file uploaded into a session's own folder, for its pages' file inputs.",
  fields: (t) => ({
    id: t.exposeString("id"),
    name: t.exposeString("name", { description: "The name the page sees." }),
    size: t.exposeInt("size"),
    sha256: t.exposeString("sha256"),
    path: t.exposeString("path", {
      description: "For DOM.setFileInputFiles and Puppeteer's uploadFile(path). Not for Playwright, which reads paths on its own machine: give it a buffer.",
    }),
    uploadedAt: t.field({ type: "DateTime", resolve: (f) => f.uploadedAt }),
    available: t.exposeBoolean("available", { description: "Whether the file is still there (the session runs)." }),
  }),
});

builder.queryField(operations.sessionFiles.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionFiles },
    type: [SessionFileRef],
    description: "The files uploaded into a session, oldest first.",
    args: { sessionId: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.sessionFiles, (svc, run) => run(svc, args.sessionId)),
  }),
);

builder.mutationField(operations.uploadSessionFile.id, (t) =>
  t.field({
    extensions: { operation: operations.uploadSessionFile },
    type: SessionFileRef,
    description:
      "Puts a small file (base64, within the GraphQL request's size limit) into a running session's folder. Larger files: " +
      "REST `POST /v1/sessions/{id}/files` (multipart, streamed).",
    args: { sessionId: t.arg.string({ required: true }), name: t.arg.string({ required: true }), contentBase64: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) =>
      audited(ctx, operations.uploadSessionFile, (svc, run) => {
        if (!isBase64(args.contentBase64)) throw validationError([{ field: "contentBase64", message: "must be base64" }]);
        const bytes = Buffer.from(args.contentBase64, "base64");
        return run(svc, args.sessionId, { name: args.name, stream: Readable.from([bytes]), declaredBytes: bytes.length });
      }),
  }),
);
