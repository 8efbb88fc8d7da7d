/**
 * A typed `fetch` over the OpenAPI document's `paths`, with no dependency: the package ships with
 * nothing but Node ≥ 20. Its calls have openapi-fetch's shape (`api.GET(path, { params, body })`
 * resolving to `{ data, error, response }`), which the client was first written against.
 */

type Method = "get" | "put" | "post" | "patch" | "delete";
type ParseAs = "json" | "text" | "arrayBuffer" | "blob" | "stream";

/** The paths that have an operation for this method. */
export type PathsWith<Paths, M extends Method> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: infer O } ? ([O] extends [never] ? never : O extends undefined ? never : P) : never;
}[keyof Paths];

type Operation<Paths, P extends keyof Paths, M extends Method> = Paths[P] extends { [K in M]: infer O } ? O : never;
type KeysOfNever<T> = { [K in keyof T]-?: [T[K]] extends [never] ? K : [NonNullable<T[K]>] extends [never] ? K : never }[keyof T];
type Params<O> = O extends { parameters: infer X } ? Omit<X, "cookie" | KeysOfNever<X>> : never;
type JsonBody<O> = O extends { requestBody?: infer B } ? (NonNullable<B> extends { content: { "application/json": infer J } } ? J : never) : never;
type Success<O> = O extends { responses: infer R } ? R[Extract<keyof R, 200 | 201 | 202 | 204>] : never;
type SuccessJson<O> = Success<O> extends { content: { "application/json": infer J } } ? J : undefined;
type ErrorOf<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? never : R[S] extends { content: infer C } ? C[keyof C] : unknown }[keyof R]
  : unknown;
type Data<O, A extends ParseAs> = A extends "text"
  ? string
  : A extends "arrayBuffer"
    ? ArrayBuffer
    : A extends "blob"
      ? Blob
      : A extends "stream"
        ? ReadableStream<Uint8Array> | null
        : SuccessJson<O>;

export type RequestInit<O, A extends ParseAs = "json"> = ([keyof Params<O>] extends [never] ? { params?: Record<string, never> } : { params: Params<O> }) & {
  body?: JsonBody<O>;
  parseAs?: A;
  /** Sends something other than JSON (a FormData, for instance); the JSON Content-Type is then not set. */
  bodySerializer?: (body: JsonBody<O>) => BodyInit;
  headers?: Record<string, string>;
};

export type FetchResponse<O, A extends ParseAs> =
  | { data: Data<O, A>; error?: never; response: Response }
  | { data?: never; error: ErrorOf<O> | string | undefined; response: Response };

type Call<Paths, M extends Method> = <P extends PathsWith<Paths, M>, A extends ParseAs = "json">(
  path: P,
  ...init: keyof Params<Operation<Paths, P, M>> extends never ? [RequestInit<Operation<Paths, P, M>, A>?] : [RequestInit<Operation<Paths, P, M>, A>]
) => Promise<FetchResponse<Operation<Paths, P, M>, A>>;

export interface Client<Paths> {
  GET: Call<Paths, "get">;
  PUT: Call<Paths, "put">;
  POST: Call<Paths, "post">;
  PATCH: Call<Paths, "patch">;
  DELETE: Call<Paths, "delete">;
}

export interface ClientOptions {
  baseUrl: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

interface LooseInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  parseAs?: ParseAs;
  bodySerializer?: (body: unknown) => BodyInit;
  headers?: Record<string, string>;
}

/** Query strings as the server reads them: arrays repeated (`a=1&a=2`), objects in deepObject style (`metadata[team]=qa`). */
export function serializeQuery(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) search.append(name, String(v));
    else if (typeof value === "object") for (const [k, v] of Object.entries(value)) search.append(`${name}[${k}]`, String(v));
    else search.append(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export function createClient<Paths>(options: ClientOptions): Client<Paths> {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? globalThis.fetch;
  async function call(method: string, path: string, init: LooseInit = {}): Promise<{ data?: unknown; error?: unknown; response: Response }> {
    const url =
      baseUrl +
      path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(init.params?.path?.[name] ?? ""))) +
      serializeQuery(init.params?.query);
    const headers = new Headers(options.headers);
    for (const [k, v] of Object.entries(init.params?.header ?? {})) if (v !== undefined) headers.set(k, String(v));
    for (const [k, v] of Object.entries(init.headers ?? {})) headers.set(k, v);
    let body: BodyInit | undefined;
    if (init.body !== undefined) {
      body = init.bodySerializer ? init.bodySerializer(init.body) : JSON.stringify(init.body);
      // A FormData carries its own multipart boundary in the Content-Type fetch writes.
      if (!init.bodySerializer && !headers.has("content-type")) headers.set("content-type", "application/json");
    }
    // Never follow a redirect: it would carry the API key to wherever it points.
    const response = await fetchImpl(new Request(url, { method, headers, body, redirect: "manual" }));
    const length = response.headers.get("content-length");
    if (response.status === 204 || (length === "0" && !response.headers.get("transfer-encoding")?.includes("chunked"))) {
      return response.ok ? { data: undefined, response } : { error: undefined, response };
    }
    if (!response.ok) {
      const text = await response.text();
      try {
        return { error: JSON.parse(text) as unknown, response };
      } catch {
        return { error: text, response };
      }
    }
    const parseAs = init.parseAs ?? "json";
    if (parseAs === "stream") return { data: response.body, response };
    if (parseAs === "json") {
      const text = await response.text();
      return { data: text ? (JSON.parse(text) as unknown) : undefined, response };
    }
    return { data: await response[parseAs](), response };
  }
  const bind = (method: string) => ((path: string, init?: LooseInit) => call(method, path, init)) as never;
  return { GET: bind("GET"), PUT: bind("PUT"), POST: bind("POST"), PATCH: bind("PATCH"), DELETE: bind("DELETE") };
}
