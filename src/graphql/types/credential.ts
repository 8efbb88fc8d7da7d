import type { Page } from "../../kernel/pagination.ts";
import type { CredentialRecord } from "../../services/credentials/credential-access.ts";
import type { FillOutcome } from "../../services/credentials/credential-fill.ts";
import { CredentialListQuery } from "../../services/credentials/credential-input.ts";
import { parseInput } from "../../kernel/support.ts";
import { audited } from "../audited.ts";
import { builder } from "../builder.ts";
import { operations } from "../../services/operations.ts";

// Secrets are arguments only: no type here has a field that could hold one.
const CredentialType = builder.objectRef<CredentialRecord>("Credential").implement({
  description: "A login the server fills into sessions. Its username, password and TOTP secret are write-only.",
  fields: (t) => ({
    id: t.exposeString("id", { description: "`cred_<ULID>`" }),
    name: t.exposeString("name"),
    origins: t.exposeStringList("origins", { description: "The top-level origins it may be filled into." }),
    usernameHint: t.exposeString("usernameHint", { description: "The username masked for people (`al•••@example.com`)." }),
    hasTotp: t.exposeBoolean("hasTotp"),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (c) => c.updatedAt }),
    lastUsedAt: t.field({ type: "DateTime", nullable: true, resolve: (c) => c.lastUsedAt }),
  }),
});

const CredentialPage = builder.objectRef<Page<CredentialRecord>>("CredentialPage").implement({
  fields: (t) => ({
    items: t.field({ type: [CredentialType], resolve: (p) => p.items }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

const CredentialFill = builder.objectRef<FillOutcome>("CredentialFill").implement({
  fields: (t) => ({
    filled: t.stringList({ description: "The fields typed into: username, password, totp.", resolve: (f) => f.filled }),
    origin: t.exposeString("origin", { description: "The top-level origin of the tab that was filled." }),
  }),
});

const CreateCredentialGqlInput = builder.inputType("CreateCredentialInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    origins: t.stringList({ required: true }),
    username: t.string({ required: true, description: "Write-only." }),
    password: t.string({ required: true, description: "Write-only." }),
    totpSecret: t.string({ description: "Base32 (RFC 6238). Write-only." }),
  }),
});

const UpdateCredentialGqlInput = builder.inputType("UpdateCredentialInput", {
  fields: (t) => ({
    name: t.string(),
    origins: t.stringList(),
    username: t.string({ description: "Write-only." }),
    password: t.string({ description: "Write-only." }),
    totpSecret: t.string({ description: "Base32 (RFC 6238); null removes it. Write-only." }),
  }),
});

const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;
const WORKSPACE_ARG = "The workspace (slug) to act in: required for dashboard users; an API key acts in its own.";

builder.queryField(operations.credentials.id, (t) =>
  t.field({
    extensions: { operation: operations.credentials },
    type: CredentialPage,
    description: "The workspace's credentials in creation order, without secrets.",
    args: { workspace: t.arg.string({ description: WORKSPACE_ARG }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.credentials,
        (svc, run) => run(svc, parseInput(CredentialListQuery, { limit: opt(args.limit), cursor: opt(args.cursor) })),
        opt(args.workspace),
      ),
  }),
);

builder.queryField(operations.credential.id, (t) =>
  t.field({
    extensions: { operation: operations.credential },
    type: CredentialType,
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.credential, (svc, run) => run(svc, id), opt(workspace)),
  }),
);

builder.mutationField(operations.createCredential.id, (t) =>
  t.field({
    extensions: { operation: operations.createCredential },
    type: CredentialType,
    description: "Store a credential (owners and admins; API keys need `credentials:manage`).",
    args: { input: t.arg({ type: CreateCredentialGqlInput, required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { input, workspace }, ctx) =>
      audited(
        ctx,
        operations.createCredential,
        (svc, run) =>
          run(svc, {
            name: input.name,
            origins: input.origins,
            username: input.username,
            password: input.password,
            totp_secret: opt(input.totpSecret),
          }),
        opt(workspace),
      ),
  }),
);

builder.mutationField(operations.updateCredential.id, (t) =>
  t.field({
    extensions: { operation: operations.updateCredential },
    type: CredentialType,
    description: "Rename, re-scope or replace the secrets of a credential (secrets not named are kept).",
    args: {
      id: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateCredentialGqlInput, required: true }),
      workspace: t.arg.string({ description: WORKSPACE_ARG }),
    },
    resolve: (_r, { id, input, workspace }, ctx) =>
      audited(
        ctx,
        operations.updateCredential,
        (svc, run) =>
          run(svc, id, {
            name: opt(input.name),
            origins: opt(input.origins),
            username: opt(input.username),
            password: opt(input.password),
            // Absent keeps it; an explicit null removes it.
            ...(input.totpSecret !== undefined ? { totp_secret: input.totpSecret } : {}),
          }),
        opt(workspace),
      ),
  }),
);

builder.mutationField(operations.deleteCredential.id, (t) =>
  t.field({
    extensions: { operation: operations.deleteCredential },
    type: "Boolean",
    description: "Delete a credential and its data key.",
    args: { id: t.arg.string({ required: true }), workspace: t.arg.string({ description: WORKSPACE_ARG }) },
    resolve: (_r, { id, workspace }, ctx) => audited(ctx, operations.deleteCredential, async (svc, run) => (await run(svc, id), true), opt(workspace)),
  }),
);

builder.mutationField(operations.fillCredential.id, (t) =>
  t.field({
    extensions: { operation: operations.fillCredential },
    type: CredentialFill,
    description:
      "Fill a credential (id or name) into the session's active tab on the server; 422 credential-origin-mismatch when the tab's " +
      "top-level origin is not one of its origins. API keys need `credentials:use`.",
    args: {
      sessionId: t.arg.string({ required: true }),
      credential: t.arg.string({ required: true, description: "The credential's id (`cred_…`) or name." }),
      usernameSelector: t.arg.string(),
      passwordSelector: t.arg.string(),
      totpSelector: t.arg.string(),
      submit: t.arg.boolean({ description: "Submit the form once filled (default false)." }),
      workspace: t.arg.string({ description: WORKSPACE_ARG }),
    },
    resolve: (_r, args, ctx) =>
      audited(
        ctx,
        operations.fillCredential,
        (svc, run) =>
          run(svc, args.sessionId, args.credential, {
            username_selector: opt(args.usernameSelector),
            password_selector: opt(args.passwordSelector),
            totp_selector: opt(args.totpSelector),
            submit: opt(args.submit),
          }),
        opt(args.workspace),
      ),
  }),
);
