import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Client } from "./api.ts";
import type { components, paths } from "./generated/openapi.ts";
import { TimeoutError, VesselApiError } from "./errors.ts";

type Call = <T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>) => Promise<T>;

/** A session's network log as HAR 1.2 (`GET /v1/sessions/{id}/har`). */
export type Har = components["schemas"]["Har"];

export interface DownloadBundleOptions {
  /** While the session's recording is still being written (`recording-not-ready`), wait up to this long (default 120 s; 0: do not wait). */
  waitSeconds?: number;
  /** Write the zip to this file (answering its size) rather than answering its bytes. */
  to?: string;
}

/** Sessions.bundle: the zip's bytes, or, with `to`, how many bytes were written there. */
export interface BundleDownload {
  (id: string, options?: DownloadBundleOptions & { to?: undefined }): Promise<Uint8Array>;
  (id: string, options: DownloadBundleOptions & { to: string }): Promise<number>;
}

export function sessionHar(api: Client<paths>, call: Call, id: string): Promise<Har> {
  return call(() => api.GET("/v1/sessions/{id}/har", { params: { path: { id }, query: {} } }));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The bundle's zip as it is streamed, waiting while the session's video is written, as the server's `Retry-After` says. */
async function bundleStream(api: Client<paths>, call: Call, id: string, waitSeconds = 120): Promise<ReadableStream<Uint8Array>> {
  const until = Date.now() + waitSeconds * 1000;
  for (;;) {
    let retryAfter: string | null = null;
    try {
      const stream = await call(async () => {
        const answer = await api.GET("/v1/sessions/{id}/bundle", { params: { path: { id }, query: {} }, parseAs: "stream" });
        retryAfter = answer.response.headers.get("retry-after");
        return answer;
      });
      if (!stream) throw new Error(`The bundle of session ${id} came without a body.`);
      return stream as ReadableStream<Uint8Array>;
    } catch (err) {
      if (!(err instanceof VesselApiError) || err.slug !== "recording-not-ready") throw err;
      const delay = Math.min(10, Math.max(1, Number(retryAfter) || 2)) * 1000;
      if (Date.now() + delay > until)
        throw new TimeoutError(`The bundle of session ${id} was not ready within ${waitSeconds} s (its recording is being written).`);
      await sleep(delay);
    }
  }
}

/** The bundle's bytes, or, with `to`, how many were written there. */
export async function downloadBundle(
  vessel: { api: Client<paths>; call: Call },
  id: string,
  options: DownloadBundleOptions = {},
): Promise<Uint8Array | number> {
  const stream = await bundleStream(vessel.api, (attempt) => vessel.call(attempt), id, options.waitSeconds);
  if (options.to === undefined) return new Uint8Array(await new Response(stream).arrayBuffer());
  const source = Readable.fromWeb(stream as WebReadableStream<Uint8Array>);
  let bytes = 0;
  source.on("data", (chunk: Buffer) => (bytes += chunk.length));
  await pipeline(source, createWriteStream(options.to));
  return bytes;
}
