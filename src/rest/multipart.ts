import busboy from "busboy";
import type { Request } from "express";
import type { Readable } from "node:stream";
import { AppError, validationError } from "../errors.ts";

/**
 * One file from a `multipart/form-data` body, streamed: `use` gets the file's name and its bytes as
 * they arrive, and what it answers is the route's answer once the whole body has been read. Other
 * fields are read and dropped; a second file, or none in `field`, is a 400. `maxBytes` bounds the
 * file (busboy stops passing bytes past it, so `use` sees more than it allows and refuses it).
 */
export function withUploadedFile<T>(req: Request, field: string, maxBytes: number, use: (file: { name: string; stream: Readable }) => Promise<T>): Promise<T> {
  if (!req.is("multipart/form-data")) {
    return Promise.reject(new AppError("unsupported-media-type", `Send the file as multipart/form-data, in the field "${field}".`));
  }
  return new Promise<T>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // Names as browsers and fetch send them: UTF-8 (busboy reads latin1 unless told).
      parser = busboy({
        headers: req.headers,
        defParamCharset: "utf8",
        limits: { files: 1, fields: 20, parts: 21, fileSize: maxBytes + 1, fieldSize: 64 * 1024 },
      });
    } catch {
      return reject(validationError([{ field: "body", message: "not a readable multipart/form-data body (its boundary is missing)" }]));
    }
    let result: Promise<T> | undefined;
    let failure: unknown;
    parser.on("file", (name, stream, info) => {
      if (name !== field || result) {
        stream.resume();
        return;
      }
      result = use({ name: info.filename ?? "", stream });
      // Refused mid-file (too large, the session ended): answer now; the rest of the body is read and dropped.
      result.catch((err: unknown) => {
        failure ??= err;
        stop();
      });
    });
    parser.on("filesLimit", () => (failure ??= validationError([{ field: `body.${field}`, message: "exactly one file, please" }])));
    const stop = () => {
      req.unpipe(parser);
      req.resume();
      void settle();
    };
    parser.on("error", (err: unknown) => {
      failure ??= validationError([{ field: "body", message: `not a readable multipart/form-data body: ${(err as Error).message}` }]);
      stop();
    });
    parser.on("close", () => void settle());
    let settled = false;
    const settle = async () => {
      if (settled) return;
      settled = true;
      if (!result && !failure) failure = validationError([{ field: `body.${field}`, message: "a file is required in this field" }]);
      try {
        const value = result ? await result : undefined;
        if (failure) throw failure;
        resolve(value as T);
      } catch (err) {
        reject(failure ?? err);
      }
    };
    req.pipe(parser);
  });
}
