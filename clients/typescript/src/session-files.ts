import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Client } from "./api.ts";
import type { components, paths } from "./generated/openapi.ts";

/** A file uploaded into a session: its `path` is what a file input accepts (Sessions.uploadFile). */
export type SessionFile = components["schemas"]["SessionFile"];
type Call = <T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>) => Promise<T>;

/** What uploadFile takes: a local file's path (Node), or the bytes themselves. */
export type UploadData = string | Uint8Array | ArrayBuffer | Blob;

/**
 * The bytes and name to send. A string is a path on this machine, read here, named by its last part
 * unless `name` says otherwise (`uploadFile(id, "/tmp/a.pdf")` from plain JavaScript, where no type
 * stops a path being passed as the data). Anything else that is not bytes is refused here, rather
 * than sent as its text under the name "undefined".
 */
async function fileOf(data: unknown, name: string | undefined): Promise<{ blob: Blob; name: string }> {
  if (typeof data === "string") {
    if (data === "") throw new TypeError("uploadFile: the path is empty");
    return { blob: new Blob([new Uint8Array(await readFile(data))]), name: name ?? path.basename(data) };
  }
  const named = name ?? (typeof File !== "undefined" && data instanceof File ? data.name : undefined);
  if (!(data instanceof Blob || data instanceof Uint8Array || data instanceof ArrayBuffer))
    throw new TypeError("uploadFile: the file must be a path (string), a Uint8Array, an ArrayBuffer or a Blob");
  if (!named) throw new TypeError("uploadFile: name the file (the third argument) when passing its bytes");
  return { blob: data instanceof Blob ? data : new Blob([data as ArrayBuffer]), name: named };
}

/** POST /v1/sessions/{id}/files as multipart/form-data, field `file`, named `name`. */
export async function uploadSessionFile(api: Client<paths>, call: Call, id: string, data: UploadData, name?: string): Promise<SessionFile> {
  const file = await fileOf(data, name);
  const form = new FormData();
  form.append("file", file.blob, file.name);
  // The API core would send JSON: the form goes as it is, with its own multipart boundary.
  return call(() => api.POST("/v1/sessions/{id}/files", { params: { path: { id } }, body: {} as never, bodySerializer: () => form }));
}

export async function listSessionFiles(api: Client<paths>, call: Call, id: string): Promise<SessionFile[]> {
  return (await call(() => api.GET("/v1/sessions/{id}/files", { params: { path: { id } } }))).items;
}
