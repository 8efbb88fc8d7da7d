import { z } from "zod";
import { toPageDto } from "../presenters/page.ts";
import { CreateProfileInput, ProfileListQuery, SaveProfileInput, UpdateProfileInput, type ProfileRecord } from "../../services/profiles/profiles.ts";
import { Reply, defineRoute, listEnvelope } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

export const ProfileDto = z
  .object({
    profile_id: z.string().describe("`prof_<ULID>`"),
    label: z.string(),
    source_session_id: z.string().nullable().describe("The session it was last saved from; null when imported (or that session was deleted)."),
    format_version: z.number().int().describe("Version of the stored profile document (docs/profile-format.md)."),
    size_bytes: z.number().int().describe("Size of the profile document, which the deployment's limit applies to."),
    cookie_count: z.number().int(),
    origin_count: z.number().int().describe("Origins with localStorage or sessionStorage."),
    key_count: z.number().int().describe("localStorage and sessionStorage items of all origins."),
    created_at: z.string(),
    updated_at: z.string().describe("When its state was last saved (or its label changed)."),
  })
  .meta({ id: "Profile" });

export function toProfileDto(p: ProfileRecord): z.infer<typeof ProfileDto> {
  return {
    profile_id: p.id,
    label: p.label,
    source_session_id: p.sourceSessionId,
    format_version: p.formatVersion,
    size_bytes: p.sizeBytes,
    cookie_count: p.cookieCount,
    origin_count: p.originCount,
    key_count: p.keyCount,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

const StorageItemDto = z.object({ name: z.string(), value: z.string() });
export const StorageStateDto = z
  .object({
    cookies: z.array(
      z.object({
        name: z.string(),
        value: z.string(),
        domain: z.string(),
        path: z.string(),
        expires: z.number().describe("Unix seconds; -1 for a session cookie."),
        httpOnly: z.boolean(),
        secure: z.boolean(),
        sameSite: z.enum(["Strict", "Lax", "None"]),
        partitionKey: z.string().optional().describe("Top-level site of a partitioned (CHIPS) cookie."),
        _crHasCrossSiteAncestor: z.boolean().optional(),
      }),
    ),
    origins: z.array(
      z.object({
        origin: z.string(),
        localStorage: z.array(StorageItemDto),
        sessionStorage: z.array(StorageItemDto).describe("Vessel's addition to Playwright's shape (Playwright ignores it)."),
      }),
    ),
  })
  .meta({ id: "StorageStateExport" });

const Id = z.object({ id: z.string().min(1).max(64) });

export const profileRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/profiles",
    operation: operations.createProfile,
    summary: "Save a profile",
    description:
      "Saves the cookies, localStorage and sessionStorage of a running session (`session_id`; the session keeps running), or imports " +
      "a Playwright `storageState` (`storage_state`). Stored as a versioned, browser-independent document, encrypted with a key of its own. " +
      "413 `profile-too-large` over the deployment's limit.",
    tags: ["Profiles"],
    input: { body: CreateProfileInput },
    status: 201,
    response: ProfileDto,
    problems: ["not-found", "conflict", "forbidden", "profile-too-large"],
    bodyLimit: "24mb",
    handler: async (ctx, { body }, _http, run) => toProfileDto(await run(ctx, body)),
  }),
  defineRoute({
    method: "get",
    path: "/v1/profiles",
    operation: operations.profiles,
    summary: "List profiles",
    description: "The workspace's profiles in creation (ULID) order; cursors stay stable while profiles are created.",
    tags: ["Profiles"],
    input: { query: ProfileListQuery },
    status: 200,
    response: listEnvelope(ProfileDto, "ProfileList"),
    problems: ["forbidden"],
    handler: async (ctx, { query }, _http, run) => toPageDto(await run(ctx, query), toProfileDto),
  }),
  defineRoute({
    method: "get",
    path: "/v1/profiles/{id}",
    operation: operations.profile,
    summary: "Get a profile",
    description: "Its label, source and counts; never its contents (see storage-state).",
    tags: ["Profiles"],
    input: { params: Id },
    status: 200,
    response: ProfileDto,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => toProfileDto(await run(ctx, params.id)),
  }),
  defineRoute({
    method: "patch",
    path: "/v1/profiles/{id}",
    operation: operations.updateProfile,
    summary: "Rename a profile",
    tags: ["Profiles"],
    input: { params: Id, body: UpdateProfileInput },
    status: 200,
    response: ProfileDto,
    problems: ["not-found", "forbidden"],
    bodyLimit: "4kb",
    handler: async (ctx, { params, body }, _http, run) => toProfileDto(await run(ctx, params.id, body)),
  }),
  defineRoute({
    method: "delete",
    path: "/v1/profiles/{id}",
    operation: operations.deleteProfile,
    summary: "Delete a profile",
    description: "The row goes, and with it the profile's data key: nothing of it can be decrypted any more. Sessions started from it keep running.",
    tags: ["Profiles"],
    input: { params: Id },
    status: 204,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/profiles/{id}:save",
    operation: operations.saveProfile,
    summary: "Save a session into a profile",
    description: "Replaces the profile's cookies and storage with those of a running session of the workspace, keeping its id and label.",
    tags: ["Profiles"],
    input: { params: Id, body: SaveProfileInput },
    status: 200,
    response: ProfileDto,
    problems: ["not-found", "conflict", "forbidden", "profile-too-large"],
    bodyLimit: "4kb",
    handler: async (ctx, { params, body }, _http, run) => toProfileDto(await run(ctx, params.id, body)),
  }),
  defineRoute({
    method: "get",
    path: "/v1/profiles/{id}/storage-state",
    operation: operations.profileStorageState,
    summary: "Export a profile (Playwright storageState)",
    description:
      "The profile's cookies and per-origin localStorage in Playwright's `storageState` shape (`browser.newContext({ storageState })` " +
      "takes it as is), plus per-origin `sessionStorage`. It holds the secrets in the clear: the call is audited (`profile.export`) " +
      "before anything is decrypted, and the answer is marked `Cache-Control: no-store`.",
    tags: ["Profiles"],
    input: { params: Id },
    status: 200,
    response: StorageStateDto,
    problems: ["not-found", "forbidden", "profile-unreadable"],
    handler: async (ctx, { params }, _http, run) => new Reply(200, await run(ctx, params.id), { "Cache-Control": "no-store" }),
  }),
];
