import { ApiKeyLabel, type ApiKeyRecord, type CreatedApiKey } from "../../services/api-keys/api-keys.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

const ApiKey = builder.objectRef<ApiKeyRecord>("ApiKey").implement({
  description: "An API key of a workspace. The secret is never readable after creation.",
  fields: (t) => ({
    id: t.exposeString("id"),
    label: t.exposeString("label"),
    prefix: t.exposeString("prefix", { description: "`vs_<id>`: everything left of the dot." }),
    createdAt: t.field({ type: "DateTime", resolve: (k) => k.createdAt }),
    createdByUserId: t.exposeString("createdById", { nullable: true }),
    lastUsedAt: t.field({ type: "DateTime", nullable: true, resolve: (k) => k.lastUsedAt }),
    revokedAt: t.field({ type: "DateTime", nullable: true, resolve: (k) => k.revokedAt }),
    revokedByUserId: t.exposeString("revokedById", { nullable: true }),
    scopes: t.stringList({
      description: "What the key may do beyond sessions and profiles: `credentials:use`, `credentials:manage`.",
      resolve: (k) => [...k.scopes],
    }),
  }),
});

const CreatedApiKeyType = builder.objectRef<CreatedApiKey>("CreatedApiKey").implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKey, resolve: (c) => c.apiKey }),
    secret: t.exposeString("secret", { description: "The whole key, `vs_<id>.<secret>`. Shown once: store it now." }),
  }),
});

builder.queryField(operations.apiKeys.id, (t) =>
  t.field({
    extensions: { operation: operations.apiKeys },
    type: [ApiKey],
    description: "A workspace's API keys, revoked ones included (dashboard; API keys are refused).",
    args: { workspace: t.arg.string({ required: true, description: "The workspace slug." }) },
    resolve: (_root, { workspace }, ctx) => audited(ctx, operations.apiKeys, (svc, run) => run(svc), workspace),
  }),
);

builder.mutationField(operations.createApiKey.id, (t) =>
  t.field({
    extensions: { operation: operations.createApiKey },
    type: CreatedApiKeyType,
    description: "Mint an API key (owners and admins; API keys are refused).",
    args: {
      workspace: t.arg.string({ required: true }),
      label: t.arg.string({ required: true }),
      scopes: t.arg.stringList({ required: false, description: "Granted to the key: `credentials:use`, `credentials:manage`; none by default." }),
    },
    resolve: (_root, { workspace, label, scopes }, ctx) =>
      audited(ctx, operations.createApiKey, (svc, run) => run(svc, parseInput(ApiKeyLabel, label), scopes ?? []), workspace),
  }),
);

builder.mutationField(operations.revokeApiKey.id, (t) =>
  t.field({
    extensions: { operation: operations.revokeApiKey },
    type: ApiKey,
    description: "Revoke an API key at once, on every node. Idempotent. `endSessions` also ends the live sessions it started (end reason API_KEY_REVOKED).",
    args: {
      workspace: t.arg.string({ required: true }),
      id: t.arg.string({ required: true }),
      endSessions: t.arg.boolean({ required: false, defaultValue: false, description: "Also end every live session this key started." }),
    },
    resolve: (_root, { workspace, id, endSessions }, ctx) =>
      audited(ctx, operations.revokeApiKey, (svc, run) => run(svc, id, { endSessions: endSessions ?? false }), workspace),
  }),
);
