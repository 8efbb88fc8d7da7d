import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Client } from "./api.ts";
import type { paths } from "./generated/openapi.ts";
import { TimeoutError, VesselApiError } from "./errors.ts";

type Call = <T>(attempt: () => Promise<{ data?: T; error?: unknown; response: Response }>) => Promise<T>;

export interface DownloadRecordingOptions {
  /**
   * While the recording is still being made (the session runs, or its video is being stored:
   * `recording-not-ready`), wait for it up to this long, as the server's `Retry-After` says
   * (default 120 s; 0: do not wait).
   */
  waitSeconds?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The session's recording (MP4) as a stream, once it is ready (Sessions.downloadRecording). */
export async function recordingStream(api: Client<paths>, call: Call, id: string, options: DownloadRecordingOptions = {}): Promise<ReadableStream<Uint8Array>> {
  const until = Date.now() + (options.waitSeconds ?? 120) * 1000;
  for (;;) {
    let retryAfter: string | null = null;
    try {
      const stream = await call(async () => {
        const answer = await api.GET("/v1/sessions/{id}/recording", { params: { path: { id }, query: {}, header: {} }, parseAs: "stream" });
        retryAfter = answer.response.headers.get("retry-after");
        return answer;
      });
      if (!stream) throw new Error(`The recording of session ${id} came without a body.`);
      return stream as ReadableStream<Uint8Array>;
    } catch (err) {
      if (!(err instanceof VesselApiError) || err.slug !== "recording-not-ready") throw err;
      const delay = Math.min(10, Math.max(1, Number(retryAfter) || 2)) * 1000;
      if (Date.now() + delay > until) throw new TimeoutError(`The recording of session ${id} was not ready within ${options.waitSeconds ?? 120} s.`);
      await sleep(delay);
    }
  }
}

/** The recording's bytes. */
export async function recordingBytes(api: Client<paths>, call: Call, id: string, options?: DownloadRecordingOptions): Promise<Uint8Array> {
  return new Uint8Array(await new Response(await recordingStream(api, call, id, options)).arrayBuffer());
}

/** Writes the recording to `file`; answers how many bytes it has. */
export async function recordingToFile(api: Client<paths>, call: Call, id: string, file: string, options?: DownloadRecordingOptions): Promise<number> {
  const source = Readable.fromWeb((await recordingStream(api, call, id, options)) as WebReadableStream<Uint8Array>);
  let bytes = 0;
  source.on("data", (chunk: Buffer) => (bytes += chunk.length));
  await pipeline(source, createWriteStream(file));
  return bytes;
}

export async function deleteRecording(api: Client<paths>, call: Call, id: string): Promise<void> {
  await call(() => api.DELETE("/v1/sessions/{id}/recording", { params: { path: { id }, query: {} }, parseAs: "text" }));
}
