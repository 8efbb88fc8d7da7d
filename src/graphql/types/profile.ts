import type { StorageStateExport, StorageStateInput } from "../../browser/profiles/format.ts";
import type { Page } from "../../kernel/pagination.ts";
import { CreateProfileInput, ProfileListQuery, SaveProfileInput, UpdateProfileInput, type ProfileRecord } from "../../services/profiles/profiles.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const ProfileType = builder.objectRef<ProfileRecord>("Profile").implement({
  description: "A saved browser state (cookies, localStorage, sessionStorage), stored encrypted. Its contents are only readable through profileStorageState.",
  fields: (t) => ({
    profileId: t.exposeString("id", { description: "`prof_<ULID>`" }),
    label: t.exposeString("label"),
    sourceSessionId: t.exposeString("sourceSessionId", { nullable: true, description: "The session it was last saved from; null when imported." }),
    formatVersion: t.exposeInt("formatVersion"),
    sizeBytes: t.exposeInt("sizeBytes"),
    cookieCount: t.exposeInt("cookieCount"),
    originCount: t.exposeInt("originCount"),
    keyCount: t.exposeInt("keyCount", { description: "localStorage and sessionStorage items of all origins." }),
    createdAt: t.field({ type: "DateTime", resolve: (p) => p.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (p) => p.updatedAt }),
  }),
});

const ProfilePage = builder.objectRef<Page<ProfileRecord>>("ProfilePage").implement({
  fields: (t) => ({
    items: t.field({ type: [ProfileType], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

const SameSite = builder.enumType("CookieSameSite", { values: ["Strict", "Lax", "None"] as const });

type ExportCookie = StorageStateExport["cookies"][number];
type ExportOrigin = StorageStateExport["origins"][number];
type Item = { name: string; value: string };

const StorageItem = builder.objectRef<Item>("StorageItem").implement({
  fields: (t) => ({ name: t.exposeString("name"), value: t.exposeString("value") }),
});

const StorageStateCookie = builder.objectRef<ExportCookie>("StorageStateCookie").implement({
  fields: (t) => ({
    name: t.exposeString("name"),
    value: t.exposeString("value"),
    domain: t.exposeString("domain"),
    path: t.exposeString("path"),
    expires: t.exposeFloat("expires", { description: "Unix seconds; -1 for a session cookie." }),
    httpOnly: t.exposeBoolean("httpOnly"),
    secure: t.exposeBoolean("secure"),
    sameSite: t.field({ type: SameSite, resolve: (c) => c.sameSite }),
    partitionKey: t.exposeString("partitionKey", { nullable: true, description: "Top-level site of a partitioned (CHIPS) cookie." }),
    hasCrossSiteAncestor: t.boolean({ nullable: true, resolve: (c) => c._crHasCrossSiteAncestor ?? null }),
  }),
});

const StorageStateOrigin = builder.objectRef<ExportOrigin>("StorageStateOrigin").implement({
  fields: (t) => ({
    origin: t.exposeString("origin"),
    localStorage: t.field({ type: [StorageItem], resolve: (o) => o.localStorage }),
    sessionStorage: t.field({ type: [StorageItem], resolve: (o) => o.sessionStorage }),
  }),
});

const StorageStateType = builder.objectRef<StorageStateExport>("StorageState").implement({
  description: "Playwright's storageState shape, plus per-origin sessionStorage.",
  fields: (t) => ({
    cookies: t.field({ type: [StorageStateCookie], resolve: (s) => s.cookies }),
    origins: t.field({ type: [StorageStateOrigin], resolve: (s) => s.origins }),
  }),
});

const StorageItemInput = builder.inputType("StorageItemInput", {
  fields: (t) => ({ name: t.string({ required: true }), value: t.string({ required: true }) }),
});

const StorageStateCookieInput = builder.inputType("StorageStateCookieInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    value: t.string({ required: true }),
    domain: t.string({ required: true }),
    path: t.string({ required: true }),
    expires: t.float(),
    httpOnly: t.boolean(),
    secure: t.boolean(),
    sameSite: t.field({ type: SameSite }),
    partitionKey: t.string(),
    hasCrossSiteAncestor: t.boolean(),
  }),
});

const StorageStateOriginInput = builder.inputType("StorageStateOriginInput", {
  fields: (t) => ({
    origin: t.string({ required: true }),
    localStorage: t.field({ type: [StorageItemInput], required: true }),
    sessionStorage: t.field({ type: [StorageItemInput] }),
  }),
});

const StorageStateInputType = builder.inputType("StorageStateInput", {
  fields: (t) => ({
    cookies: t.field({ type: [StorageStateCookieInput], required: true }),
    origins: t.field({ type: [StorageStateOriginInput], required: true }),
  }),
});

const CreateProfileGqlInput = builder.inputType("CreateProfileInput", {
  fields: (t) => ({
    label: t.string({ required: true }),
    sessionId: t.string({ description: "Save from this running session." }),
    storageState: t.field({ type: StorageStateInputType, description: "Or import a storageState." }),
  }),
});

const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;
/** Dashboard users name the workspace they act in; API keys act in their own (naming another is 403). */
const WORKSPACE_ARG = "The workspace (slug) to act in: required for dashboard users; an API key acts in its own.";

/** The GraphQL input in the REST shape, so both go through the same validation. */
function storageStateOf(s: typeof StorageStateInputType.$inferInput): StorageStateInput {
  return {
    cookies: s.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      expires: opt(c.expires),
      httpOnly: opt(c.httpOnly),
      secure: opt(c.secure),
      sameSite: opt(c.sameSite),
      partitionKey: opt(c.partitionKey),
      _crHasCrossSiteAncestor: opt(c.hasCrossSiteAncestor),
    })),
    origins: s.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: opt(o.sessionStorage) })),
  };
}

