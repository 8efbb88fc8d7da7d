import type { Request } from "express";
import { AppError } from "../errors.ts";

/** A binary request body (a zip), read whole up to `maxBytes`: past it 413, before reading further. */
export function readRawBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(new AppError("payload-too-large", `The body may hold at most ${maxBytes} bytes.`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: AppError) => {
      req.off("data", onData);
      req.resume();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(new AppError("payload-too-large", `The body may hold at most ${maxBytes} bytes.`));
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("aborted", () => fail(new AppError("validation-failed", "The body did not arrive whole.")));
    req.once("error", () => fail(new AppError("validation-failed", "The body did not arrive whole.")));
  });
}
