import type { ListedSession } from "../../services/sessions/sessions.ts";
import type { Page } from "../../kernel/pagination.ts";
import { CreateSessionInput, SessionListQuery } from "../../services/sessions/session-input.ts";
import type { SessionView } from "../../services/sessions/session-view.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { BrowserSettingsRef } from "./browser-settings.ts";
import { CreateSessionGql } from "./session-input.ts";
import { storedOptionFields } from "./session-options.ts";
import type { BrowserSettingsInput } from "../../services/sessions/browser-settings-input.ts";
import { MetadataEntry, MetadataEntryInput, metadataEntries, metadataObject } from "./metadata.ts";
import { operations } from "../../services/operations.ts";
import { recordingOf } from "../../services/recordings/recordings.ts";
import { RecordingInfoRef } from "./recording.ts";

const SessionStatus = builder.enumType("SessionStatus", {
  values: ["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"] as const,
});
const EndReason = builder.enumType("EndReason", {
  values: [
    "CLIENT_RELEASE",
    "FORCE_STOP",
    "TIMEOUT",
    "IDLE_TIMEOUT",
    "BROWSER_CRASH",
    "NODE_SHUTDOWN",
    "LAUNCH_FAILED",
    "API_KEY_REVOKED",
    "QUEUE_TIMEOUT",
  ] as const,
});

export const SessionType = builder.objectRef<SessionView>("Session").implement({
  description: "A browser session. `connectUrl` and `liveViewUrl` are present only in single-session answers while it runs.",
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.session.id }),
    status: t.field({ type: SessionStatus, resolve: (v) => v.session.status }),
    endReason: t.field({ type: EndReason, nullable: true, resolve: (v) => v.session.endReason }),
    region: t.string({ resolve: (v) => v.session.region }),
    createdAt: t.field({ type: "DateTime", resolve: (v) => v.session.createdAt }),
    startedAt: t.field({ type: "DateTime", nullable: true, resolve: (v) => v.session.startedAt }),
    expiresAt: t.field({ type: "DateTime", resolve: (v) => v.session.expiresAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (v) => v.session.endedAt }),
    timeoutSeconds: t.int({ resolve: (v) => v.session.timeoutSeconds }),
    idleTimeoutSeconds: t.int({ nullable: true, resolve: (v) => v.session.idleTimeoutSeconds }),
    profileId: t.string({ nullable: true, resolve: (v) => v.session.profileId }),
    liveViewInteractive: t.boolean({ resolve: (v) => v.session.liveViewInteractive }),
    liveViewInstructions: t.string({ nullable: true, resolve: (v) => v.session.liveViewInstructions }),
    liveViewViewers: t.int({
      description: "People watching the live view now (on the node that runs the session).",
      resolve: (v, _args, ctx) => ctx.services.deps.runtime.viewerCount(v.session.id),
    }),
    metadata: t.field({
      type: [MetadataEntry],
      description: "Your own labels, as given at create, sorted by key.",
      resolve: (v) => metadataEntries(v.session.metadata),
    }),
    extensionIds: t.stringList({ description: "Extensions loaded into this session.", resolve: (v) => v.session.extensionIds ?? [] }),
    browser: t.field({
      type: BrowserSettingsRef,
      nullable: true,
      description: "The browser settings given at create.",
      resolve: (v) => (v.session.browser ?? null) as BrowserSettingsInput | null,
    }),
    logs: t.boolean({ description: "Whether the session's logs are captured (sessionLogs).", resolve: (v) => v.session.logs }),
    recording: t.boolean({ description: "Whether the session's screen is recorded.", resolve: (v) => v.session.recording }),
    recordingInfo: t.field({
      type: RecordingInfoRef,
      nullable: true,
      description: "The session's recording (null when there is none: not recorded, deleted or expired); its bytes at `url`.",
      resolve: (v, _args, ctx) => recordingOf(ctx.services, v.session.id),
    }),
    // Declared create options without a column of their own, as given (derived: no edit per option).
    ...storedOptionFields(t),
    queuePosition: t.int({
      nullable: true,
      description: "While QUEUED: its place in the admission queue's fair order (1 = next to start); else null.",
      resolve: (v) => v.queuePosition ?? null,
    }),
    connectUrl: t.string({ nullable: true, resolve: (v) => v.connectUrl }),
    liveViewUrl: t.string({ nullable: true, resolve: (v) => v.liveViewUrl }),
  }),
});

