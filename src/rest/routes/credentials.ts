import { z } from "zod";
import { toPageDto } from "../presenters/page.ts";
import type { CredentialRecord } from "../../services/credentials/credential-access.ts";
import { CreateCredentialInput, CredentialListQuery, FillCredentialInput, UpdateCredentialInput } from "../../services/credentials/credential-input.ts";
import { defineRoute, listEnvelope } from "../define-route.ts";
import { operations } from "../../services/operations.ts";

export const CredentialDto = z
  .object({
    id: z.string().describe("`cred_<ULID>`"),
    name: z.string(),
    origins: z.array(z.string()).describe("The top-level origins it may be filled into."),
    username_hint: z.string().describe("The username masked for people (`al•••@example.com`); the username itself is never returned."),
    has_totp: z.boolean().describe("Whether it holds a TOTP secret (codes are computed on the server at each fill)."),
    created_at: z.string(),
    updated_at: z.string(),
    last_used_at: z.string().nullable().describe("When it was last filled into a session."),
  })
  .meta({ id: "Credential" });

export function toCredentialDto(c: CredentialRecord): z.infer<typeof CredentialDto> {
  return {
    id: c.id,
    name: c.name,
    origins: c.origins,
    username_hint: c.usernameHint,
    has_totp: c.hasTotp,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    last_used_at: c.lastUsedAt?.toISOString() ?? null,
  };
}

const FillDto = z
  .object({
    filled: z.array(z.enum(["username", "password", "totp"])).describe("The fields typed into, in order; empty when the page's top document has none."),
    origin: z.string().describe("The top-level origin of the tab that was filled."),
  })
  .meta({ id: "CredentialFill" });

const Id = z.object({ id: z.string().min(1).max(64) });
const FillParams = z.object({ id: z.string().min(1).max(64), credential_id: z.string().min(1).max(64) });
const secretsNote =
  "Secret values (username, password, TOTP secret) are write-only: no answer, log line or audit entry ever holds them. " +
  "API keys need the scope `credentials:manage`; people must be owners or admins.";

export const credentialRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/credentials",
    operation: operations.createCredential,
    summary: "Store a credential",
    description: `Stores a login for the server to fill into sessions, sealed under a data key of its own. ${secretsNote}`,
    tags: ["Credentials"],
    input: { body: CreateCredentialInput },
    status: 201,
    response: CredentialDto,
    problems: ["forbidden", "conflict"],
    bodyLimit: "16kb",
    handler: async (ctx, { body }, _http, run) => toCredentialDto(await run(ctx, body)),
  }),
  defineRoute({
    method: "get",
    path: "/v1/credentials",
    operation: operations.credentials,
    summary: "List credentials",
    description: "The workspace's credentials in creation order, without secrets. API keys need `credentials:use` or `credentials:manage`.",
    tags: ["Credentials"],
    input: { query: CredentialListQuery },
    status: 200,
    response: listEnvelope(CredentialDto, "CredentialList"),
    problems: ["forbidden"],
    handler: async (ctx, { query }, _http, run) => toPageDto(await run(ctx, query), toCredentialDto),
  }),
  defineRoute({
    method: "get",
    path: "/v1/credentials/{id}",
    operation: operations.credential,
    summary: "Get a credential",
    description: "Its name, origins, username hint and last use; never a secret.",
    tags: ["Credentials"],
    input: { params: Id },
    status: 200,
    response: CredentialDto,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => toCredentialDto(await run(ctx, params.id)),
  }),
  defineRoute({
    method: "patch",
    path: "/v1/credentials/{id}",
    operation: operations.updateCredential,
    summary: "Change a credential",
    description: `Renames it, changes its origins, or replaces secrets (those not named are kept; \`totp_secret: null\` removes it). ${secretsNote}`,
    tags: ["Credentials"],
    input: { params: Id, body: UpdateCredentialInput },
    status: 200,
    response: CredentialDto,
    problems: ["not-found", "forbidden", "conflict", "credential-unreadable"],
    bodyLimit: "16kb",
    handler: async (ctx, { params, body }, _http, run) => toCredentialDto(await run(ctx, params.id, body)),
  }),
  defineRoute({
    method: "delete",
    path: "/v1/credentials/{id}",
    operation: operations.deleteCredential,
    summary: "Delete a credential",
    description: "The row goes, and with it its data key: its secrets cannot be decrypted any more.",
    tags: ["Credentials"],
    input: { params: Id },
    status: 204,
    problems: ["not-found", "forbidden"],
    handler: async (ctx, { params }, _http, run) => {
      await run(ctx, params.id);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/sessions/{id}/credentials/{credential_id}/fill",
    operation: operations.fillCredential,
    summary: "Fill a credential into a session",
    description:
      "The server types the credential into the session's active tab through its own connection to the browser, so the secrets never " +
      "reach the caller or its CDP socket. Only when the tab's top-level origin is one of the credential's origins (else 422 " +
      "`credential-origin-mismatch`), and only into the top document (never a frame). Without selectors the fields are found by their " +
      "autocomplete tokens (`username`, `current-password`, `one-time-code`) or `type=password`; a TOTP code is computed on the server. " +
      "Audited as `credential.fill`. API keys need the scope `credentials:use`.",
    tags: ["Credentials"],
    input: { params: FillParams, body: FillCredentialInput },
    status: 200,
    response: FillDto,
    problems: ["not-found", "forbidden", "conflict", "credential-origin-mismatch", "credential-unreadable"],
    bodyLimit: "8kb",
    handler: async (ctx, { params, body }, _http, run) => run(ctx, params.id, params.credential_id, body),
  }),
];
