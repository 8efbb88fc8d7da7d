import type { SessionBundleView } from "../../services/session-exports/bundle.ts";
import type { SessionHarView } from "../../services/session-exports/session-har.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

// A HAR and a zip are files: GraphQL answers where to GET them (REST) and what they hold, never the
// bytes (record 0360).

const SessionHarRef = builder.objectRef<SessionHarView>("SessionHar").implement({
  description: "A session's network log as HAR 1.2. The document comes from REST: GET `url`.",
  fields: (t) => ({
    url: t.exposeString("url", { description: "GET /v1/sessions/{id}/har on this deployment (API key, or the dashboard's cookie)." }),
    pages: t.int({ description: "How many pages it has.", resolve: (v) => v.har.log.pages.length }),
    entries: t.int({ description: "How many requests (redirect hops each count) it has.", resolve: (v) => v.har.log.entries.length }),
  }),
});

const SessionBundleRef = builder.objectRef<SessionBundleView>("SessionBundle").implement({
  description: "A session's evidence bundle (zip). The bytes come from REST: GET `url`.",
  fields: (t) => ({
    url: t.exposeString("url", { description: "GET /v1/sessions/{id}/bundle on this deployment (API key, or the dashboard's cookie)." }),
    parts: t.stringList({
      description: "The files it holds: session.json, events.json, logs.ndjson, session.har, and recording.mp4 when there is a video.",
      resolve: (v) => v.parts,
    }),
  }),
});

const WORKSPACE_ARG = "The workspace (slug) to act in: optional; a dashboard user must be a member of the session's workspace, an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

builder.queryField(operations.sessionHar.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionHar },
    type: SessionHarRef,
    description: "Where a session's HAR is served, and its size in pages and entries. An audited read, like fetching it.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.sessionHar, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.queryField(operations.sessionBundle.id, (t) =>
  t.field({
    extensions: { operation: operations.sessionBundle },
    type: SessionBundleRef,
    description: "Where a session's evidence bundle is served and what it holds (RECORDING_NOT_READY while its video is written). An audited read.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.sessionBundle, (svc, run) => run(svc, id), opt(workspace)),
  }),
);