const SessionPage = builder.objectRef<Page<ListedSession>>("SessionPage").implement({
  fields: (t) => ({
    items: t.field({
      type: [SessionType],
      resolve: (p) => p.items.map(({ queuePosition, ...session }) => ({ session, connectUrl: null, liveViewUrl: null, queuePosition })),
    }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

/** Dashboard users name the workspace they act in; API keys act in their own (naming another is 403). */
const WORKSPACE_ARG = "The workspace (slug) to act in: required for dashboard users; an API key acts in its own.";
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

builder.queryField(operations.session.id, (t) =>
  t.field({
    extensions: { operation: operations.session },
    type: SessionType,
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.session, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.queryField(operations.sessions.id, (t) =>
  t.field({
    extensions: { operation: operations.sessions },
    type: SessionPage,
    description: "The workspace's sessions in creation order (newest first with `newestFirst`).",
    args: {
      workspace: t.arg.string({ description: WORKSPACE_ARG }),
      status: t.arg({ type: SessionStatus }),
      metadata: t.arg({ type: [MetadataEntryInput], description: "Only sessions with every one of these keys set to exactly this value." }),
      newestFirst: t.arg.boolean(),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.sessions,
        (svc, run) =>
          run(
            svc,
            parseInput(SessionListQuery, {
              status: opt(args.status),
              metadata: metadataObject(args.metadata),
              limit: opt(args.limit),
              cursor: opt(args.cursor),
            }),
            { newestFirst: args.newestFirst ?? false },
          ),
        opt(args.workspace),
      ),
  }),
);

builder.mutationField(operations.createSession.id, (t) =>
  t.field({
    extensions: { operation: operations.createSession },
    type: SessionType,
    description: "Start a session (API keys, or members of `workspace`). The same idempotencyKey and input within 24 hours returns the same session.",
    args: {
      input: t.arg({ type: CreateSessionGql.ref, required: true }),
      idempotencyKey: t.arg.string({ required: true }),
      workspace: t.arg.string({ description: WORKSPACE_ARG }),
    },
    resolve: (_r, { input, idempotencyKey, workspace }, ctx) =>
      audited(
        ctx,
        operations.createSession,
        async (svc, run) => {
          const body = parseInput(CreateSessionInput, CreateSessionGql.toWire(input));
          // A replay presents the session the key's first call started (create-once.ts decides which).
          return (await run(svc, body, idempotencyKey)).view;
        },
        opt(workspace),
      ),
  }),
);

builder.mutationField(operations.releaseSession.id, (t) =>
  t.field({
    extensions: { operation: operations.releaseSession },
    type: "Boolean",
    description: "End a session (idempotent).",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.releaseSession, async (svc, run) => (await run(svc, id), true), opt(workspace)),
  }),
);

builder.mutationField(operations.forceStopSession.id, (t) =>
  t.field({
    extensions: { operation: operations.forceStopSession },
    type: "Boolean",
    description: "Dashboard force-stop (owners and admins).",
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, { id }, ctx) => audited(ctx, operations.forceStopSession, async (svc, run) => (await run(svc, id), true)),
  }),
);

builder.mutationField(operations.keepaliveSession.id, (t) =>
  t.field({
    extensions: { operation: operations.keepaliveSession },
    type: SessionType,
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.keepaliveSession, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.subscriptionField(operations.workspaceSessions.id, (t) =>
  t.field({
    extensions: { operation: operations.workspaceSessions },
    type: SessionType,
    description:
      "A workspace's sessions as they start and end (over graphql-ws at /graphql), each as it is then; nothing is replayed, so read `sessions` first. " +
      "Members of the workspace, or its API keys.",
    args: { workspace: t.arg.string({ required: true }) },
    subscribe: (_r, { workspace }, ctx) => audited(ctx, operations.workspaceSessions, (svc, run) => run(svc), workspace),
    resolve: (session) => ({ session, connectUrl: null, liveViewUrl: null }),
  }),
);
