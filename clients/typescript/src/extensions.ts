import type { Client } from "./api.ts";
import type { components, paths } from "./generated/openapi.ts";

export type Extension = components["schemas"]["Extension"];

/** What Extensions needs of the client (index.ts's Vessel): its typed API and its retrying call. */
interface ClientCalls {
  readonly api: Client<paths>;
  call<T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T>;
}

/** `vessel.extensions`: the workspace's Manifest V3 extensions, loaded into sessions by `extensionIds` (full Chromium only). */
export class Extensions {
  constructor(private readonly vessel: ClientCalls) {}

  /** Uploads a zip of an unpacked Manifest V3 extension (at most 16 MiB). */
  upload(zip: Uint8Array | ArrayBuffer | Blob): Promise<Extension> {
    const body = zip instanceof Blob ? zip : new Blob([zip as ArrayBuffer], { type: "application/zip" });
    // The zip goes as the body itself; the API core would send JSON.
    return this.vessel.call(() =>
      this.vessel.api.POST("/v1/extensions", { body: {} as never, bodySerializer: () => body, headers: { "content-type": "application/zip" } }),
    );
  }

  async list(): Promise<Extension[]> {
    return (await this.vessel.call(() => this.vessel.api.GET("/v1/extensions", {}))).items;
  }

  get(id: string): Promise<Extension> {
    return this.vessel.call(() => this.vessel.api.GET("/v1/extensions/{id}", { params: { path: { id } } }));
  }

  /** Deletes it and its key; sessions running with it keep it until they end. */
  async delete(id: string): Promise<void> {
    await this.vessel.call(() => this.vessel.api.DELETE("/v1/extensions/{id}", { params: { path: { id } } }));
  }
}
