import type { Client } from "./api.ts";
import type { components, operations, paths } from "./generated/openapi.ts";
import { allPages } from "./pages.ts";

export type Profile = components["schemas"]["Profile"];
/** Playwright's `storageState` shape (per-origin `sessionStorage` may be added). */
export type StorageState = components["schemas"]["StorageState"];
export type StorageStateExport = components["schemas"]["StorageStateExport"];
type ProfileListQuery = NonNullable<operations["profiles"]["parameters"]["query"]>;

/** What Profiles needs of the client (index.ts's Vessel): its typed API and its retrying call. */
interface ClientCalls {
  readonly api: Client<paths>;
  call<T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T>;
}

/** `vessel.profiles`: saved logins (cookies and storage) that sessions start from. */
export class Profiles {
  constructor(private readonly vessel: ClientCalls) {}

  /** Saves a running session's logins (`sessionId`) or imports a Playwright `storageState`. */
  create(input: { label: string } & ({ sessionId: string } | { storageState: StorageState })): Promise<Profile> {
    const body = "sessionId" in input ? { label: input.label, session_id: input.sessionId } : { label: input.label, storage_state: input.storageState };
    return this.vessel.call(() => this.vessel.api.POST("/v1/profiles", { body }));
  }

  /** Replaces a profile's saved state with a running session's, keeping its id. */
  save(id: string, sessionId: string): Promise<Profile> {
    return this.vessel.call(() => this.vessel.api.POST("/v1/profiles/{id}:save", { params: { path: { id } }, body: { session_id: sessionId } }));
  }

  get(id: string): Promise<Profile> {
    return this.vessel.call(() => this.vessel.api.GET("/v1/profiles/{id}", { params: { path: { id } } }));
  }

  listPage(query: ProfileListQuery = {}) {
    return this.vessel.call(() => this.vessel.api.GET("/v1/profiles", { params: { query } }));
  }

  /** Every profile of the workspace, page after page. */
  list(query: Omit<ProfileListQuery, "cursor"> = {}): AsyncGenerator<Profile> {
    return allPages((cursor) => this.listPage({ ...query, ...(cursor ? { cursor } : {}) }));
  }

  async delete(id: string): Promise<void> {
    await this.vessel.call(() => this.vessel.api.DELETE("/v1/profiles/{id}", { params: { path: { id } }, parseAs: "text" }));
  }

  /** The saved logins in Playwright's `storageState` shape (`browser.newContext({ storageState })`). An audited action. */
  exportStorageState(id: string): Promise<StorageStateExport> {
    return this.vessel.call(() => this.vessel.api.GET("/v1/profiles/{id}/storage-state", { params: { path: { id } } }));
  }
}
