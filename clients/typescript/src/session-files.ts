import type { Client } from "./api.ts";
import type { components, paths } from "./generated/openapi.ts";

/** A file uploaded into a session: its `path` is what a file input accepts (Sessions.uploadFile). */
export type SessionFile = components["schemas"]["SessionFile"];
type Call = <T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>) => Promise<T>;

/** POST /v1/sessions/{id}/files as multipart/form-data, field `file`, named `name`. */
export function uploadSessionFile(api: Client<paths>, call: Call, id: string, data: Uint8Array | ArrayBuffer | Blob, name: string): Promise<SessionFile> {
  const form = new FormData();
  form.append("file", data instanceof Blob ? data : new Blob([data as ArrayBuffer]), name);
  // The API core would send JSON: the form goes as it is, with its own multipart boundary.
  return call(() => api.POST("/v1/sessions/{id}/files", { params: { path: { id } }, body: {} as never, bodySerializer: () => form }));
}

export async function listSessionFiles(api: Client<paths>, call: Call, id: string): Promise<SessionFile[]> {
  return (await call(() => api.GET("/v1/sessions/{id}/files", { params: { path: { id } } }))).items;
}
