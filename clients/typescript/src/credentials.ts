import type { Client } from "./api.ts";
import type { components, operations, paths } from "./generated/openapi.ts";
import { allPages } from "./pages.ts";

export type Credential = components["schemas"]["Credential"];
export type CredentialFill = components["schemas"]["CredentialFill"];
type CredentialListQuery = NonNullable<operations["credentials"]["parameters"]["query"]>;
type CreateBody = operations["createCredential"]["requestBody"]["content"]["application/json"];
type UpdateBody = operations["updateCredential"]["requestBody"]["content"]["application/json"];
type FillBody = operations["fillCredential"]["requestBody"]["content"]["application/json"];

interface ClientCalls {
  readonly api: Client<paths>;
  call<T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T>;
}

/**
 * `vessel.credentials`: logins the server fills into sessions for the agent. Secrets go in (create,
 * update) and never come back: every answer holds the name, origins and a username hint only.
 */
export class Credentials {
  constructor(private readonly vessel: ClientCalls) {}

  /** Stores a login (API keys need the scope `credentials:manage`). */
  create(input: CreateBody): Promise<Credential> {
    return this.vessel.call(() => this.vessel.api.POST("/v1/credentials", { body: input }));
  }

  get(id: string): Promise<Credential> {
    return this.vessel.call(() => this.vessel.api.GET("/v1/credentials/{id}", { params: { path: { id } } }));
  }

  listPage(query: CredentialListQuery = {}) {
    return this.vessel.call(() => this.vessel.api.GET("/v1/credentials", { params: { query } }));
  }

  /** Every credential of the workspace, page after page. */
  list(query: Omit<CredentialListQuery, "cursor"> = {}): AsyncGenerator<Credential> {
    return allPages((cursor) => this.listPage({ ...query, ...(cursor ? { cursor } : {}) }));
  }

  /** Renames it, changes its origins, or replaces secrets (those not named are kept; `totp_secret: null` removes it). */
  update(id: string, input: UpdateBody): Promise<Credential> {
    return this.vessel.call(() => this.vessel.api.PATCH("/v1/credentials/{id}", { params: { path: { id } }, body: input }));
  }

  async delete(id: string): Promise<void> {
    await this.vessel.call(() => this.vessel.api.DELETE("/v1/credentials/{id}", { params: { path: { id } }, parseAs: "text" }));
  }

  /**
   * Fills the credential into the session's active tab, typed by the server (API keys need
   * `credentials:use`). 422 `credential-origin-mismatch` when the tab shows another origin.
   */
  fill(sessionId: string, credentialId: string, input: Partial<FillBody> = {}): Promise<CredentialFill> {
    return this.vessel.call(() =>
      this.vessel.api.POST("/v1/sessions/{id}/credentials/{credential_id}/fill", {
        params: { path: { id: sessionId, credential_id: credentialId } },
        body: { submit: false, ...input },
      }),
    );
  }
}
