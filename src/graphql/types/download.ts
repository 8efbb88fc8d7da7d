import { type Download } from "../../services/downloads/downloads.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const DownloadRef = builder.objectRef<Download>("Download").implement({
  description: "A file a session's page downloaded. The bytes come from REST: GET /v1/sessions/{id}/downloads/{downloadId}.",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Chromium's id for the download (a UUID)." }),
    name: t.exposeString("name", { description: "The file name the site suggested." }),
    state: t.exposeString("state", { description: "in_progress, completed, canceled or refused." }),
    bytes: t.exposeInt("bytes"),
    reason: t.exposeString("reason", { nullable: true, description: "Why it was refused." }),
    startedAt: t.field({ type: "DateTime", resolve: (d) => d.startedAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.endedAt }),
    available: t.exposeBoolean("available", { description: "Whether the file can be fetched now (completed, session running)." }),
  }),
});

builder.queryField(operations.sessionDownloads.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionDownloads },
    type: [DownloadRef],
    description: "A session's downloads, oldest first.",
    args: { sessionId: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.sessionDownloads, (svc, run) => run(svc, args.sessionId)),
  }),
);

builder.queryField(operations.sessionDownload.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionDownload },
    type: DownloadRef,
    description: "One download of a session.",
    args: { sessionId: t.arg.string({ required: true }), downloadId: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => audited(ctx, operations.sessionDownload, (svc, run) => run(svc, args.sessionId, args.downloadId)),
  }),
);