builder.queryField(operations.profile.id, (t) =>
  t.field({
    extensions: { operation: operations.profile },
    type: ProfileType,
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.profile, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.queryField(operations.profiles.id, (t) =>
  t.field({
    extensions: { operation: operations.profiles },
    type: ProfilePage,
    description: "The workspace's profiles in creation order.",
    args: { workspace: t.arg.string({ description: WORKSPACE_ARG }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.profiles,
        (svc, run) => run(svc, parseInput(ProfileListQuery, { limit: opt(args.limit), cursor: opt(args.cursor) })),
        opt(args.workspace),
      ),
  }),
);

builder.queryField(operations.profileStorageState.id, (t) =>
  t.field({
    extensions: { operation: operations.profileStorageState },
    type: StorageStateType,
    description: "Export a profile with its secrets in the clear (audited as profile.export before anything is decrypted).",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.profileStorageState, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.mutationField(operations.createProfile.id, (t) =>
  t.field({
    extensions: { operation: operations.createProfile },
    type: ProfileType,
    description: "Save a running session's state, or import a storageState, as a new profile.",
    args: { input: t.arg({ type: CreateProfileGqlInput, required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { input, workspace }, ctx) =>
      audited(
        ctx,
        operations.createProfile,
        (svc, run) =>
          run(
            svc,
            parseInput(CreateProfileInput, {
              label: input.label,
              session_id: opt(input.sessionId),
              storage_state: input.storageState ? storageStateOf(input.storageState) : undefined,
            }),
          ),
        opt(workspace),
      ),
  }),
);

builder.mutationField(operations.saveProfile.id, (t) =>
  t.field({
    extensions: { operation: operations.saveProfile },
    type: ProfileType,
    description: "Replace a profile's state with a running session's.",
    args: { id: t.arg.string({ required: true }), sessionId: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, sessionId, workspace }, ctx) =>
      audited(ctx, operations.saveProfile, (svc, run) => run(svc, id, parseInput(SaveProfileInput, { session_id: sessionId })), opt(workspace)),
  }),
);

builder.mutationField(operations.updateProfile.id, (t) =>
  t.field({
    extensions: { operation: operations.updateProfile },
    type: ProfileType,
    description: "Rename a profile.",
    args: { id: t.arg.string({ required: true }), label: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, label, workspace }, ctx) =>
      audited(ctx, operations.updateProfile, (svc, run) => run(svc, id, parseInput(UpdateProfileInput, { label })), opt(workspace)),
  }),
);

builder.mutationField(operations.deleteProfile.id, (t) =>
  t.field({
    extensions: { operation: operations.deleteProfile },
    type: "Boolean",
    description: "Delete a profile and its data key.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.deleteProfile, async (svc, run) => (await run(svc, id), true), opt(workspace)),
  }),
);
