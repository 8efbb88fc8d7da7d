import { z } from "zod";
import { ApiKeyLabel, ApiKeyScopes, type ApiKeyRecord } from "../../services/api-keys/api-keys.ts";
import { AuditQuery } from "../../services/audit/audit.ts";
import { AuditEntryDto, auditDto } from "../presenters/audit-entry.ts";
import { defineRoute, listEnvelope } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

const Slug = z.object({ slug: z.string().min(1).max(64) });
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const ApiKeyDto = z
  .object({
    id: z.string().describe("The ULID inside the key."),
    label: z.string(),
    prefix: z.string().describe("`vs_<id>`: everything left of the dot. Shown in lists and in the audit log."),
    created_at: z.string(),
    created_by_user_id: z.string().nullable(),
    last_used_at: z.string().nullable().describe("Updated at most once a minute."),
    revoked_at: z.string().nullable(),
    revoked_by_user_id: z.string().nullable(),
    scopes: z.array(z.string()).describe("What the key may do beyond sessions and profiles: `credentials:use` (fill), `credentials:manage`."),
  })
  .meta({ id: "ApiKey" });

const CreatedApiKeyDto = ApiKeyDto.extend({
  secret: z.string().describe("The whole key, `vs_<id>.<secret>`. Shown once: store it now."),
}).meta({ id: "CreatedApiKey" });

const ClaimedWorkspaceDto = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    created_at: z.string(),
    role: z.enum(["OWNER", "ADMIN", "MEMBER"]).describe("The caller's role in it now: OWNER."),
  })
  .meta({ id: "ClaimedWorkspace" });

export function toApiKeyDto(k: ApiKeyRecord): z.infer<typeof ApiKeyDto> {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    created_at: k.createdAt.toISOString(),
    created_by_user_id: k.createdById,
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
    revoked_by_user_id: k.revokedById,
    scopes: [...k.scopes],
  };
}

const dashboard =
  "Dashboard surface: a signed-in owner or admin of the workspace, by `Authorization: Bearer <dashboard access token>` or the " +
  "dashboard's cookie. API keys are refused with 403.";

export const dashboardRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/dashboard/ws/{slug}/api-keys",
    operation: operations.apiKeys,
    summary: "List a workspace's API keys",
    description: `Revoked keys stay listed, with their revocation time, for 90 days. ${dashboard.replace("owner or admin", "member")}`,
    tags: ["Dashboard"],
    auth: "apiKeyOrUser",
    input: { params: Slug },
    status: 200,
    response: listEnvelope(ApiKeyDto, "ApiKeyList"),
    problems: ["unauthenticated", "forbidden", "not-found"],
    handler: async (ctx, { params }, _http, run) => ({
      items: (await run(ctx)).map(toApiKeyDto),
      next_cursor: null,
      has_more: false,
    }),
  }),
  defineRoute({
    method: "post",
    path: "/v1/dashboard/ws/{slug}/api-keys",
    operation: operations.createApiKey,
    summary: "Create an API key",
    description: `The response carries the whole key in \`secret\`, once. ${dashboard}`,
    tags: ["Dashboard"],
    auth: "apiKeyOrUser",
    input: {
      params: Slug,
      body: z.strictObject({
        label: ApiKeyLabel,
        scopes: ApiKeyScopes.optional().describe("Granted to the key: `credentials:use`, `credentials:manage`; none by default."),
      }),
    },
    status: 201,
    response: CreatedApiKeyDto,
    problems: ["unauthenticated", "forbidden", "not-found"],
    handler: async (ctx, { params, body }, _http, run) => {
      const { apiKey, secret } = await run(ctx, body.label, body.scopes ?? []);
      return { ...toApiKeyDto(apiKey), secret };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/dashboard/ws/{slug}/api-keys/{key_id}",
    operation: operations.revokeApiKey,
    summary: "Revoke an API key",
    description:
      "Immediate: the key fails authentication from the next request on, on every node. Idempotent. With `end_sessions=true`, " +
      "every live session the key started ends too (`RELEASED`, end reason `api_key_revoked`; its CDP and live-view sockets close " +
      `with 4403 and its tokens are refused), also when the key was revoked already. ${dashboard}`,
    tags: ["Dashboard"],
    auth: "apiKeyOrUser",
    input: {
      params: Slug.extend({ key_id: z.string().min(1).max(64) }),
      query: z.object({
        end_sessions: z
          .enum(["true", "false"])
          .optional()
          .describe("`true`: also end the live sessions this key started (default `false`: they run on until they end)."),
      }),
    },
    status: 204,
    problems: ["unauthenticated", "forbidden", "not-found"],
    handler: async (ctx, { params, query }, _http, run) => {
      await run(ctx, params.key_id, { endSessions: query.end_sessions === "true" });
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/dashboard/ws/{slug}/audit-log",
    operation: operations.auditLog,
    summary: "Read a workspace's audit log",
    description: `One entry per authenticated call, denied ones included, newest first. Filter by \`key_prefix\`, \`action\`, \`actor_user_id\`, \`target\` and time; \`changes_only=true\` leaves reads out. ${dashboard}`,
    tags: ["Dashboard"],
    auth: "apiKeyOrUser",
    input: { params: Slug, query: AuditQuery },
    status: 200,
    response: listEnvelope(AuditEntryDto, "AuditEntryList"),
    problems: ["unauthenticated", "forbidden", "not-found"],
    handler: async (ctx, { params, query }, _http, run) => {
      const page = await run(ctx, query);
      return { items: page.items.map(auditDto), next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/dashboard/ws/{slug}/claim",
    operation: operations.claimWorkspace,
    summary: "Claim an ownerless workspace",
    description:
      "An organization admin becomes the owner of a workspace that has no owner (for example `default` on a data folder from " +
      "before its first start named one). A workspace with an owner answers 409. Dashboard users only; API keys are refused with 403.",
    tags: ["Dashboard"],
    auth: "apiKeyOrUser",
    input: { params: Slug },
    status: 200,
    response: ClaimedWorkspaceDto,
    problems: ["unauthenticated", "forbidden", "not-found", "conflict"],
    handler: async (ctx, { params }, _http, run) => {
      const { workspace, role } = await run(ctx, params.slug);
      return { id: workspace.id, slug: workspace.slug, name: workspace.name, created_at: workspace.createdAt.toISOString(), role };
    },
  }),
];
